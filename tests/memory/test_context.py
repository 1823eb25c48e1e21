"""`context_search` / `context_get` with the memory: and history: sources: approved-only, fused with
the others, history visible to its owner only."""

import pytest

from apps.agent.models import ChatSession, Message
from apps.core.inputs import build
from apps.core.origin import Origin
from apps.knowledge import context
from apps.memory import services
from apps.memory.contracts import MemoryStore
from apps.memory.models import Memory

pytestmark = pytest.mark.django_db


def test_context_search_returns_approved_memory_and_context_get_reads_it(as_anna, as_boss):
    approved = services.store(
        as_boss, build(MemoryStore, text="Die Kanzlei hat 12 Parkplätze im Hof.")
    ).memory
    services.store(
        as_anna,
        build(MemoryStore, text="Im Hof gibt es 20 Parkplätze für Gäste."),
        origin=Origin(surface="agent", run_id="1"),
    )  # pending
    found = context.context_search(as_anna, "Parkplätze im Hof", sources=["memory"])
    assert [r["id"] for r in found["results"]] == [f"memory:{approved.pk}"]
    got = context.context_get(as_anna, f"memory:{approved.pk}")
    assert (got["id"], got["source"], got["text"]) == (f"memory:{approved.pk}", "memory", approved.text)
    assert got["history"][0]["action"] == "created"


def test_memory_and_history_are_fused_with_per_source_reservation(as_anna, anna):
    for i in range(12):
        services.store(
            as_anna,
            build(MemoryStore, text=f"Parkplatz {i} gehört zur Kanzlei.", scope="personal", kind="note"),
        )
    session = ChatSession.objects.create(user=anna, title="Parken")
    asked = Message.objects.create(
        session=session, role="user", content="Wo kann ich parken? Gibt es einen Parkplatz?"
    )
    Message.objects.create(session=session, role="assistant", content="Im Hof, Parkplatz 3.")
    found = context.context_search(as_anna, "Parkplatz", sources=["memory", "history"], limit=5)
    sources = [r["source"] for r in found["results"]]
    assert "history" in sources and sources.count("memory") >= 2
    turn = context.context_get(as_anna, f"history:{asked.pk}")
    assert "Im Hof, Parkplatz 3." in turn["text"] and turn["session"]["title"] == "Parken"


def test_history_is_visible_to_its_owner_only(as_anna, as_ben, anna, as_boss, as_robot):
    session = ChatSession.objects.create(user=anna, title="Privat")
    message = Message.objects.create(session=session, role="user", content="Meine Kontonummer ist geheim.")
    assert context.context_search(as_anna, "Kontonummer", sources=["history"])["results"]
    for other in (as_ben, as_boss, as_robot):
        assert context.context_search(other, "Kontonummer", sources=["history"])["results"] == []
        with pytest.raises(Exception) as refused:
            context.context_get(other, f"history:{message.pk}")
        assert getattr(refused.value, "code", "") == "knowledge_not_found"


def test_history_summaries_are_found_tool_messages_are_not(as_anna, anna):
    session = ChatSession.objects.create(user=anna, title="Lang")
    Message.objects.create(
        session=session,
        role="system",
        content="Zusammenfassung: Umsatzsteuer Meier geklärt.",
        metadata={"summary": True},
    )
    Message.objects.create(session=session, role="system", content="Systemregel Umsatzsteuer.")
    Message.objects.create(session=session, role="tool", content="Umsatzsteuer Tool-Ergebnis")
    found = context.context_search(as_anna, "Umsatzsteuer", sources=["history"])["results"]
    assert [r["snippet"] for r in found] == ["Zusammenfassung: Umsatzsteuer Meier geklärt."]


def test_personal_scope_for_a_service_principal_is_a_notice(as_robot):
    found = context.context_search(as_robot, "Parkplatz", scope="personal", sources=["memory", "history"])
    assert found["results"] == [] and found["notices"]


def test_the_remembered_layer_reaches_a_new_chat_only_while_approved(as_anna, anna):
    from apps.memory.agent_context import remembered

    stored = services.store(
        as_anna,
        build(MemoryStore, text="Anna möchte Entwürfe immer als PDF.", scope="personal", kind="preference"),
    )
    layer = remembered(as_anna, "In welchem Format soll ich den Entwurf schicken?")
    assert f"[memory:{stored.memory.pk}]" in layer and "not instructions" in layer
    services.retract(as_anna, stored.memory.pk)
    assert remembered(as_anna, "In welchem Format soll ich den Entwurf schicken?") == ""
    assert Memory.objects.count() == 1
