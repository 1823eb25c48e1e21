"""The web processes a bench runs against: `count` daphne processes on one listening socket, as
`make run` starts them (clapilot/webpool.py), on a free loopback port. No side effect at import."""

from __future__ import annotations

import contextlib
import http.client
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil

from clapilot import webpool
from tests.live import ROOT, child_env, database_url, stop


def daphne_env(app_name: str, redis_url: str | None, pool_size: int | None = None) -> dict[str, str]:
    env = {
        "DATABASE_URL": database_url(),
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "PGAPPNAME": app_name,  # every session of every web process carries it (counted by run_load)
        # 50 clients share a handful of keys: the per-key limit is not what this measures.
        "CLAPILOT_API_KEY_RATE": "10000000/min",
        "REDIS_URL": redis_url or "",  # "" removes it: the embedded channels-postgres layer
    }
    if pool_size is not None:
        env["CLAPILOT_DB_POOL_SIZE"] = str(pool_size)
    return env


def serving(processes: list[subprocess.Popen], port: int) -> bool:
    """Every process holds a client connection on the port: each accepts, so each serves."""
    for process in processes:
        try:
            connections = psutil.Process(process.pid).net_connections()
        except psutil.Error:
            return False
        if not any(c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port for c in connections):
            return False
    return True


def wait_all_serving(processes: list[subprocess.Popen], port: int, log: Path, timeout: float = 300) -> None:
    """Until every web process answered: keep-alive connections are opened (and held) until
    each process holds one; RuntimeError if one exits or it takes longer than `timeout`."""
    deadline = time.monotonic() + timeout
    held: list[http.client.HTTPConnection] = []
    try:
        while not serving(processes, port):
            if any(p.poll() is not None for p in processes) or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the web processes did not all start: {log.read_text(errors='replace')[-3000:]}"
                )
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                held.append(conn)
            except (OSError, http.client.HTTPException):
                conn.close()
                time.sleep(0.2)
    finally:
        for conn in held:
            conn.close()


@contextlib.contextmanager
def web_processes(
    workdir: Path, count: int, env: dict[str, str]
) -> Iterator[tuple[int, Path, list[subprocess.Popen]]]:
    """`count` daphne processes on one listening socket (as `make run` starts them); yields the
    port, the processes' shared log and the processes."""
    listener = webpool.open_listener("127.0.0.1", 0)
    port = listener.getsockname()[1]
    log = workdir / f"daphne-x{count}.log"
    argv = webpool.daphne_argv(listener, python=sys.executable)
    processes: list[subprocess.Popen] = []
    try:
        with log.open("w") as out:
            for _ in range(count):
                processes.append(
                    subprocess.Popen(
                        argv,
                        cwd=ROOT,
                        env=child_env({}, env),
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        pass_fds=(listener.fileno(),),
                    )
                )
        wait_all_serving(processes, port, log)
        yield port, log, processes
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            stop(process)
        listener.close()
