"""The per-key rate limit under parallel clients against a real daphne, and its cost per request.

    .venv/bin/python bench/rate_limit.py [--clients 4] [--requests 1000] [--rate 600/min]
                                         [--root DIR] [--calls 2000]

`--clients` threads share one API key and send `--requests` requests in all (keep-alive
connections, `GET /api/v1/tools`) to a daphne serving the project from `--root` (default this
checkout; another checkout, e.g. `git archive` of an older commit, measures that code) on a
throwaway database. Printed: requests, 200s, 429s, seconds. Expected: exactly the rate's budget
answered 200, the rest 429. Then the throttle's own cost per request, in this process: the atomic
database counter against DRF's cache-history throttle it replaced (database cache).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from _setup import ROOT, bench_database, parse, percentile

from tests.live import live_daphne


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rate", default="600/min")
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--calls", type=int, default=2000)
    opts = parse(parser, {"clients": 2, "requests": 20, "calls": 20})
    with bench_database():
        run(opts)


def _hammer(port: int, plaintext: str, clients: int, total: int) -> tuple[Counter, float]:
    import http.client  # after _setup: through email it imports calendar, which bench/ shadows

    statuses: Counter = Counter()
    lock = threading.Lock()
    left = [total]
    start = threading.Barrier(clients + 1)

    def run() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        start.wait()
        while True:
            with lock:
                if left[0] == 0:
                    break
                left[0] -= 1
            conn.request("GET", "/api/v1/tools", headers={"Authorization": f"Bearer {plaintext}"})
            response = conn.getresponse()
            response.read()
            with lock:
                statuses[response.status] += 1
        conn.close()

    threads = [threading.Thread(target=run) for _ in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    t0 = time.perf_counter()
    for thread in threads:
        thread.join()
    return statuses, time.perf_counter() - t0


def _cost(calls: int) -> None:
    from django.core.cache import cache
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    from apps.apikeys.models import ApiKey
    from apps.apikeys.throttling import ApiKeyRateThrottle

    key = ApiKey.objects.first()

    class Request:
        auth = key

    class CacheHistory(SimpleRateThrottle):  # the throttle before: DRF's history in the cache
        scope = "api_key"

        def get_rate(self):
            return api_settings.DEFAULT_THROTTLE_RATES["api_key"]

        def get_cache_key(self, request, view):
            return f"throttle_bench_{key.prefix}"

    api_settings.DEFAULT_THROTTLE_RATES["api_key"] = f"{10 * calls}/min"  # nothing refused
    cache.clear()
    for name, throttle in (
        ("atomic database counter", ApiKeyRateThrottle),
        ("cache history (before)", CacheHistory),
    ):
        for _ in range(100):
            throttle().allow_request(Request, None)
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            assert throttle().allow_request(Request, None)
            times.append((time.perf_counter() - t0) * 1000)
        print(
            f"{name:>26}: median {statistics.median(times):.3f} ms, p95 {percentile(times, 95):.3f} ms "
            f"per request ({calls} calls)"
        )


def run(opts) -> None:
    from apps.accounts.models import User
    from apps.accounts.principal import Principal
    from apps.apikeys import services

    admin = User.objects.create_superuser("bench@kanzlei.example", "x" * 20)
    _key, plaintext = services.create_api_key(
        Principal.for_user(admin), name="bench", scopes=["tools:execute"]
    )
    with (
        tempfile.TemporaryDirectory(prefix="clapilot-rate-") as log_dir,
        live_daphne(
            Path(log_dir), {"LOG_LEVEL": "ERROR", "CLAPILOT_API_KEY_RATE": opts.rate}, root=opts.root
        ) as daphne,
    ):
        statuses, seconds = _hammer(daphne.port, plaintext, opts.clients, opts.requests)
    load = os.getloadavg()[0]
    print(
        f"{opts.clients} clients, one key, rate {opts.rate}, code from {opts.root}: "
        f"{sum(statuses.values())} requests in {seconds:.1f} s → "
        + ", ".join(f"{n} × {code}" for code, n in sorted(statuses.items()))
        + f" (load average {load:.1f})"
    )
    _cost(opts.calls)


if __name__ == "__main__":
    main()
