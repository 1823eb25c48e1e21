"""`make run`: the whole product in one terminal.

Checks the environment (one clear line per problem, no traceback wall), starts or reuses the
embedded PostgreSQL, migrates, bootstraps (admin, schedules, demo office), then supervises
CLAPILOT_WEB_PROCESSES daphne processes (default: one per core) on one listening socket it opens
itself (clapilot/webpool.py), a Celery worker and Celery beat until Ctrl-C / SIGTERM, and stops all
of them and the embedded database cleanly.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

from clapilot import webpool

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
STOP_GRACE_SECONDS = 20


class Abort(Exception):
    """A problem the person starting the product can fix; printed as one line."""


def say(message: str) -> None:
    print(f"clapilot | {message}", flush=True)


# --- preflight ------------------------------------------------------------------------------
def open_port(host: str, port: int) -> socket.socket:
    """The listening socket every web process serves on; held by the launcher until it stops, so
    connections queue there while a web process restarts."""
    try:
        return webpool.open_listener(host, port)
    except OSError as exc:
        raise Abort(
            f"Port {port} on {host} is not available ({exc.strerror}). Stop the program using it "
            f"or choose another port, e.g. PORT={port + 1} make run."
        ) from None


def web_process_count() -> int:
    try:
        return webpool.web_processes()
    except ValueError as exc:
        raise Abort(str(exc)) from None


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
# A child that dies is started again after a back-off that doubles from FIRST_BACKOFF up to
# MAX_BACKOFF seconds and starts over once a child stayed up STABLE_SECONDS. The product never
# stops because one of its processes died; Ctrl-C / SIGTERM stops everything.
FIRST_BACKOFF = 1.0
MAX_BACKOFF = 30.0
STABLE_SECONDS = 60.0
TICK = 0.5
# A new worker's first heartbeat may take this long (a busy machine); a wedge is noticed after it.
WORKER_START_SECONDS = 120.0


def _exit_text(code: int) -> str:
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"code {code}"


class Child:
    """One supervised process (web, worker or beat), started again whenever it ends."""

    def __init__(self, name: str, argv: list[str], pass_fds: tuple[int, ...] = ()):
        self.name = name
        self.argv = argv
        self.pass_fds = pass_fds  # the web processes' shared listening socket
        self.process: subprocess.Popen[str]
        self.started_at = 0.0  # monotonic
        self.started_wall = 0.0  # time.time(), to compare with heartbeats
        self.restarts = 0
        self.failures = 0  # deaths in a row without STABLE_SECONDS of uptime between them
        self.restart_at: float | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches the launcher only; it stops children in order
            pass_fds=self.pass_fds,
            text=True,
            bufsize=1,
        )
        self.started_at, self.started_wall = time.monotonic(), time.time()
        self.restart_at = None
        threading.Thread(target=self._pump, args=(self.process,), daemon=True).start()

    def _pump(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None  # stdout=PIPE
        for line in process.stdout:
            sys.stdout.write(f"{self.name:>8} | {line}")
            sys.stdout.flush()

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def uptime(self) -> float:
        return time.monotonic() - self.started_at

    def schedule_restart(self, reason: str) -> None:
        """After the process ended: log why and when it starts again."""
        if self.uptime() >= STABLE_SECONDS:
            self.failures = 0
        delay = min(MAX_BACKOFF, FIRST_BACKOFF * 2**self.failures)
        self.failures += 1
        self.restart_at = time.monotonic() + delay
        say(f"{self.name} {reason}; restarting it in {delay:.0f} s (restart {self.restarts + 1}).")

    def restart_if_due(self) -> None:
        if self.restart_at is not None and time.monotonic() >= self.restart_at:
            self.restarts += 1
            self.start()
            say(f"{self.name} restarted (pid {self.process.pid}).")

    def kill(self) -> None:
        """SIGKILL the process and everything it started (a worker's pool processes)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def terminate(self) -> None:
        if self.running:
            self.process.send_signal(signal.SIGTERM)

    def wait(self, deadline: float) -> None:
        try:
            self.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say(f"{self.name} did not stop in time; killing it.")
            self.kill()


def wait_serving(host: str, port: int, web: list[Child], timeout: float = 60.0) -> None:
    """Until a web process answers HTTP (so "Ready" is true when printed; the socket itself
    accepts connections from the start); the supervisor takes over if every web process died
    meanwhile or it takes longer."""
    import http.client

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(child.running for child in web):
        connection = http.client.HTTPConnection(host, port, timeout=2.0)
        try:
            connection.request("GET", "/healthz")
            connection.getresponse().read()
            return  # any status: a web process answered
        except (OSError, http.client.HTTPException):
            time.sleep(0.1)
        finally:
            connection.close()


def worker_hostname() -> str:
    return f"worker@{socket.gethostname()}"


def web_names(count: int) -> list[str]:
    return ["web"] if count == 1 else [f"web{i}" for i in range(1, count + 1)]


def start_children(listener: socket.socket, web_count: int) -> list[Child]:
    concurrency = os.environ.get("CELERY_WORKER_CONCURRENCY", "2")
    argv = webpool.daphne_argv(listener)
    return [
        *(Child(name, argv, pass_fds=(listener.fileno(),)) for name in web_names(web_count)),
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
                "--hostname",
                worker_hostname(),
            ],
        ),
        Child("beat", [str(BIN / "celery"), "-A", "clapilot", "beat", "--loglevel", "INFO"]),
    ]


class WedgeWatch:
    """Replaces a worker that is alive but no longer runs jobs: its own heartbeat (written by its
    main process while its pool takes jobs, clapilot/celery.py) is older than
    CLAPILOT_WORKER_WEDGE_SECONDS. A new worker gets the same time to write its first one."""

    def __init__(self, worker: Child):
        from django.conf import settings

        from clapilot.celery import heartbeat_component

        self.worker = worker
        self.component = heartbeat_component(worker_hostname())
        self.limit = float(settings.CLAPILOT_WORKER_WEDGE_SECONDS)
        self.every = max(TICK, min(5.0, self.limit / 4))
        self.checked_at = 0.0

    def last_beat(self) -> float | None:
        """The worker's last heartbeat (epoch seconds); None without one; raises when the
        database cannot be asked (then nothing is decided)."""
        from django.db import connection

        from apps.core.models import Heartbeat

        try:
            beat = (
                Heartbeat.objects.filter(component=self.component).values_list("beat_at", flat=True).first()
            )
        finally:
            connection.close()
        return None if beat is None else beat.timestamp()

    def check(self) -> None:
        now = time.monotonic()
        if not self.worker.running or now - self.checked_at < self.every:
            return
        self.checked_at = now
        try:
            last = self.last_beat()
        except Exception:  # the database is away: a stale heartbeat proves nothing then
            return
        if last is None or last < self.worker.started_wall:
            # No heartbeat from this worker yet: it gets WORKER_START_SECONDS to start (loading the
            # app, connecting, forking its pool) on a busy machine, then the usual limit.
            since = time.time() - self.worker.started_wall - max(0.0, WORKER_START_SECONDS - self.limit)
        else:
            since = time.time() - last
        if since > self.limit and self.worker.running:
            say(
                f"worker is wedged: alive (pid {self.worker.process.pid}) but no heartbeat for "
                f"{since:.0f} s; killing it."
            )
            self.worker.kill()
            self.worker.schedule_restart("was replaced because it was wedged")


def supervise(children: list[Child]) -> int:
    stopping = threading.Event()

    def on_signal(signum, frame):
        stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    workers = [child for child in children if child.name == "worker"]
    watch = WedgeWatch(workers[0]) if workers else None
    while not stopping.is_set():
        for child in children:
            if child.restart_at is None and not child.running:
                child.schedule_restart(f"exited with {_exit_text(child.process.returncode)}")
            child.restart_if_due()
        if watch is not None:
            watch.check()
        stopping.wait(TICK)
    say("Stopping web, worker and beat …")
    for child in children:
        child.terminate()
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for child in children:
        child.wait(deadline)
    return 0


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
    listener: socket.socket | None = None
    try:
        web_count = web_process_count()
        listener = open_port(host, port)
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
        children = start_children(listener, web_count)
        wait_serving(host, port, children[:web_count])
        say(
            f"Ready in {time.monotonic() - started:.1f}s: http://{host}:{port}/  (admin: /admin/, health: /healthz); "
            f"{web_count} web process{'es' if web_count > 1 else ''}"
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
        if listener is not None:
            listener.close()
        if embedded:
            from clapilot import embedded_db

            if embedded_db.stop_if_started_here():
                say("Embedded PostgreSQL stopped.")
    say("Stopped.")
    return code


if __name__ == "__main__":
    sys.exit(main())
