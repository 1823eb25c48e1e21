"""The per-key rate limit holds under concurrency: parallel clients with one key share one budget.

The requests run in threads of this process, each with its own database connection and its own
committed transactions (like daphne's worker threads), so a read-modify-write counter loses
updates here exactly as it did on a running instance."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connections
from rest_framework.test import APIClient

pytestmark = [pytest.mark.urls("tests.apikeys.urls")]


def _rate(settings, rate: str) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "api_key": rate},
    }


def _hammer(plaintext: str, clients: int, each: int) -> Counter:
    """`clients` threads sending `each` requests with one key, all started at once."""
    statuses: Counter = Counter()
    lock = threading.Lock()
    start = threading.Barrier(clients)

    def run() -> None:
        client = APIClient()
        try:
            start.wait()
            for _ in range(each):
                code = client.get("/t/tools", HTTP_AUTHORIZATION=f"Bearer {plaintext}").status_code
                with lock:
                    statuses[code] += 1
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return statuses


def test_parallel_clients_with_one_key_share_one_budget(transactional_db, make_key, settings):
    _rate(settings, "40/min")
    _key, plaintext = make_key()
    statuses = _hammer(plaintext, clients=4, each=25)
    assert sum(statuses.values()) == 100
    assert statuses == {200: 40, 429: 60}


def test_single_client_is_refused_at_the_first_request_over_the_rate(db, api_client, make_key, settings):
    _rate(settings, "5/min")
    _key, plaintext = make_key()
    codes = [api_client.get("/t/tools", HTTP_AUTHORIZATION=f"Bearer {plaintext}") for _ in range(7)]
    assert [r.status_code for r in codes] == [200] * 5 + [429, 429]
    refused = codes[5]
    assert refused.json()["code"] == "throttled"
    assert 0 < int(refused["Retry-After"]) <= 60


def test_the_window_starts_again_after_the_period(db, api_client, make_key, settings, monkeypatch):
    _rate(settings, "2/min")
    _key, plaintext = make_key()
    from apps.apikeys import throttling

    now = [1_000_000.0]
    monkeypatch.setattr(throttling, "_now", lambda: now[0])
    get = lambda: api_client.get("/t/tools", HTTP_AUTHORIZATION=f"Bearer {plaintext}")  # noqa: E731
    assert [get().status_code for _ in range(3)] == [200, 200, 429]
    now[0] += 30
    refused = get()
    assert refused.status_code == 429 and int(refused["Retry-After"]) == 30
    now[0] += 30
    assert [get().status_code for _ in range(3)] == [200, 200, 429]


def test_the_code_is_in_the_error_catalog():
    from apps.core import errors

    rows = {row["code"]: row for row in errors.catalog()}
    assert rows["throttled"]["app"] == "apikeys"
