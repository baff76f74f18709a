"""Start real daphne processes for tests that need the whole stack.

    with run_daphne(free_port(), {"REDIS_URL": url}) as server:
        ...  # server.port, server.base_url, server.process

The server is ready when /healthz answers 200, polled with a deadline rather than
a blind sleep; if it dies or never gets healthy, the error carries its log.
"""

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
STARTUP_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


@dataclass
class DaphneServer:
    port: int
    process: subprocess.Popen
    log_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthz(port: int) -> tuple[int, str]:
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def python_for_servers() -> str:
    """The venv's interpreter when there is one, else the one running the tests."""
    venv_python = REPO_ROOT / ".venv" / "bin" / "python"
    return str(venv_python) if venv_python.exists() else sys.executable


def run_manage(*args: str, env: dict[str, str], timeout: float = 120) -> str:
    """Run `manage.py ARGS` with env added to ours; raise with its output if it fails."""
    result = subprocess.run(
        [python_for_servers(), "manage.py", *args],
        cwd=REPO_ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"manage.py {' '.join(args)} failed ({result.returncode}):\n"
            f"{result.stdout}\n{result.stderr}"
        )
    return result.stdout


@contextlib.contextmanager
def run_daphne(port: int, env: dict[str, str]) -> Iterator[DaphneServer]:
    """Run `python -m daphne` on 127.0.0.1:port with env added to ours, until /healthz is ok."""
    log_dir = Path(tempfile.mkdtemp(prefix="khelaghor-daphne-"))
    log_path = log_dir / f"daphne-{port}.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [
                python_for_servers(), "-m", "daphne",
                "-b", "127.0.0.1", "-p", str(port),
                "config.asgi:application",
            ],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = DaphneServer(port=port, process=process, log_path=log_path)
    try:
        _wait_until_healthy(server)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)


def _wait_until_healthy(server: DaphneServer) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    last = "no answer yet"
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"daphne on port {server.port} exited with {server.process.returncode}:\n"
                f"{server.log()}"
            )
        try:
            status, body = _healthz(server.port)
        except (ConnectionError, urllib.error.URLError, TimeoutError) as exc:
            last = repr(exc)
        else:
            if status == 200 and json.loads(body).get("ok") is True:
                return
            last = f"{status} {body}"
        time.sleep(0.1)  # polling interval, bounded by the deadline above
    raise RuntimeError(
        f"daphne on port {server.port} not healthy after {STARTUP_TIMEOUT}s (last: {last}):\n"
        f"{server.log()}"
    )
