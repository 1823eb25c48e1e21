"""Memory over MCP, under a live daphne with the SDK's Streamable HTTP client: memory keys see the
memory tools and nothing else; what they store goes through the same service (review, dedup);
only approved memory the key's creator may see comes back."""

from __future__ import annotations

import asyncio

import pytest

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.memory import checking
from apps.memory import services as memory
from apps.memory.contracts import MemoryReview
from apps.memory.models import TEXT_MAX, Memory
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

READ_TOOLS = {"memory_search", "memory_get", "memory_grep", "memory_describe", "memory_expand"}
FACT = "Mandant Brandt & Söhne GmbH schließt das Geschäftsjahr am 30. Juni ab."


def session(connect, key: str, *steps: tuple[str, dict], mode: str = "legacy") -> list:
    """Run tools in one client connection; [tool names listed, result of each step …]."""

    async def go():
        async with connect(key, mode=mode) as (client, _):
            out: list = [{t.name for t in (await client.list_tools()).tools}]
            for name, arguments in steps:
                out.append(await client.call_tool(name, arguments))
            return out

    return asyncio.run(go())


def ok(result) -> dict:
    assert not result.is_error, result.structured_content
    return result.structured_content["output"]


def test_tools_per_memory_scope(connect, make_key):
    assert session(connect, make_key("memory:read"))[0] == READ_TOOLS
    assert session(connect, make_key("memory:write"))[0] == {"memory_store"}
    assert session(connect, make_key("memory:read", "memory:write"))[0] == READ_TOOLS | {"memory_store"}
    assert READ_TOOLS | {"memory_store", "session_status"} <= session(connect, make_key("tools:execute"))[0]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_stored_shared_memory_is_found_only_once_a_person_approved_it(connect, make_key, office_admin, mode):
    key = make_key("memory:read", "memory:write")
    _, stored, before = session(
        connect,
        key,
        ("memory_store", {"text": FACT, "kind": "fact", "scope": "shared"}),
        ("memory_search", {"query": "Geschäftsjahr Brandt"}),
        mode=mode,
    )
    record = ok(stored)["memory"]
    assert ok(stored)["outcome"] == "created"
    assert (record["review"], record["scope"], record["checking"]) == ("pending", "shared", True)
    assert record["source"] == {"kind": "api_key", "ref": key.split(".")[0]}  # the prefix, not the secret
    assert ok(before)["memories"] == []  # pending memory reaches no model

    assert checking.run(record["id"]) == "created"  # the worker's check (no worker runs here)
    memory.review(Principal.for_user(office_admin), record["id"], build(MemoryReview, decision="approve"))
    _, after, got = session(
        connect,
        key,
        ("memory_search", {"query": "Wann endet das Geschäftsjahr von Brandt?"}),
        ("memory_get", {"id": record["id"]}),
        mode=mode,
    )
    assert [m["id"] for m in ok(after)["memories"]][:1] == [record["id"]]
    assert ok(got)["memory"]["text"] == FACT


def test_the_same_fact_stored_again_confirms_instead_of_duplicating(connect, make_key):
    key = make_key("memory:write")
    _, first, second = session(
        connect,
        key,
        ("memory_store", {"text": FACT, "scope": "personal"}),
        ("memory_store", {"text": FACT, "scope": "personal"}),
    )
    assert (ok(first)["outcome"], ok(second)["outcome"]) == ("created", "confirmed")
    assert ok(second)["memory"]["id"] == ok(first)["memory"]["id"]
    assert Memory.objects.count() == 1


def test_personal_memory_of_one_creator_never_reaches_another_creators_key(connect, make_key):
    anna = UserFactory(role="admin", is_superuser=True)
    ben = UserFactory(role="admin", is_superuser=True)
    annas, bens = make_key("memory:read", "memory:write", user=anna), make_key("memory:read", user=ben)
    _, stored, unchecked = session(
        connect,
        annas,
        (
            "memory_store",
            {"text": "Ich bevorzuge Termine am Vormittag.", "kind": "preference", "scope": "personal"},
        ),
        ("memory_search", {"query": "Termine Vormittag"}),
    )
    mine = ok(stored)["memory"]
    assert (mine["review"], ok(unchecked)["memories"]) == ("approved", [])  # not before its check
    checking.run(mine["id"])  # the worker's check (no worker runs here)
    _, own = session(connect, annas, ("memory_search", {"query": "Termine Vormittag"}))
    assert [m["id"] for m in ok(own)["memories"]] == [mine["id"]]

    _, search, get = session(
        connect,
        bens,
        ("memory_search", {"query": "Termine Vormittag"}),
        ("memory_get", {"id": mine["id"]}),
    )
    assert ok(search)["memories"] == []
    assert get.is_error and get.structured_content["code"] == "memory_not_found"
    assert "Vormittag" not in get.content[0].text


def test_a_read_key_cannot_store_and_bad_input_keeps_nothing(connect, make_key):
    _, refused = session(connect, make_key("memory:read"), ("memory_store", {"text": FACT}))
    assert refused.is_error and refused.structured_content["code"] == "forbidden"

    _, too_large, unknown_client = session(
        connect,
        make_key("memory:write"),
        ("memory_store", {"text": "x" * (TEXT_MAX + 1)}),
        ("memory_store", {"text": FACT, "subject_client_id": 987654}),
    )
    assert too_large.is_error and too_large.structured_content["code"] == "memory_too_large"
    assert unknown_client.is_error and unknown_client.structured_content["code"] == "client_not_found"
    assert Memory.objects.count() == 0
