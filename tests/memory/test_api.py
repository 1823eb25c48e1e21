"""`GET/POST /api/v1/memory` with creator-bound API keys: scopes, approved-only reads, the same
write path as memory_store, the rate limit with Retry-After."""

import uuid

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.db import DatabaseCache
from rest_framework.test import APIClient

from apps.apikeys import services as apikeys
from apps.core.inputs import build
from apps.core.origin import Origin
from apps.memory import services
from apps.memory.contracts import MemoryStore
from apps.memory.models import Memory

pytestmark = pytest.mark.django_db
URL = "/api/v1/memory"


@pytest.fixture(autouse=True)
def _fresh_rate_limits(settings):
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}
    if isinstance(caches["default"], DatabaseCache):
        cache.clear()


@pytest.fixture
def key_for(as_boss):
    def make(*scopes, principal=None):
        _key, plaintext = apikeys.create_api_key(principal or as_boss, name="Agent", scopes=list(scopes))
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
        return client

    return make


def test_read_key_lists_only_approved_visible_memory(key_for, as_boss, as_anna):
    approved = services.store(as_boss, build(MemoryStore, text="Die Kanzlei hat 12 Parkplätze.")).memory
    services.store(
        as_anna,
        build(MemoryStore, text="Das Büro ist am 24.12. geschlossen."),
        origin=Origin(surface="agent", run_id="1"),
    )  # pending
    services.store(as_anna, build(MemoryStore, text="Anna mag Tee.", scope="personal"))  # Anna's own
    mine = services.store(as_boss, build(MemoryStore, text="Die Chefin fährt Rad.", scope="personal")).memory
    response = key_for("memory:read").get(URL)
    assert response.status_code == 200, response.content
    data = response.json()
    assert {m["id"] for m in data["memories"]} == {approved.pk, mine.pk}
    assert data["total"] == 2 and data["has_more"] is False


def test_asking_for_another_persons_memory_gives_an_empty_page_with_a_notice(key_for, anna, as_anna):
    services.store(as_anna, build(MemoryStore, text="Anna mag Tee.", scope="personal"))
    data = key_for("memory:read").get(URL, {"scope": "personal", "user_id": anna.pk}).json()
    assert data["memories"] == [] and data["notices"]


def test_write_key_stores_through_the_service_path(key_for, as_boss):
    client = key_for("memory:write")
    response = client.post(URL, {"text": "Mandanten-Post geht dienstags raus."}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["outcome"], body["memory"]["review"], body["memory"]["source"]["kind"]) == (
        "created",
        "pending",
        "api_key",
    )
    repeated = client.post(URL, {"text": "mandanten-post geht dienstags raus"}, format="json")
    assert repeated.status_code == 200, repeated.content  # known already: nothing created (issue 25)
    again = repeated.json()
    assert again["outcome"] == "confirmed" and Memory.objects.count() == 1
    assert again["memory"]["id"] == body["memory"]["id"] and set(again) == set(body)


def test_scopes_are_enforced(key_for):
    assert key_for("memory:read").post(URL, {"text": "x"}, format="json").status_code == 403
    assert key_for("memory:write").get(URL).status_code == 403
    assert key_for("usage:read").get(URL).status_code == 403
    assert APIClient().get(URL).status_code in (401, 403)


def test_bad_input(key_for, meier):
    client = key_for("memory:write")
    too_long = client.post(URL, {"text": "x" * 2001}, format="json")
    assert (too_long.status_code, too_long.json()["code"]) == (413, "memory_too_large")
    unknown = client.post(URL, {"text": "ok", "subject_client_id": 999999}, format="json")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "client_not_found")
    junk = client.post(URL, {"text": "ok", "scope": "everyone"}, format="json")
    assert (junk.status_code, junk.json()["code"]) == (400, "invalid_request")
    assert not Memory.objects.exists()


def test_rate_limited_with_retry_after(key_for, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "api_key": "3/minute",
        },
    }
    client = key_for("memory:read")
    codes = [client.get(URL).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert int(client.get(URL)["Retry-After"]) > 0


def test_a_session_member_reads_too(client, anna, as_anna):
    services.store(as_anna, build(MemoryStore, text="Anna mag Tee.", scope="personal"))
    client.force_login(anna)
    assert [m["text"] for m in client.get(URL).json()["memories"]] == ["Anna mag Tee."]


def test_listing_costs_the_same_queries_for_few_and_many_rows(key_for, as_boss, meier):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = key_for("memory:read")
    services.store(
        as_boss,
        build(MemoryStore, text="Meier bekommt die Post per Einschreiben.", subject_client_id=meier.pk),
    )

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(URL).status_code == 200
        return len(captured)

    queries()  # the key's first use records itself once
    few = queries()
    for i in range(10):
        services.store(
            as_boss,
            build(
                MemoryStore,
                text=f"Notiz {i}: Meier schickt {i * 3} Belege.",
                subject_client_id=meier.pk,
                kind="note",
            ),
        )
    assert queries() == few
