"""Helpers of the fault tests: real Celery worker and beat processes on a database of the test's
choice, and pointing this process's Celery app at that database's broker. Each test stops (or
kills) only the processes and servers it started itself."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.live import ROOT, child_env
from tests.waiting import wait_for


def process_env(database: str, **extra: str) -> dict[str, str]:
    """The environment of a worker or beat process on `database` (without Redis); `extra` as
    `child_env`'s overrides."""
    return child_env(
        {"DATABASE_URL": database, "DEBUG": "0", "LOG_LEVEL": "INFO"}, {"REDIS_URL": "", **extra}
    )


@dataclass
class Proc:
    name: str
    process: subprocess.Popen
    log: Path

    def output(self, tail: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-tail:] if self.log.exists() else ""

    def kill_group(self) -> None:
        """SIGKILL the process and everything it started (a worker and its pool children)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill_group()


@contextlib.contextmanager
def celery_process(kind: str, log_dir: Path, env: dict[str, str], *args: str, ready: str) -> Iterator[Proc]:
    """`celery -A clapilot <kind> …` in a session of its own; waits until `ready` is logged."""
    log = log_dir / f"{kind}-{len(list(log_dir.glob(f'{kind}-*.log')))}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "clapilot", kind, *args],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    proc = Proc(kind, process, log)

    def started() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"celery {kind} exited with {process.returncode}: {proc.output()}")
        return ready in proc.output(tail=100_000)

    try:
        if not wait_for(started, timeout=60, interval=0.1):
            raise RuntimeError(f"celery {kind} did not start within 60 s: {proc.output()}")
        yield proc
    finally:
        proc.stop()


def worker(log_dir: Path, env: dict[str, str], queue: str, *args: str):
    return celery_process(
        "worker", log_dir, env, "-Q", queue, "--concurrency", "1", "-l", "INFO", *args, ready=" ready."
    )


@contextlib.contextmanager
def started_together(*managers: contextlib.AbstractContextManager) -> Iterator[list]:
    """Enter `managers` (process starts that each wait for their ready line: daphne, a worker,
    beat) at the same time, one thread each, instead of one after the other; yield what they
    returned, and exit them in reverse order as a `with a, b, c:` would. If one fails to start,
    those that started are stopped again and its error is raised."""
    entered: list = [None] * len(managers)
    started = [False] * len(managers)
    errors: list[BaseException] = []

    def enter(index: int) -> None:
        try:
            entered[index] = managers[index].__enter__()
            started[index] = True
        except BaseException as exc:  # re-raised in the caller's thread below
            errors.append(exc)

    threads = [threading.Thread(target=enter, args=(i,), daemon=True) for i in range(len(managers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with contextlib.ExitStack() as stack:
        for manager, ok in zip(managers, started, strict=True):
            if ok:
                stack.push(manager.__exit__)
        if errors:
            raise errors[0]
        yield entered


@contextlib.contextmanager
def broker_of(url: str) -> Iterator[None]:
    """This process's Celery app sends jobs to `url`'s broker (the database the worker processes
    use) instead of the broker of the non-test database."""
    from clapilot.celery import app

    saved = app.conf.broker_url
    # kombu keeps one pool per URL (kombu.pools): switching back and forth reuses them.
    app._pool = None
    app.conf.broker_url = url
    app.amqp._producer_pool = None
    try:
        yield
    finally:
        app._pool = None
        app.conf.broker_url = saved
        app.amqp._producer_pool = None
