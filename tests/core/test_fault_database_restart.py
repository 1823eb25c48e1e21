"""The database restarted while the product runs: web (daphne), worker and beat recover on their
own within 10 s, and no request fails once they have.

The test owns everything it restarts: an embedded PostgreSQL in a temporary var dir (the product's
own start path, clapilot.embedded_db), filled from a backup of this test's database, and the web,
worker and beat processes running on it in embedded mode. Clients loop over a page, a REST call
and a tool call while the server is stopped (fast shutdown: every session is cut) and started
again.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from django.test import Client
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from apps.accounts.principal import Principal
from apps.apikeys import services as apikeys
from apps.core.services import ensure_periodic_tasks
from apps.ops import backup
from apps.ops.jobs import heartbeat
from apps.tasks.models import Board, Task
from clapilot import broker
from tests.factories import UserFactory
from tests.faults import broker_of, celery_process, process_env, started_together
from tests.live import ROOT, live_daphne
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

RECOVERY_LIMIT_SECONDS = 10
DOWN_SECONDS = 3


def _embedded(var_dir: Path, code: str) -> str:
    env = process_env("", CLAPILOT_VAR_DIR=str(var_dir), DATABASE_URL="")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'clapilot.settings'); from clapilot import embedded_db; {code}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


@dataclass
class OwnPostgres:
    var_dir: Path
    host: str = ""

    def start(self) -> None:
        self.host = _embedded(self.var_dir, "print(embedded_db.ensure_running().host)")

    def stop(self) -> None:
        """pg_ctl stop (fast shutdown: open sessions are cut), as pgserver's own system user."""
        _embedded(self.var_dir, "embedded_db.is_running() and embedded_db._server().stop()")

    def connect(self):
        return psycopg.connect(host=self.host, user="postgres", dbname="clapilot", autocommit=True)


@dataclass
class Probe:
    """One client looping over one route; records (monotonic time, ok, detail) per request."""

    name: str
    port: int
    method: str
    path: str
    headers: dict
    body: bytes | None = None
    check: object = None
    results: list = field(default_factory=list)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            started = time.monotonic()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
                conn.request(self.method, self.path, body=self.body, headers=self.headers)
                response = conn.getresponse()
                data = response.read()
                conn.close()
                ok = response.status == 200 and (self.check is None or self.check(data))
                detail = f"{response.status}"
            except Exception as exc:  # the server itself must stay up; recorded, not raised
                ok, detail = False, type(exc).__name__
            self.results.append((started, ok, detail))
            time.sleep(0.05)

    def first_success_after(self, moment: float) -> float | None:
        return next((t for t, ok, _ in self.results if t >= moment and ok), None)

    def failures_after(self, moment: float) -> list:
        return [(round(t - moment, 2), d) for t, ok, d in self.results if t >= moment and not ok]


def _tool_ok(data: bytes) -> bool:
    return json.loads(data).get("ok") is True


def test_web_worker_and_beat_recover_from_a_database_restart(settings, tmp_path, statuses):
    # --- data in this test's database, copied into the database this test owns ------------------
    anna = UserFactory(email="anna@kanzlei.example")
    admin = UserFactory(email="admin@kanzlei.example", role="admin", is_superuser=True)
    board = Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    Task.objects.create(title="USt-Voranmeldung", board=board, status=statuses["offen"], erstellt_von=anna)
    _key, api_key = apikeys.create_api_key(Principal.for_user(admin), name="faults", scopes=["tools:execute"])
    web = Client()
    web.force_login(anna)
    session = web.cookies[settings.SESSION_COOKIE_NAME].value
    ensure_periodic_tasks()
    every_2s, _ = IntervalSchedule.objects.get_or_create(every=2, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.filter(task=heartbeat.name).update(interval=every_2s)
    archive = backup.create_backup(tmp_path / "seed.tar").path

    var_dir = tmp_path / "var"
    pg = OwnPostgres(var_dir)
    pg.start()
    env = process_env(
        "",
        DATABASE_URL="",
        CLAPILOT_VAR_DIR=str(var_dir),
        SECRET_KEY=settings.SECRET_KEY,
        CLAPILOT_ENCRYPTION_KEY=",".join(settings.CLAPILOT_ENCRYPTION_KEYS),
        CLAPILOT_API_KEY_RATE="100000/min",
        CLAPILOT_HEARTBEAT_SECONDS="2",
        LOG_LEVEL="WARNING",
    )
    try:
        restored = subprocess.run(
            [sys.executable, "manage.py", "restore", str(archive)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert restored.returncode == 0, restored.stderr
        _run_and_restart(pg, env, tmp_path, session, api_key, board.pk)
    finally:
        pg.stop()


def _run_and_restart(
    pg: OwnPostgres, env: dict, tmp_path: Path, session: str, api_key: str, board_id: int
) -> None:
    cookie = {"Cookie": f"sessionid={session}"}
    stop = threading.Event()
    worker_env = {**env, "LOG_LEVEL": "INFO"}
    try:
        with started_together(
            # embedded mode on the test's own server (env has no DATABASE_URL), not the test database
            live_daphne(tmp_path, {**env, "DATABASE_URL": "", "REDIS_URL": ""}, log_name="daphne.log"),
            celery_process(
                "worker", tmp_path, worker_env, "--concurrency", "1", "-l", "INFO", ready=" ready."
            ),
            celery_process("beat", tmp_path, worker_env, "-l", "INFO", ready="beat: Starting"),
        ) as (web, _worker, _beat):
            port = web.port
            probes = [
                Probe("page", port, "GET", "/aufgaben/", cookie, check=lambda d: b"USt-Voranmeldung" in d),
                Probe("rest", port, "GET", "/api/v1/tasks/boards", cookie, check=lambda d: b"Steuern" in d),
                Probe(
                    "tool",
                    port,
                    "POST",
                    "/api/v1/tools/execute",
                    {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
                    body=json.dumps({"tool": "aufgaben_list_tasks", "arguments": {}}).encode(),
                    check=_tool_ok,
                ),
            ]
            threads = [threading.Thread(target=p.run, args=(stop,), daemon=True) for p in probes]
            for thread in threads:
                thread.start()
            assert wait_for(lambda: all(p.first_success_after(0) for p in probes), timeout=30), _summary(
                probes, 0
            )
            beats_before = wait_for(lambda: _beats(pg), timeout=30)
            assert beats_before, "beat and worker wrote no heartbeat before the restart"
            live = LiveEvents(port, session, board_id)
            assert live.created_and_seen(api_key, "vor dem Neustart", timeout=10), (
                f"no live event before the restart: {live.received}"
            )

            time.sleep(2)
            stopped_at = time.monotonic()
            pg.stop()
            time.sleep(DOWN_SECONDS)
            pg.start()
            up_at = time.monotonic()

            recovered = wait_for(
                lambda: all(p.first_success_after(up_at) for p in probes), timeout=RECOVERY_LIMIT_SECONDS + 20
            )
            assert recovered, _summary(probes, up_at)
            recovery = {p.name: round(p.first_success_after(up_at) - up_at, 2) for p in probes}
            all_ok_at = max(p.first_success_after(up_at) for p in probes)
            # Live events: a task created now reaches the page's socket (the one open since before
            # the restart, or, if the server closed it, a new one resuming from the last event,
            # as static/js/mutations.js does) within the recovery limit.
            event_started = time.monotonic()
            seen = live.created_and_seen(api_key, "nach dem Neustart", timeout=RECOVERY_LIMIT_SECONDS)
            event_seconds = round(time.monotonic() - event_started, 2)
            assert seen, f"no live event after the restart ({live.reconnects} reconnects)"
            # Keep loading for 10 s more: nothing may fail once recovered. Meanwhile a job sent
            # after the restart runs, and beat keeps scheduling.
            keep_loading_until = time.monotonic() + 10
            with broker_of(broker.url_for({"USER": "postgres", "NAME": "clapilot", "HOST": pg.host})):
                heartbeat.apply_async(kwargs={"component": "after-restart"}, queue="celery")
            assert wait_for(lambda: _beats(pg, "after-restart"), timeout=30), (
                "a job sent after the restart never ran"
            )
            beats_after = wait_for(lambda: (_beats(pg) or 0) > beats_before + 1 and _beats(pg), timeout=30)
            assert beats_after, "beat's heartbeat stopped after the restart"
            time.sleep(max(0.0, keep_loading_until - time.monotonic()))
            stop.set()
            for thread in threads:
                thread.join(20)
    finally:
        stop.set()
    failures_after = {p.name: p.failures_after(all_ok_at) for p in probes}
    counts = {p.name: (len(p.results), sum(1 for _, ok, _ in p.results if not ok)) for p in probes}
    print(
        f"\ndatabase down {up_at - stopped_at:.1f} s; first success after it was up: {recovery} s; "
        f"requests (total, failed) per route: {counts}; heartbeats {beats_before} -> {beats_after}; "
        f"live event after recovery in {event_seconds} s ({live.reconnects} socket reconnects)"
    )
    assert max(recovery.values()) <= RECOVERY_LIMIT_SECONDS, recovery
    assert failures_after == {p.name: [] for p in probes}, failures_after
    assert all(ok for p in probes for t, ok, _ in p.results if t < stopped_at), _summary(probes, 0)


class LiveEvents:
    """The signed-in page's WebSocket (/ws/mutations/); reconnects with ?after= like the page."""

    def __init__(self, port: int, session: str, board_id: int) -> None:
        self.port, self.session, self.board_id = port, session, board_id
        self.received: list[str] = []
        self.last_id: int | None = None
        self.reconnects = 0
        self.socket = self._connect()

    def _connect(self):
        from websockets.sync.client import connect

        query = f"?after={self.last_id}" if self.last_id is not None else ""
        opening = connect(
            f"ws://127.0.0.1:{self.port}/ws/mutations/{query}",
            additional_headers={
                "Cookie": f"sessionid={self.session}",
                "Origin": f"http://127.0.0.1:{self.port}",
            },
            open_timeout=10,
        )
        return opening.__enter__()  # websockets 17: the opened connection

    def created_and_seen(self, api_key: str, title: str, timeout: float) -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
        body = json.dumps(
            {"tool": "aufgaben_create_task", "arguments": {"title": title, "board_id": self.board_id}}
        )
        conn.request(
            "POST",
            "/api/v1/tools/execute",
            body=body,
            headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
        )
        answer = json.loads(conn.getresponse().read())
        conn.close()
        assert answer.get("ok") is True, answer
        task_id = str(answer["output"]["task"]["id"])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                text = self.socket.recv(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                return False
            except Exception as exc:  # closed by the server: resume like the page does
                self.received.append(repr(exc)[:200])
                self.reconnects += 1
                time.sleep(0.5)
                try:
                    self.socket = self._connect()
                except Exception:
                    continue
                continue
            self.received.append(text[:300])
            message = json.loads(text)
            if message.get("type") == "mutation":
                self.last_id = message["event"]["id"]
                if task_id in json.dumps(message["event"]):
                    return True
        return False

    def close(self) -> None:
        self.socket.close()


def _beats(pg: OwnPostgres, component: str = "beat") -> int | None:
    try:
        with pg.connect() as conn:
            row = conn.execute(
                "SELECT count FROM core_heartbeat WHERE component = %s", [component]
            ).fetchone()
    except psycopg.OperationalError:
        return None
    return row[0] if row else None


def _summary(probes: list[Probe], since: float) -> str:
    return "; ".join(f"{p.name}: {[(round(t - since, 2), d) for t, ok, d in p.results[-8:]]}" for p in probes)
