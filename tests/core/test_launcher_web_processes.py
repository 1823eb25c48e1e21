"""Every core serves HTTP and WebSockets (issue #28): `make run` starts CLAPILOT_WEB_PROCESSES
daphne processes on one listening socket the launcher holds; a SIGKILLed one is restarted while
the others keep serving, and a live event reaches a WebSocket whichever process serves it.

Only requests in flight on (or a keep-alive connection held by) the killed process can fail: the
socket stays open in the launcher, so new connections go to the survivors."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time

import psutil
import pytest
from django.db import connection

from clapilot import webpool
from tests.core.test_launcher_supervision import launcher
from tests.core.test_load import _loadgen
from tests.live import live_daphne
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

CLIENTS = 6


def test_web_process_count_setting():
    assert webpool.web_processes("3") == 3
    assert webpool.web_processes(" ") >= 1  # the number of cores
    for bad in ("zwei", "0", "65"):
        with pytest.raises(ValueError, match="CLAPILOT_WEB_PROCESSES"):
            webpool.web_processes(bad)


class Stream:
    """CLIENTS keep-alive clients asking /healthz without pause; a failed request (reset, closed)
    is counted and the client connects again. `pids_serving` samples which daphne processes hold a
    client connection on the port."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.ok = 0
        self.failed: list[str] = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.threads = [threading.Thread(target=self._client, daemon=True) for _ in range(CLIENTS)]
        for thread in self.threads:
            thread.start()

    def _client(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        n = 0
        while not self.done.is_set():
            n += 1
            try:
                conn.request("GET", "/healthz")
                response = conn.getresponse()
                response.read()
                with self.lock:
                    self.ok += 1
            except (OSError, http.client.HTTPException) as exc:
                with self.lock:
                    self.failed.append(type(exc).__name__)
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
                continue
            if n % 10 == 0:  # a new connection now and then: the kernel spreads them over the processes
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        conn.close()

    def stop(self) -> None:
        self.done.set()
        for thread in self.threads:
            thread.join(30)


def serving_pids(web: list[psutil.Process], port: int) -> set[int]:
    found = set()
    for proc in web:
        with contextlib.suppress(psutil.Error):
            if any(
                c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port for c in proc.net_connections()
            ):
                found.add(proc.pid)
    return found


def web_processes_of(run) -> list[psutil.Process]:
    def find():
        procs = [
            p
            for p in psutil.Process(run.process.pid).children()
            if "daphne" in " ".join(p.cmdline()) and p.status() != psutil.STATUS_ZOMBIE
        ]
        return procs if len(procs) == 2 else None

    found = wait_for(find, timeout=30)
    assert found, run.output()[-3000:]
    return found


def test_two_web_processes_share_the_port_and_a_killed_one_is_restarted_while_the_other_serves(tmp_path):
    with launcher(tmp_path, CLAPILOT_WEB_PROCESSES="2") as (run, pids):
        assert "2 web processes" in run.output()
        web = web_processes_of(run)
        pids.update(p.pid for p in web)
        assert all("--fd" in p.cmdline() for p in web)

        stream = Stream(run.port)
        seen: set[int] = set()
        assert wait_for(lambda: seen.update(serving_pids(web, run.port)) or len(seen) == 2, timeout=30), (
            f"only {seen} of {[p.pid for p in web]} served: {run.output()[-2000:]}"
        )
        before = stream.ok
        killed, survivor = web
        killed.kill()
        killed_at = time.monotonic()
        run.wait_for_line(" exited with signal SIGKILL; restarting it in 1 s (restart 1).")
        run.wait_for_line(" restarted (pid")
        (line,) = [x for x in run.output().splitlines() if "exited with signal SIGKILL" in x]
        assert line.startswith(("clapilot | web1 ", "clapilot | web2 ")), line
        while_down = stream.ok - before
        again = web_processes_of(run)
        pids.update(p.pid for p in again)
        assert survivor.pid in {p.pid for p in again} and killed.pid not in {p.pid for p in again}
        after_restart = stream.ok
        assert wait_for(lambda: stream.ok > after_restart + 50, timeout=30)
        stream.stop()
        print(
            f"\n{CLIENTS} clients on /healthz: {stream.ok} answered, {len(stream.failed)} failed "
            f"({', '.join(stream.failed) or 'none'}); {while_down} answered by the other process in the "
            f"{time.monotonic() - killed_at:.1f} s after the kill"
        )
        # At most one request per client can have been in flight on the killed process.
        assert len(stream.failed) <= CLIENTS, stream.failed
        assert while_down > 0, "nothing answered while the killed process was down"
        assert "stopping everything" not in run.output()
        pids.update(p.pid for p in psutil.Process(run.process.pid).children(recursive=True))


def test_a_live_event_reaches_a_socket_on_another_web_process(tmp_path):
    """Sockets on daphne A and on daphne B (each its own process, embedded channels-postgres
    layer); tasks created through A and through B: every event arrives exactly once at every socket."""
    loadgen = _loadgen()
    people, shared_board = loadgen.prepare(2)
    env = {"REDIS_URL": "", "CLAPILOT_DB_POOL_SIZE": "4"}
    with (
        live_daphne(tmp_path, env, log_name="a.log") as a,
        live_daphne(tmp_path, env, log_name="b.log") as b,
    ):
        on_a = loadgen.Sockets(a.port, people, 4)
        on_b = loadgen.Sockets(b.port, people, 4)
        try:
            on_a.open()
            on_b.open()
            after = loadgen.head_event_id()
            sent = 0
            for i, server in enumerate([a, b] * 3):
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                body = {
                    "tool": "aufgaben_create_task",
                    "arguments": {"title": f"Quer {i}", "board_id": shared_board},
                }
                conn.request(
                    "POST",
                    "/api/v1/tools/execute",
                    body=json.dumps(body),
                    headers={
                        "Authorization": f"Bearer {people[0].api_key}",
                        "Content-Type": "application/json",
                    },
                )
                result = json.loads(conn.getresponse().read())
                conn.close()
                assert result["ok"] is True, result
                sent += 1
            sockets = on_a.sockets + on_b.sockets
            expected, _ = loadgen.expected_deliveries(after, sockets)
            assert len(expected) >= sent
            assert wait_for(lambda: loadgen.delivery_check(expected, sockets)["lost"] == 0, timeout=30), (
                loadgen.delivery_check(expected, sockets),
                a.output(),
                b.output(),
            )
            time.sleep(0.5)  # a duplicate would arrive now
            check = loadgen.delivery_check(expected, sockets)
        finally:
            on_a.close()
            on_b.close()
    connection.close()
    print(f"\nevents committed {len(expected)} (tasks created: {sent}, half through each process): {check}")
    assert check["delivered"] == check["expected"] > 0
    assert check["duplicated"] == 0 and check["misdelivered"] == 0
