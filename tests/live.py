"""A real daphne process on the test database, for tests that need the whole ASGI stack (threads,
connection pool, channel layer) rather than Django's in-process test client.

`live_daphne(...)` starts one on a free loopback port and stops it again; every PostgreSQL session
it opens carries `application_name`, so a test can count that process's backends in
pg_stat_activity (`backends(...)`).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
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


def database_url() -> str:
    """DATABASE_URL of the database this test process uses (the test database)."""
    d = connection.settings_dict
    auth = quote(d["USER"]) + (f":{quote(d['PASSWORD'])}" if d.get("PASSWORD") else "")
    host = d["HOST"] or "localhost"
    if host.startswith("/"):  # the embedded server's socket directory
        return f"postgres://{auth}@/{d['NAME']}?host={quote(host)}"
    return f"postgres://{auth}@{host}:{d['PORT'] or 5432}/{d['NAME']}"


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
    log_dir: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> Iterator[LiveServer]:
    """daphne serving the project against this test's database; `env` adds or overrides variables
    (a value of "" removes one, e.g. {"REDIS_URL": ""})."""
    port = free_port()
    name = f"clapilot-live-{uuid.uuid4().hex[:8]}"
    full_env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        # libpq reads it for every session (Django, channels-postgres, kombu's SQLAlchemy engine)
        "PGAPPNAME": name,
    }
    full_env.pop("CLAPILOT_TEST_DATABASE", None)
    for key, value in (env or {}).items():
        if value == "":
            full_env.pop(key, None)
        else:
            full_env[key] = value
    log = log_dir / f"daphne-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "clapilot.asgi:application"],
            cwd=ROOT,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = LiveServer(f"http://127.0.0.1:{port}", port, name, process, log)

    def listening() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}: {server.output()}")
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", port)) == 0

    try:
        if not wait_for(listening, timeout=timeout, interval=0.1):
            raise RuntimeError(f"daphne did not start within {timeout:.0f} s: {server.output()}")
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class OwnRedis:
    """A redis-server of this test alone, on a free loopback port, without persistence; `stop()`
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

        def answering() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", self.port)) == 0

        if not wait_for(answering, timeout=timeout):
            raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@contextmanager
def own_redis(workdir: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(workdir)
    server.start()
    try:
        yield server
    finally:
        server.stop()
