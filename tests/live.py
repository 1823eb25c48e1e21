"""Real server processes for tests and benches that need the whole stack rather than Django's
in-process test client: daphne (threads, connection pool, channel layer) and a redis-server of
their own. The one place that starts them (tests/, bench/ and the fault tests all come here).

`live_daphne(...)` starts daphne on a free loopback port and stops it again; every PostgreSQL
session it opens carries `application_name`, so a caller can count that process's backends in
pg_stat_activity (`backends(...)`). `own_redis(...)` does the same for a redis-server.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from django.db import connection

from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url(settings_dict: dict | None = None, name: str | None = None) -> str:
    """DATABASE_URL of a Django database: by default the one this process uses (in a test, the test
    database); `name` another database on the same server."""
    d = settings_dict if settings_dict is not None else connection.settings_dict
    auth = quote(d["USER"]) + (f":{quote(d['PASSWORD'])}" if d.get("PASSWORD") else "")
    host = d["HOST"] or "localhost"
    if host.startswith("/"):  # a socket directory (the embedded server)
        return f"postgres://{auth}@/{name or d['NAME']}?host={quote(host)}"
    return f"postgres://{auth}@{host}:{d['PORT'] or 5432}/{name or d['NAME']}"


def child_env(base: dict[str, str], overrides: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a server or worker process: `base` set, CLAPILOT_TEST_DATABASE
    removed (the child uses its DATABASE_URL as it is), then `overrides` (a value of "" removes a
    variable, e.g. {"REDIS_URL": ""})."""
    env = {**os.environ, **base}
    env.pop("CLAPILOT_TEST_DATABASE", None)
    for key, value in (overrides or {}).items():
        if value == "":
            env.pop(key, None)
        else:
            env[key] = value
    return env


def wait_listening(
    process: subprocess.Popen,
    port: int,
    what: str,
    timeout: float,
    output: Callable[[], str] = lambda: "",
    interval: float = 0.05,
) -> None:
    """Until `process` accepts connections on the loopback `port`; RuntimeError (with `output()`)
    if it exits or does not within `timeout` seconds."""

    def listening() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}: {output()}")
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", port)) == 0

    if not wait_for(listening, timeout=timeout, interval=interval):
        raise RuntimeError(f"{what} did not start on port {port} within {timeout:.0f} s: {output()}")


def stop(process: subprocess.Popen | None, timeout: float = 15) -> None:
    """SIGTERM, and SIGKILL if it has not exited after `timeout` seconds."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass
class LiveServer:
    url: str
    port: int
    application_name: str
    process: subprocess.Popen
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""


def backends(application_name: str) -> int:
    """Open PostgreSQL sessions of the process started with that application name."""
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [application_name])
        return cur.fetchone()[0]


@contextmanager
def live_daphne(
    log_dir: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    *,
    application_name: str | None = None,
    log_name: str | None = None,
    root: Path = ROOT,
) -> Iterator[LiveServer]:
    """daphne serving the project (the checkout at `root`) against this process's database;
    `env` adds or overrides variables (a value of "" removes one, e.g. {"REDIS_URL": ""}). Its
    output goes to `log_dir`/`log_name` (default daphne-<port>.log)."""
    port = free_port()
    name = application_name or f"clapilot-live-{uuid.uuid4().hex[:8]}"
    base = {
        "DATABASE_URL": database_url(),
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        # libpq reads it for every session (Django, channels-postgres, kombu's SQLAlchemy engine)
        "PGAPPNAME": name,
    }
    log = log_dir / (log_name or f"daphne-{port}.log")
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "clapilot.asgi:application"],
            cwd=root,
            env=child_env(base, env),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = LiveServer(f"http://127.0.0.1:{port}", port, name, process, log)
    try:
        wait_listening(process, port, "daphne", timeout, server.output, interval=0.1)
        yield server
    finally:
        stop(process)


class OwnRedis:
    """A redis-server of this caller alone, on a free loopback port, without persistence; `stop()`
    and `start()` again on the same port (the machine's own Redis is never touched)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.workdir = workdir
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 10) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            cwd=self.workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_listening(self.process, self.port, "redis-server", timeout)

    def stop(self) -> None:
        stop(self.process, timeout=10)
        self.process = None


@contextmanager
def own_redis(workdir: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(workdir)
    server.start()
    try:
        yield server
    finally:
        server.stop()
