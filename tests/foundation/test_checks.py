"""Django's own checks: the deploy checklist passes and no migration is missing."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DJANGO_") and k not in ("DATABASE_URL", "REDIS_URL")
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_deploy_checklist_passes_in_production_configuration():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env={
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "example.com",
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_model_change_is_missing_a_migration():
    result = manage("makemigrations", "--check", "--dry-run", env={})
    assert result.returncode == 0, result.stdout + result.stderr
