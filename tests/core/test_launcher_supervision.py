"""`make run` (clapilot/launcher.py) keeps the product up (issue #25): a killed worker, beat or
web process is started again with a log line while the others go on, a wedged worker (alive but
no longer running jobs) is replaced, and SIGTERM still stops everything.

Before: "worker exited with code -9; stopping everything" took web, beat and the database down.
The launcher runs here on the test database (DATABASE_URL), so it starts and stops no embedded
server of its own; its var directory is the test's."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from django.db import connection

from apps.core.models import Heartbeat
from clapilot.celery import heartbeat_component
from tests.live import ROOT, database_url, free_port
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

WORKER = heartbeat_component(f"worker@{socket.gethostname()}")


class Launcher:
    def __init__(self, tmp_path: Path, **env: str):
        self.port = free_port()
        self.log = tmp_path / "launcher.log"
        base = {
            **os.environ,
            "DATABASE_URL": database_url(connection.settings_dict),
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "CLAPILOT_VAR_DIR": str(tmp_path / "var"),
            "CLAPILOT_DEMO_DATA": "0",
            "CELERY_WORKER_CONCURRENCY": "1",
            "DEBUG": "0",
            "CLAPILOT_WORKER_HEARTBEAT_SECONDS": "1",
            "CLAPILOT_WEB_PROCESSES": "1",  # one "web"; several: test_launcher_web_processes.py
            **env,
        }
        for name in ("CLAPILOT_TEST_DATABASE", "REDIS_URL"):
            base.pop(name, None)
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "clapilot.launcher"],
                cwd=ROOT,
                env=base,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for_line(self, text: str, timeout: float = 60, count: int = 1) -> None:
        def seen() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"the launcher exited: {self.output()[-4000:]}")
            return self.output().count(text) >= count

        assert wait_for(seen, timeout=timeout, interval=0.1), f"no {text!r}: {self.output()[-4000:]}"

    def child(self, kind: str) -> psutil.Process:
        """The launcher's current web, worker or beat process."""
        marks = {"web": "daphne", "worker": " worker ", "beat": " beat "}

        def find():
            for proc in psutil.Process(self.process.pid).children():
                with contextlib.suppress(psutil.Error):
                    if marks[kind] in " ".join(proc.cmdline()) + " ":
                        return proc
            return None

        found = wait_for(find, timeout=30)
        assert found, f"no {kind} process: {self.output()[-3000:]}"
        return found

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
                raise
        return self.process.returncode


@contextlib.contextmanager
def launcher(tmp_path: Path, **env: str):
    run = Launcher(tmp_path, **env)
    pids: set[int] = set()
    try:
        run.wait_for_line("Ready in", timeout=90)
        yield run, pids
    finally:
        with contextlib.suppress(psutil.Error):
            pids.update(p.pid for p in psutil.Process(run.process.pid).children(recursive=True))
        try:
            code = run.stop()
        finally:
            for pid in pids:  # nothing may outlive the launcher; kill what did (and fail below)
                with contextlib.suppress(psutil.Error):
                    proc = psutil.Process(pid)
                    if proc.status() != psutil.STATUS_ZOMBIE:
                        proc.kill()
                        raise AssertionError(f"{proc.cmdline()} outlived the launcher")
        assert code == 0, run.output()[-3000:]
        assert "Stopped." in run.output()
        connection.close()


def _beat_after(moment: float) -> bool:
    beat = Heartbeat.objects.filter(component=WORKER).values_list("beat_at", flat=True).first()
    return beat is not None and beat.timestamp() > moment


class HealthProbe:
    """/healthz every 0.2 s in a thread: counts answers (any HTTP status) and refused tries."""

    def __init__(self, port: int):
        self.url = f"http://127.0.0.1:{port}/healthz"
        self.answers = 0
        self.refused: list[str] = []
        self.slow = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            try:
                with urllib.request.urlopen(self.url, timeout=10):
                    pass
                self.answers += 1
            except urllib.error.HTTPError:
                self.answers += 1  # 503 while a component recovers is an answer
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, ConnectionError):  # refused or reset: web is down
                    self.refused.append(type(exc.reason).__name__)
                else:
                    self.slow += 1  # a timeout on a machine this busy: web is up, but slow
            except TimeoutError:
                self.slow += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def test_killed_worker_beat_and_web_are_restarted_while_the_rest_keeps_running(tmp_path):
    with launcher(tmp_path) as (run, pids):
        worker = run.child("worker")
        pids.add(worker.pid)
        assert wait_for(lambda: _beat_after(0), timeout=60), run.output()[-3000:]

        probe = HealthProbe(run.port)
        killed_at = time.time()
        worker.kill()  # kill -9 of the worker's main process
        run.wait_for_line("worker exited with signal SIGKILL; restarting it in 1 s (restart 1).")
        run.wait_for_line("worker restarted (pid")
        new_worker = run.child("worker")
        assert new_worker.pid != worker.pid
        pids.add(new_worker.pid)
        # The new worker runs: its pool takes jobs again (its heartbeat is written after start).
        assert wait_for(lambda: _beat_after(killed_at), timeout=60), run.output()[-3000:]
        recovered = time.time() - killed_at
        probe.stop()
        assert probe.refused == [], f"web stopped answering: {probe.refused}"
        assert probe.answers >= 5 and probe.answers > probe.slow, (probe.answers, probe.slow)
        print(
            f"\nworker kill -9: running jobs again after {recovered:.1f} s; /healthz answered "
            f"{probe.answers} probes meanwhile, {probe.slow} slow, none refused"
        )

        beat = run.child("beat")
        beat.kill()
        run.wait_for_line("beat exited with signal SIGKILL; restarting it in 1 s (restart 1).")
        run.wait_for_line("beat restarted (pid")
        assert run.child("beat").pid != beat.pid

        web = run.child("web")
        web.kill()
        run.wait_for_line("web exited with signal SIGKILL; restarting it in 1 s (restart 1).")
        run.wait_for_line("web restarted (pid")

        def answers() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{run.port}/healthz", timeout=5):
                    return True
            except urllib.error.HTTPError:
                return True
            except OSError:
                return False

        assert wait_for(answers, timeout=60, interval=0.2), run.output()[-3000:]
        assert "stopping everything" not in run.output()
        pids.update(p.pid for p in psutil.Process(run.process.pid).children(recursive=True))


def test_a_frozen_worker_is_replaced(tmp_path):
    """SIGSTOP of the worker's main process: alive, but its queue no longer drains and its
    heartbeat goes stale; the launcher kills it and starts a new one."""
    with launcher(tmp_path, CLAPILOT_WORKER_WEDGE_SECONDS="6") as (run, pids):
        worker = run.child("worker")
        pids.update([worker.pid, *(c.pid for c in worker.children())])
        assert wait_for(lambda: _beat_after(0), timeout=60), run.output()[-3000:]

        worker.send_signal(signal.SIGSTOP)
        stopped_at = time.time()
        run.wait_for_line("worker is wedged: alive (pid", timeout=30)
        run.wait_for_line("worker restarted (pid", timeout=30)
        replaced = run.child("worker")
        assert replaced.pid != worker.pid
        assert not psutil.pid_exists(worker.pid) or worker.status() == psutil.STATUS_ZOMBIE
        pids.add(replaced.pid)
        assert wait_for(lambda: _beat_after(stopped_at), timeout=60), run.output()[-3000:]
        pids.update(p.pid for p in psutil.Process(run.process.pid).children(recursive=True))


def test_a_worker_whose_pool_stopped_taking_jobs_is_replaced_and_the_job_runs(tmp_path):
    """The pool's only process frozen (SIGSTOP): the worker's main process still receives, but the
    job waits for a pool process. The worker stops its heartbeat after
    CLAPILOT_WORKER_STUCK_SECONDS, the launcher replaces it, and the job runs on the new one."""
    from clapilot import broker
    from clapilot.celery import app
    from tests.faults import broker_of

    with launcher(
        tmp_path,
        CLAPILOT_WORKER_STUCK_SECONDS="2",
        CLAPILOT_WORKER_WEDGE_SECONDS="6",
        CLAPILOT_BROKER_VISIBILITY_TIMEOUT="3",
        CLAPILOT_HEARTBEAT_SECONDS="3600",  # beat sends its jobs once, at its start
    ) as (run, pids):
        worker = run.child("worker")
        assert wait_for(lambda: worker.children(), timeout=30)
        (pool_process,) = worker.children()
        pids.update([worker.pid, pool_process.pid])
        assert wait_for(lambda: _beat_after(0), timeout=60), run.output()[-3000:]

        # Frozen while it waits for a job (as the process that died holding the job pipe's lock
        # did), not in the middle of one: a job that runs long is no wedge.
        def idle() -> bool:
            jobs = [line for line in run.output().splitlines() if line.startswith("  worker |")]
            received = sum(" received" in line for line in jobs)
            finished = sum(" succeeded in " in line or "] raised " in line for line in jobs)
            return received > 0 and received == finished

        assert wait_for(idle, timeout=60, interval=0.5), run.output()[-3000:]
        time.sleep(1)
        assert idle()
        pool_process.send_signal(signal.SIGSTOP)
        with broker_of(broker.url_for(connection.settings_dict)):
            app.send_task("apps.core.jobs.heartbeat", kwargs={"component": "probe"}, queue="celery")
        run.wait_for_line("the pool is wedged, no heartbeat until it moves", timeout=30)
        run.wait_for_line("worker is wedged: alive (pid", timeout=30)
        run.wait_for_line("worker restarted (pid", timeout=30)
        assert wait_for(lambda: Heartbeat.objects.filter(component="probe").exists(), timeout=60), (
            run.output()[-3000:]
        )
        pids.update(p.pid for p in psutil.Process(run.process.pid).children(recursive=True))
