"""A second machine is a config change (issue #28): the production shape on this machine, each
part its own process on loopback, no containers. Debian's nginx with the site's locations of
deploy/nginx/clapilot-locations.conf in front of two daphne processes, two Celery workers, one
beat, a redis-server of the test's own (broker, channel layer, cache) and the test PostgreSQL.

- the load suite's mix (pages, REST, tool calls) through nginx: 0 errors, and both daphne
  processes served (nginx's log names the upstream of every request);
- 2,000 WebSockets held through nginx, spread over both daphne: every mutation event committed by a
  request to either process arrives exactly once at every socket that may see it (sent vs received);
- a static file comes from nginx itself;
- jobs (0.2 s each) enqueued before the load, one worker SIGKILLed with its pool mid-way: every
  job still done (the killed worker's unacknowledged ones go to the other after the lease).

nginx runs as this test's own process (`-g "daemon off;"`, a config in tmp), never the system's.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from apps.core.models import Heartbeat
from clapilot.celery import app
from tests.core.test_load import _loadgen
from tests.faults import broker_of, celery_process, started_together, worker
from tests.live import ROOT, child_env, database_url, free_port, live_daphne, own_redis, stop, wait_listening
from tests.waiting import wait_for

# 3.5 min on the shared 2-core machine (load average ~20): slow, still part of make test
pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not shutil.which("nginx"), reason="needs Debian's nginx: apt-get install nginx-light"),
]

JOBS = 60
SOCKETS = 2000  # held open through the load; each one counts the events it receives
LEASE_SECONDS = 3  # a killed worker's unacknowledged jobs go to the other one after this

NGINX_CONF = """
worker_processes 1;
worker_rlimit_nofile 16384;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log warn;
events {{ worker_connections 8192; }}  # a WebSocket is two: client and upstream
http {{
    include /etc/nginx/mime.types;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    log_format upstreams '$request_method $uri $status $upstream_addr';
    access_log {tmp}/nginx-access.log upstreams;
    upstream clapilot_web {{
        server 127.0.0.1:{web1};
        server 127.0.0.1:{web2};
        keepalive 32;
    }}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ""      "";
    }}
    server {{
        listen 127.0.0.1:{port};
        set $clapilot_root {static_root};
        include {locations};
    }}
}}
"""


@contextlib.contextmanager
def nginx(tmp_path: Path, web_ports: list[int], static_root: Path) -> Iterator[int]:
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        NGINX_CONF.format(
            tmp=tmp_path,
            web1=web_ports[0],
            web2=web_ports[1],
            port=port,
            static_root=static_root,
            locations=ROOT / "deploy" / "nginx" / "clapilot-locations.conf",
        )
    )
    log = tmp_path / "nginx.out"
    with log.open("w") as out:
        process = subprocess.Popen(
            ["nginx", "-c", str(conf), "-p", str(tmp_path), "-g", "daemon off;"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_listening(process, port, "nginx", 20, lambda: log.read_text() + _error_log(tmp_path))
        yield port
    finally:
        stop(process)


def _error_log(tmp_path: Path) -> str:
    path = tmp_path / "nginx-error.log"
    return path.read_text(errors="replace")[-3000:] if path.exists() else ""


def _served_by(tmp_path: Path, prefix: str) -> Counter:
    """Requests whose path starts with `prefix` per upstream address, from nginx's log."""
    counts: Counter = Counter()
    for line in (tmp_path / "nginx-access.log").read_text().splitlines():
        _method, uri, _status, upstream = line.split(" ", 3)
        if uri.startswith(prefix):
            counts[upstream] += 1
    return counts


def lost_jobs(redis_url: str, queue: str, *workers) -> str:
    """What the broker still holds, and which jobs never ran (for the failure message)."""
    import redis as redis_py

    client = redis_py.Redis.from_url(redis_url)
    ran = set(Heartbeat.objects.filter(component__startswith="mp-").values_list("component", flat=True))
    missing = sorted(set(f"mp-{i}" for i in range(JOBS)) - ran)
    return (
        f"{len(ran)} of {JOBS} jobs ran; never: {missing}; broker: queue {client.llen(queue)}, "
        f"unacked {client.hlen('unacked')}, unacked_index {client.zcard('unacked_index')}\n"
        + "\n".join(w.output(3000) for w in workers)
    )


def test_nginx_two_daphne_two_workers_beat_and_redis(tmp_path):
    loadgen = _loadgen()
    # nginx's worker processes run as www-data: the static root must be readable to them (pytest's
    # tmp_path is the test user's alone)
    static_root = Path(tempfile.mkdtemp(prefix="clapilot-nginx-static-"))
    (static_root / "static").mkdir()
    (static_root / "static" / "probe.txt").write_text("statisch")
    for path in (static_root, static_root / "static"):
        path.chmod(0o755)
    (static_root / "static" / "probe.txt").chmod(0o644)
    people, shared_board = loadgen.prepare(4)
    queue = app.conf.task_default_queue
    with own_redis(tmp_path) as redis:
        web_env = {
            "REDIS_URL": redis.url,
            "CLAPILOT_API_KEY_RATE": "10000000/min",
            "CLAPILOT_DB_POOL_SIZE": "8",
        }
        job_env = child_env(
            {"DATABASE_URL": database_url(), "DEBUG": "0", "LOG_LEVEL": "INFO"},
            {"REDIS_URL": redis.url, "CLAPILOT_BROKER_VISIBILITY_TIMEOUT": str(LEASE_SECONDS)},
        )
        with (
            started_together(
                # five processes start at once on two busy cores: daphne gets longer than its 60 s
                live_daphne(tmp_path, web_env, 180, log_name="daphne-1.log"),
                live_daphne(tmp_path, web_env, 180, log_name="daphne-2.log"),
                worker(
                    tmp_path, job_env, queue, "--hostname", "one@%h", "--include", "tests.core.fault_jobs"
                ),
                worker(
                    tmp_path, job_env, queue, "--hostname", "two@%h", "--include", "tests.core.fault_jobs"
                ),
                celery_process("beat", tmp_path, job_env, "-l", "INFO", ready="beat: Starting"),
            ) as (web1, web2, worker_one, worker_two, beat),
            nginx(tmp_path, [web1.port, web2.port], static_root) as port,
            broker_of(redis.url),
        ):
            # Jobs in flight while the load runs; worker one is killed with its pool half-way.
            for i in range(JOBS):
                app.send_task(
                    "tests.core.fault_jobs.mark", kwargs={"key": f"mp-{i}", "seconds": 0.2}, queue=queue
                )
            assert wait_for(
                lambda: Heartbeat.objects.filter(component__startswith="mp-").count() >= 5, timeout=60
            ), worker_one.output() + worker_two.output()
            worker_one.kill_group()
            killed_at = time.monotonic()

            # Warm both processes (nginx alternates): a cold page's first render is not the load
            for _ in range(4):
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/", headers={"Cookie": people[0].cookie}
                )
                with urllib.request.urlopen(request, timeout=120) as response:
                    assert response.status == 200
            plan = loadgen.LoadPlan(
                port=port,
                app_name=web1.application_name,
                clients=8,
                sockets=SOCKETS,
                duration=10,  # as tests/core/test_load.py; the load saturates both cores
                drain=20,
                layer="redis (own redis-server), through nginx",
                log=web1.log,
                pool_size=8,
            )
            result = loadgen.run_load(plan, people, shared_board)

            done = wait_for(
                lambda: Heartbeat.objects.filter(component__startswith="mp-").count() == JOBS, timeout=60
            )
            all_done_after = time.monotonic() - killed_at
            assert done, lost_jobs(redis.url, queue, worker_one, worker_two)
            assert beat.process.poll() is None, beat.output()

            with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/probe.txt", timeout=10) as response:
                assert response.read() == b"statisch"
            # nginx logs a WebSocket when it closes: every one of them went through it
            wait_for(lambda: sum(_served_by(tmp_path, "/ws/").values()) >= SOCKETS, timeout=30)
            http_by = _served_by(tmp_path, "/api/")
            ws_by = _served_by(tmp_path, "/ws/")
    connection.close()
    shutil.rmtree(static_root, ignore_errors=True)
    print(
        f"\nthrough nginx: {result['requests']} requests, {result['errors']} errors, served by "
        f"{dict(http_by)}; {SOCKETS} WebSockets held, by {dict(ws_by)}; deliveries expected {result['expected']}, "
        f"delivered {result['delivered']}, lost {result['lost']}, duplicated {result['duplicated']}; "
        f"{JOBS} jobs done {all_done_after:.1f} s after worker one was killed"
    )
    assert result["errors"] == 0, result
    assert result["writes"] > 0 and result["delivered"] == result["expected"] > 0, result
    assert result["lost"] == result["duplicated"] == result["misdelivered"] == result["closed_early"] == 0, (
        result
    )
    upstreams = {f"127.0.0.1:{web1.port}", f"127.0.0.1:{web2.port}"}
    assert set(http_by) == upstreams, http_by
    assert set(ws_by) == upstreams and sum(ws_by.values()) == SOCKETS, ws_by
