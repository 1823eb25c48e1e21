"""Whole-project checks: migrations, deploy settings, the run command's failure messages."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parent.parent


def run(argv, env_extra, timeout=120):
    env = {**os.environ, **env_extra}
    return subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


@pytest.mark.django_db
def test_migrations_are_complete():
    from django.core.management import call_command

    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_deploy_check_is_clean_with_production_settings():
    result = run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        {"DEBUG": "0", "CLAPILOT_HTTPS": "1", "ALLOWED_HOSTS": "clapilot.kanzlei.example"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def _launcher(env_extra):
    return run([sys.executable, "-m", "clapilot.launcher"], env_extra, timeout=60)


def _assert_one_clear_line(result, *needles):
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    for needle in needles:
        assert needle in result.stdout, result.stdout


def test_run_command_refuses_a_busy_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        result = _launcher({"PORT": str(port)})
    _assert_one_clear_line(result, f"Port {port}", f"PORT={port + 1}")


def test_run_command_explains_a_broken_database_url():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free_port = sock.getsockname()[1]
    # The connection pool retries for CLAPILOT_DB_POOL_TIMEOUT (20 s by default) before it gives
    # up; the same pool gives up after 2 s here.
    result = _launcher(
        {
            "PORT": str(free_port),
            "DATABASE_URL": "postgres://nobody:s3cret@127.0.0.1:1/nowhere",
            "CLAPILOT_DB_POOL_TIMEOUT": "2",
        }
    )
    _assert_one_clear_line(result, "Cannot connect to the database nowhere", "DATABASE_URL")
    assert "s3cret" not in result.stdout + result.stderr


def test_run_command_explains_an_unreachable_redis():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free_port = sock.getsockname()[1]
    result = _launcher({"PORT": str(free_port), "REDIS_URL": "redis://127.0.0.1:1/0"})
    _assert_one_clear_line(result, "Redis at REDIS_URL is not reachable")


def test_collectstatic_succeeds_with_the_production_storage(tmp_path, settings):
    """The run command collects static files on every start; a vendored file that breaks the
    hashing storage must fail here, not on a user's first start."""
    from django.contrib.staticfiles.storage import staticfiles_storage
    from django.core.management import call_command

    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": "clapilot.storage.StaticStorage"}}
    call_command("collectstatic", interactive=False, verbosity=0)
    assert (tmp_path / "staticfiles.json").exists()
    assert staticfiles_storage.url("js/mutations.js").startswith("/static/js/mutations.")


def _alive(pid: int) -> bool:
    """Still running (a killed process that nobody reaped yet is a zombie: gone)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_embedded_database_starts_once_under_a_race_and_recovers_from_a_killed_server(tmp_path):
    """Three processes start the embedded server at once: one postmaster. After a kill -9 the
    next start recovers it instead of failing on the stale postmaster.pid."""
    import signal

    script = (
        "from clapilot import embedded_db; db = embedded_db.ensure_running(); "
        "import psycopg; psycopg.connect(host=db.host, user=db.user, dbname=db.name).close(); print('ok')"
    )
    env = {"CLAPILOT_VAR_DIR": str(tmp_path)}
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=120)[0] for p in racers]
    assert all(p.returncode == 0 for p in racers) and all("ok" in o for o in outputs)
    pid_file = tmp_path / "pgdata" / "postmaster.pid"
    pid = int(pid_file.read_text().splitlines()[0])
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not _alive(pid), timeout=10)
    assert pid_file.exists()  # stale
    again = run([sys.executable, "-c", script], env)
    assert again.returncode == 0 and "ok" in again.stdout, again.stderr
    new_pid = int(pid_file.read_text().splitlines()[0])
    assert new_pid != pid
    os.kill(new_pid, signal.SIGINT)  # fast shutdown: no leftover server after the test
