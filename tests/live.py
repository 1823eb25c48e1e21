"""Real server processes for tests and benches that need the whole stack rather than Django's
in-process test client: daphne (threads, connection pool, channel layer) and a redis-server of
their own. The one place that starts them (tests/, bench/ and the fault tests all come here).

`live_daphne(...)` starts daphne on a free loopback port and stops it again; every PostgreSQL
session it opens carries `application_name`, so a caller can count that process's backends in
pg_stat_activity (`backends(...)`). With `preloaded=True` the daphne is forked from one that has
imported the project already (tests/daphne_fork.py; the browser tests start one per test).
`own_redis(...)` does the same for a redis-server.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
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


class ForkedProcess:
    """What the callers use of Popen (pid, poll, wait, terminate, kill, returncode) for a daphne
    forked by a preloaded one: not this process's child, so it is watched through a pidfd (no
    signal can reach a reused pid) and its exit status comes from its parent."""

    def __init__(self, parent: Preloaded, pid: int) -> None:
        self.pid = pid
        self.args = ["daphne", f"(forked, pid {pid})"]
        self.returncode: int | None = None
        self._parent = parent
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # ended (and reaped) already
            self._pidfd = None

    def _ended(self, timeout: float | None) -> bool:
        if self._pidfd is None:
            return True
        readable, _, _ = select.select([self._pidfd], [], [], timeout)
        return bool(readable)

    def _collect(self) -> int:
        self.returncode = self._parent.exit_code(self.pid)
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        return self.returncode

    def poll(self) -> int | None:
        if self.returncode is None and self._ended(0):
            self._collect()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not self._ended(timeout):
                raise subprocess.TimeoutExpired(self.args, timeout)
            self._collect()
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None and self._pidfd is not None:
            with suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __del__(self) -> None:
        if getattr(self, "_pidfd", None) is not None:
            os.close(self._pidfd)


class Preloaded:
    """One tests/daphne_fork.py process: the project imported once under `env`, a daphne forked
    from it per `spawn`. Its own output (a failed import) goes to `log`."""

    def __init__(self, env: dict[str, str], root: Path, log: Path, timeout: float) -> None:
        self.log = log
        self._lock = threading.Lock()
        self._buffer = b""
        self._exits: dict[int, int] = {}
        with log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.daphne_fork"],
                cwd=root,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=out,
            )
        if self._message(timeout) is None:
            self.close()
            raise RuntimeError(f"preloaded daphne did not start within {timeout:.0f} s: {self.output()}")

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""

    def alive(self) -> bool:
        return self.process.poll() is None

    def _message(self, timeout: float | None) -> dict | None:
        """The next line it wrote (an exit is recorded and returned too); None after `timeout`."""
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            readable, _, _ = select.select([fd], [], [], timeout)
            if not readable:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError(f"preloaded daphne exited with {self.process.wait()}: {self.output()}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        message = json.loads(line)
        if "exit" in message:
            self._exits[message["exit"]] = message["code"]
        return message

    def spawn(self, args: list[str], log: Path, env: dict[str, str | None]) -> ForkedProcess:
        with self._lock:
            self.process.stdin.write(json.dumps({"args": args, "log": str(log), "env": env}).encode() + b"\n")
            self.process.stdin.flush()
            while True:
                message = self._message(30)
                if message is None:
                    raise RuntimeError(f"preloaded daphne did not fork within 30 s: {self.output()}")
                if "error" in message:
                    raise RuntimeError(f"preloaded daphne could not fork: {message['error']}")
                if "pid" in message:
                    return ForkedProcess(self, message["pid"])

    def exit_code(self, pid: int, timeout: float = 30) -> int:
        """The exit code of a child that has ended (its parent reaps it and says so at once)."""
        with self._lock:
            while pid not in self._exits:
                if self._message(timeout) is None:
                    raise RuntimeError(f"preloaded daphne did not report the end of {pid}: {self.output()}")
            return self._exits.pop(pid)

    def close(self) -> None:
        """Its stdin closed: it kills the children it still has, then exits."""
        with suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()


_preloaded: dict[tuple, Preloaded] = {}
# The variables a preloaded daphne's children set each for itself (the rest of the environment is
# the preloaded one's, read when the project was imported).
OWN_VARIABLES = ("PGAPPNAME", "PYTEST_CURRENT_TEST")


def preloaded_daphne(env: dict[str, str], root: Path, log_dir: Path, timeout: float) -> Preloaded:
    """The preloaded daphne of exactly this environment and checkout, started on first use and
    kept until this process exits (one for a different environment replaces it)."""
    key = (str(root), tuple(sorted(env.items())))
    current = _preloaded.get(key)
    if current is not None and current.alive():
        return current
    for other in _preloaded.values():
        other.close()
    _preloaded.clear()
    _preloaded[key] = Preloaded(env, root, log_dir / "daphne-preload.log", timeout)
    return _preloaded[key]


@atexit.register
def _close_preloaded() -> None:
    for preloaded in _preloaded.values():
        preloaded.close()
    _preloaded.clear()


@dataclass
class LiveServer:
    url: str
    port: int
    application_name: str
    process: subprocess.Popen | ForkedProcess
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
    preloaded: bool = False,
) -> Iterator[LiveServer]:
    """daphne serving the project (the checkout at `root`) against this process's database;
    `env` adds or overrides variables (a value of "" removes one, e.g. {"REDIS_URL": ""}). Its
    output goes to `log_dir`/`log_name` (default daphne-<port>.log). `preloaded`: forked from a
    daphne of the same environment that has imported the project already (`preloaded_daphne`),
    which saves the ~5 CPU-seconds of the import for every server after the first."""
    port = free_port()
    name = application_name or f"clapilot-live-{uuid.uuid4().hex[:8]}"
    base = {
        "DATABASE_URL": database_url(),
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        # libpq reads it for every session (Django, channels-postgres, kombu's SQLAlchemy engine)
        "PGAPPNAME": name,
    }
    args = ["-b", "127.0.0.1", "-p", str(port), "clapilot.asgi:application"]
    log = log_dir / (log_name or f"daphne-{port}.log")
    environment = child_env(base, env)
    if preloaded:
        # Set by the forked child: PGAPPNAME names each server (libpq reads it per session), and
        # pytest names the current test in PYTEST_CURRENT_TEST.
        own = {key: environment.pop(key, None) for key in OWN_VARIABLES}
        # The first call imports the project (as a daphne would, and a little more): on the
        # machine shared by several test runs that once took 90 s.
        parent = preloaded_daphne(
            {**environment, "PGAPPNAME": "clapilot-live-preload"}, root, log_dir, max(timeout, 180)
        )
        log.write_text("")
        process = parent.spawn(args, log, own)
    else:
        with log.open("w") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "daphne", *args],
                cwd=root,
                env=environment,
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
