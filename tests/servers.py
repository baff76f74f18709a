"""Start real daphne processes for tests that need the whole stack.

    env = sqlite_env(tmp_path)            # or postgres_env(url, REDIS_URL=...)
    with run_daphne(free_port(), env) as server:
        ...  # server.port, server.base_url, server.process

The server is ready when /healthz answers 200, polled with a deadline rather than
a blind sleep; if it dies or never gets healthy, the error carries its log. The
log lives in a temporary directory that is removed when the server stops; a test
that fails inside ``run_daphne`` gets the log's tail as a note on its error.
"""

import atexit
import contextlib
import json
import os
import shutil
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


def load_bench(name: str):
    """A script of bench/ as a module (bench/ is not a package: its scripts run
    from the command line), for the tests that check a benchmark's own logic."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module
# A deadline, not a wait: a loaded CI machine, under coverage, can take a minute.
STARTUP_TIMEOUT = 120.0
STOP_TIMEOUT = 10.0
LOG_TAIL_LINES = 60


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

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        try:
            return "\n".join(self.log().splitlines()[-lines:])
        except OSError as exc:
            return f"(log unreadable: {exc})"


# `make test` measures every Python process the tests start (pyproject.toml, coverage's
# patch = subprocess) by handing each one COVERAGE_PROCESS_CONFIG. Only the site's own
# processes, daphne and manage.py, are handed it: other helpers (the external bots'
# test programs must answer within a second) would pay coverage's start-up for
# nothing. tests/conftest.py takes it out of the environment for everything else.
_coverage_env: dict[str, str] = {}


def measure_only_site_processes() -> None:
    """Keep coverage's subprocess setting for daphne and manage.py alone."""
    value = os.environ.pop("COVERAGE_PROCESS_CONFIG", None)
    if value:
        _coverage_env["COVERAGE_PROCESS_CONFIG"] = value


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


def manage(
    *args: str,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    clean: bool = False,
    timeout: float = 120,
) -> subprocess.CompletedProcess:
    """Run `manage.py ARGS` as a user would and return what happened.

    ``env`` is added to ours; with ``clean`` our DJANGO_*, DATABASE_URL and
    REDIS_URL are dropped first, so the command sees only the settings given."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not (clean and (k.startswith("DJANGO_") or k in ("DATABASE_URL", "REDIS_URL")))
    }
    return subprocess.run(
        [python_for_servers(), "manage.py", *args],
        cwd=REPO_ROOT,
        env={**base, **_coverage_env, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_manage(*args: str, env: dict[str, str], timeout: float = 120) -> str:
    """Run `manage.py ARGS` with env added to ours; raise with its output if it fails."""
    result = manage(*args, env=env, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(
            f"manage.py {' '.join(args)} failed ({result.returncode}):\n"
            f"{result.stdout}\n{result.stderr}"
        )
    return result.stdout


# --- Migrated databases ---------------------------------------------------------
#
# Migrating takes seconds per database, and many tests want a fresh one: SQLite
# databases are copied from one migrated per test process, and a PostgreSQL
# database is migrated once per test process (migrate is idempotent anyway).

_sqlite_template: Path | None = None
_migrated_postgres: set[str] = set()


def _template_sqlite() -> Path:
    global _sqlite_template
    if _sqlite_template is None:
        directory = Path(tempfile.mkdtemp(prefix="khelaghor-template-"))
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        template = directory / "db.sqlite3"
        run_manage("migrate", "--noinput", env={"DATABASE_URL": f"sqlite:///{template}"})
        _sqlite_template = template
    return _sqlite_template


def sqlite_env(directory: Path | str, **extra: str) -> dict[str, str]:
    """A fresh migrated SQLite database ``directory/db.sqlite3`` with the
    in-memory layer and in-process timers (REDIS_URL empty), plus ``extra``."""
    database = Path(directory) / "db.sqlite3"
    shutil.copyfile(_template_sqlite(), database)
    return {"DATABASE_URL": f"sqlite:///{database}", "REDIS_URL": "", **extra}


def postgres_env(postgres_url: str, **extra: str) -> dict[str, str]:
    """The migrated PostgreSQL database ``postgres_url``, plus ``extra``."""
    env = {"DATABASE_URL": postgres_url, **extra}
    if postgres_url not in _migrated_postgres:
        run_manage("migrate", "--noinput", env=env)
        _migrated_postgres.add(postgres_url)
    return env


@contextlib.contextmanager
def run_daphne(port: int, env: dict[str, str]) -> Iterator[DaphneServer]:
    """Run `python -m daphne` on 127.0.0.1:port with env added to ours, until /healthz is ok."""
    with tempfile.TemporaryDirectory(prefix="khelaghor-daphne-") as log_dir:
        log_path = Path(log_dir) / f"daphne-{port}.log"
        server = _start_daphne(port, env, log_path)
        try:
            _wait_until_healthy(server)  # its errors carry the whole log
            try:
                yield server
            except GeneratorExit:
                raise
            except BaseException as exc:
                # The log goes with its directory: keep its end with the failure.
                _stop(server.process)
                exc.add_note(f"daphne on port {port}, last lines of its log:\n{server.log_tail()}")
                raise
        finally:
            _stop(server.process)


@contextlib.contextmanager
def run_daphnes(env: dict[str, str], count: int) -> Iterator[list[DaphneServer]]:
    """``count`` daphne processes on ``env``. They are all asked to stop at once
    at the end, so a slow shutdown is waited for once, not per process."""
    with contextlib.ExitStack() as stack:
        started = [stack.enter_context(run_daphne(free_port(), env)) for _ in range(count)]
        try:
            yield started
        finally:
            for server in started:
                if server.process.poll() is None:
                    server.process.terminate()


def _start_daphne(port: int, env: dict[str, str], log_path: Path) -> DaphneServer:
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [
                python_for_servers(), "-m", "daphne",
                "-b", "127.0.0.1", "-p", str(port),
                "config.asgi:application",
            ],
            cwd=REPO_ROOT,
            env={**os.environ, **_coverage_env, "PYTHONUNBUFFERED": "1", **env},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return DaphneServer(port=port, process=process, log_path=log_path)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
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
