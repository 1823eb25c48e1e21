"""`make run`: the whole product in one terminal.

Checks the environment (one clear line per problem, no traceback wall), starts or reuses the
embedded PostgreSQL, migrates, bootstraps (admin, schedules, demo office), then supervises daphne,
a Celery worker and Celery beat until Ctrl-C / SIGTERM, and stops all of them and the embedded
database cleanly.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
STOP_GRACE_SECONDS = 20


class Abort(Exception):
    """A problem the person starting the product can fix; printed as one line."""


def say(message: str) -> None:
    print(f"clapilot | {message}", flush=True)


# --- preflight ------------------------------------------------------------------------------
def check_port(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise Abort(
                f"Port {port} on {host} is not available ({exc.strerror}). Stop the program using it "
                f"or choose another port, e.g. PORT={port + 1} make run."
            ) from None


def check_redis(url: str) -> None:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3).ping()
    except Exception as exc:
        raise Abort(
            f"Redis at REDIS_URL is not reachable ({type(exc).__name__}). Start Redis or unset REDIS_URL "
            "to use the embedded PostgreSQL for the broker and live events."
        ) from None


def check_database() -> None:
    from django.db import connection

    try:
        connection.ensure_connection()
    except Exception as exc:
        d = connection.settings_dict
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise Abort(
            f"Cannot connect to the database {d.get('NAME')} on {d.get('HOST') or 'localhost'}:"
            f"{d.get('PORT') or 5432} ({reason}). Fix DATABASE_URL or unset it to use the embedded database."
        ) from None


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clapilot.settings")
    try:
        import django

        django.setup()
    except Exception as exc:
        raise Abort(f"The configuration could not be loaded: {type(exc).__name__}: {exc}") from None


# --- supervision ----------------------------------------------------------------------------
class Child:
    def __init__(self, name: str, argv: list[str]):
        self.name = name
        self.process = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches the launcher only; it stops children in order
            text=True,
            bufsize=1,
        )
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.process.stdout:
            sys.stdout.write(f"{self.name:>8} | {line}")
            sys.stdout.flush()

    def terminate(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def wait(self, deadline: float) -> None:
        try:
            self.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say(f"{self.name} did not stop in time; killing it.")
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def start_children(host: str, port: int) -> list[Child]:
    concurrency = os.environ.get("CELERY_WORKER_CONCURRENCY", "2")
    return [
        Child("web", [str(BIN / "daphne"), "-b", host, "-p", str(port), "clapilot.asgi:application"]),
        Child(
            "worker",
            [
                str(BIN / "celery"),
                "-A",
                "clapilot",
                "worker",
                "--loglevel",
                "INFO",
                "--concurrency",
                concurrency,
            ],
        ),
        Child("beat", [str(BIN / "celery"), "-A", "clapilot", "beat", "--loglevel", "INFO"]),
    ]


def supervise(children: list[Child]) -> int:
    stopping = threading.Event()

    def on_signal(signum, frame):
        stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    exit_code = 0
    while not stopping.is_set():
        for child in children:
            if child.process.poll() is not None:
                say(f"{child.name} exited with code {child.process.returncode}; stopping everything.")
                exit_code = 1
                stopping.set()
                break
        stopping.wait(0.5)
    say("Stopping web, worker and beat …")
    for child in children:
        child.terminate()
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for child in children:
        child.wait(deadline)
    return exit_code


def main() -> int:
    started = time.monotonic()
    host = os.environ.get("HOST", "127.0.0.1")
    try:
        port = int(os.environ.get("PORT", "8000"))
    except ValueError:
        say(f"PORT must be a number, got {os.environ.get('PORT')!r}.")
        return 2
    children: list[Child] = []
    embedded = False
    try:
        check_port(host, port)
        if os.environ.get("REDIS_URL"):
            check_redis(os.environ["REDIS_URL"])
        setup_django()
        from django.conf import settings

        # The settings only describe the embedded server (DATABASE_URL unset, also in .env): the
        # launcher starts it, before anything connects; worker and beat then attach to it.
        embedded = settings.EMBEDDED_DATABASE
        if embedded:
            from clapilot import embedded_db

            say("Starting the embedded PostgreSQL (var/pgdata) …")
            embedded_db.ensure_running()
        check_database()

        from django.core.management import call_command

        call_command("migrate", interactive=False, verbosity=0)
        call_command("createcachetable", verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("bootstrap")
        from django.db import connections

        connections.close_all()
        children = start_children(host, port)
        say(
            f"Ready in {time.monotonic() - started:.1f}s: http://{host}:{port}/  (admin: /admin/, health: /healthz)"
        )
        say("Press Ctrl-C to stop.")
        code = supervise(children)
    except Abort as problem:
        say(str(problem))
        code = 2
    except Exception as exc:  # one clear line here; the full traceback goes to a log file
        log = Path(os.environ.get("CLAPILOT_VAR_DIR") or ROOT / "var") / "launcher-error.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(traceback.format_exc())
        say(
            f"Start failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''} (details: {log})"
        )
        for child in children:
            child.terminate()
        code = 1
    except KeyboardInterrupt:
        for child in children:
            child.terminate()
        code = 130
    finally:
        if embedded:
            from clapilot import embedded_db

            if embedded_db.stop_if_started_here():
                say("Embedded PostgreSQL stopped.")
    say("Stopped.")
    return code


if __name__ == "__main__":
    sys.exit(main())
