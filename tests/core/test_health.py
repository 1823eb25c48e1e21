import pytest
from django.urls import reverse

from apps.core.services import record_heartbeat

pytestmark = pytest.mark.django_db(transaction=True)


def test_healthz_is_green_when_every_component_answers(client):
    record_heartbeat("beat")
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    data = response.json()
    assert data["ok"] is True
    assert set(data["checks"]) == {"database", "broker", "channel_layer", "heartbeat"}
    assert "pgvector" in data["checks"]["database"]["detail"]


def test_healthz_is_red_without_a_heartbeat_and_says_which_part(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["heartbeat"]["ok"] is False
    assert checks["database"]["ok"] is True


def test_healthz_reports_a_stale_heartbeat(client, settings):
    from datetime import timedelta

    from django.utils import timezone

    from apps.core.models import Heartbeat

    Heartbeat.objects.create(component="beat", beat_at=timezone.now() - timedelta(hours=1))
    assert client.get(reverse("healthz")).json()["checks"]["heartbeat"]["ok"] is False


def _probe(url: str) -> tuple[int, dict]:
    import json
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _probe_storm(url: str, probes: int) -> list[tuple[int, dict]]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=probes) as pool:
        return list(pool.map(lambda _: _probe(url), range(probes)))


def test_sixty_concurrent_probes_of_a_healthy_instance_are_all_green(tmp_path):
    """Before: 58 of 60 answered 503 (channel_layer: TimeoutError after 3 s; the layer dropped
    the probe's message sent before its first receive) while the WebSocket worked."""
    from django.db import connection

    from tests.live import backends, live_daphne

    record_heartbeat("beat")
    with live_daphne(tmp_path, {"CLAPILOT_DB_POOL_SIZE": "8"}) as server:
        first = _probe_storm(server.url, 60)
        second = _probe_storm(server.url, 60)  # after the cached result expired or not: the same
        sessions = backends(server.application_name)
    connection.close()
    statuses = [status for status, _ in first + second]
    assert statuses == [200] * 120, [body for status, body in first + second if status != 200][:2]
    assert all(body["checks"]["channel_layer"]["ok"] for _, body in first + second)
    assert sessions <= 8 + 10


def test_redis_stopped_is_a_degraded_report_and_recovers(tmp_path):
    """REDIS_URL set (broker, channel layer and cache on Redis): Redis stopped → 503 naming the
    Redis-backed components while the database stays green; Redis back → 200 again."""
    from tests.live import live_daphne, own_redis
    from tests.waiting import wait_for

    record_heartbeat("beat")
    with own_redis(tmp_path) as redis, live_daphne(tmp_path, {"REDIS_URL": redis.url}) as server:
        status, body = _probe(server.url)
        assert status == 200, body
        assert body["checks"]["channel_layer"]["detail"] == "RedisChannelLayer"
        assert body["checks"]["broker"]["detail"] == "redis"

        redis.stop()
        down = wait_for(lambda: (r := _probe(server.url))[0] == 503 and r, timeout=15, interval=0.5)
        assert down, "still green with Redis stopped"
        status, body = down
        assert body["ok"] is False and body["status"] == "degraded"
        assert set(body["failing"]) == {"broker", "channel_layer"}
        assert body["checks"]["database"]["ok"] is True and body["checks"]["heartbeat"]["ok"] is True
        assert all("Error" in body["checks"][name]["detail"] for name in body["failing"])  # a type, no text

        redis.start()
        up = wait_for(lambda: (r := _probe(server.url))[0] == 200 and r, timeout=20, interval=0.5)
        assert up, f"not green again after Redis came back: {_probe(server.url)}"
        assert up[1]["failing"] == [] and up[1]["status"] == "ok"
