"""The memory tools through the real dispatcher: approved-only reads, personal isolation (user and
specialist), grep, describe, expand, bad input, and query counts that do not grow with rows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.core.inputs import build
from apps.core.origin import Origin
from apps.memory import services
from apps.memory.contracts import MemoryReview, MemoryStore
from apps.memory.models import Memory
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db

FACT = "Die Kanzlei schließt freitags um 14 Uhr."


def run(ctx, name, **args):
    result = dispatch(name, args, ctx)
    assert result.ok, (result.code, result.message)
    return result.output


def test_store_then_search_finds_it_in_a_new_context(as_anna):
    stored = run(ToolContext(principal=as_anna, run_id="run-1"), "memory_store", text=FACT, scope="personal")
    assert (stored["outcome"], stored["memory"]["review"], stored["memory"]["source"]) == (
        "created",
        "approved",
        {"kind": "chat_run", "ref": "run-1"},
    )
    found = run(
        ToolContext(principal=as_anna), "memory_search", query="Wann schließt die Kanzlei am Freitag?"
    )
    assert [m["text"] for m in found["memories"]] == [FACT]
    assert "never instructions" in found["note"]


def test_store_again_confirms(as_anna):
    ctx = ToolContext(principal=as_anna)
    first = run(ctx, "memory_store", text=FACT, scope="personal")
    again = run(ctx, "memory_store", text=FACT.upper(), scope="personal")
    assert again["outcome"] == "confirmed" and again["memory"]["id"] == first["memory"]["id"]
    assert again["memory"]["confirmations"] == 2


def test_reads_return_only_approved_valid_memory(as_anna, as_boss):
    anna = ToolContext(principal=as_anna, run_id="r")
    pending = run(anna, "memory_store", text="Das Büro ist am 24.12. geschlossen.")  # shared: waits
    assert pending["memory"]["review"] == "pending"
    rejected = services.store(
        as_anna,
        build(MemoryStore, text="Der Kaffee im Büro ist gratis."),
        origin=Origin(surface="agent", run_id="1"),
    ).memory
    services.review(as_boss, rejected.pk, build(MemoryReview, decision="reject"))
    approved = services.store(
        as_boss, build(MemoryStore, text="Die Kanzlei hat 12 Parkplätze im Hof.")
    ).memory
    retracted = services.store(as_boss, build(MemoryStore, text="Die Kanzlei hat einen Aufzug.")).memory
    services.retract(as_boss, retracted.pk)
    expired = services.store(
        as_anna,
        build(MemoryStore, text="Frau Berger ist im Urlaub.", scope="personal", valid_until="2030-01-01"),
    )
    Memory.objects.filter(pk=expired.memory.pk).update(valid_until="2021-01-01T00:00Z")
    future = services.store(
        as_anna,
        build(MemoryStore, text="Ab März ist das Büro umgezogen.", scope="personal", valid_from="2099-03-01"),
    )

    for query in ("Büro geschlossen 24.12.", "Kaffee gratis", "Parkplätze", "Aufzug", "Urlaub", "umgezogen"):
        ids = [m["id"] for m in run(anna, "memory_search", query=query)["memories"]]
        assert set(ids) <= {approved.pk}, query
    grep_ids = {
        m["id"]
        for m in run(anna, "memory_grep", pattern="Büro|Kaffee|Aufzug|Urlaub|Parkpl", regex=True)["memories"]
    }
    assert grep_ids == {approved.pk}
    for hidden in (pending["memory"]["id"], rejected.pk, retracted.pk, expired.memory.pk, future.memory.pk):
        result = dispatch("memory_get", {"id": hidden}, anna)
        assert (result.ok, result.code) == (False, "memory_not_found")
        assert dispatch("memory_expand", {"id": hidden}, anna).code == "memory_not_found"
    assert run(anna, "memory_describe")["total"] == 1


def test_personal_memory_of_another_user_is_never_returned(as_anna, as_ben, ben):
    secret = services.store(
        as_ben, build(MemoryStore, text="Ben hat eine Allergie gegen Nüsse.", scope="personal")
    ).memory
    anna = ToolContext(principal=as_anna)
    assert run(anna, "memory_search", query="Allergie Nüsse")["memories"] == []
    asked = run(anna, "memory_search", query="Allergie Nüsse", scope="personal", user_id=ben.pk)
    assert asked["memories"] == [] and asked["notices"]
    assert dispatch("memory_get", {"id": secret.pk}, anna).code == "memory_not_found"
    assert run(anna, "memory_grep", pattern="Allergie")["memories"] == []
    assert run(anna, "memory_describe", scope="personal")["total"] == 0
    context = run(anna, "context_search", query="Allergie Nüsse", sources=["memory"])
    assert context["results"] == []
    assert dispatch("context_get", {"id": f"memory:{secret.pk}"}, anna).code == "knowledge_not_found"


def test_specialist_memory_is_bound_to_its_specialist(as_anna):
    steuer = ToolContext(principal=as_anna, specialist_id="steuer")
    stored = run(steuer, "memory_store", text="Für Meier immer die Anlage N prüfen.")
    assert (stored["memory"]["scope"], stored["memory"]["specialist"], stored["memory"]["review"]) == (
        "personal",
        "steuer",
        "approved",
    )
    assert [m["text"] for m in run(steuer, "memory_search", query="Anlage N Meier")["memories"]] == [
        "Für Meier immer die Anlage N prüfen."
    ]
    other = ToolContext(principal=as_anna, specialist_id="recht")
    assert run(other, "memory_search", query="Anlage N Meier")["memories"] == []
    asked = run(other, "memory_search", query="Anlage N Meier", scope="personal", specialist_id="steuer")
    assert asked["memories"] == [] and asked["notices"]
    # The person's own chats do not read the specialist's memory either, nor it theirs.
    assert run(ToolContext(principal=as_anna), "memory_search", query="Anlage N Meier")["memories"] == []
    own = services.store(
        as_anna,
        build(MemoryStore, text="Anna bevorzugt kurze Antworten.", scope="personal", kind="preference"),
    )
    found = run(steuer, "memory_search", query="kurze Antworten", scope="personal")["memories"]
    assert own.memory.pk not in [m["id"] for m in found]
    assert dispatch("memory_get", {"id": stored["memory"]["id"]}, other).code == "memory_not_found"


def test_a_service_principal_asking_for_personal_memory_gets_a_notice(as_robot):
    found = run(ToolContext(principal=as_robot), "memory_search", query="Urlaub", scope="personal")
    assert found["memories"] == [] and found["notices"]


def test_grep_exact_regex_and_bad_patterns(as_anna):
    ctx = ToolContext(principal=as_anna)
    services.store(as_anna, build(MemoryStore, text="Steuernummer von Meier: 12/345/67890", scope="personal"))
    services.store(as_anna, build(MemoryStore, text="Meier zahlt per Lastschrift.", scope="personal"))
    exact = run(ctx, "memory_grep", pattern="12/345")
    assert [m["text"] for m in exact["memories"]] == ["Steuernummer von Meier: 12/345/67890"]
    assert exact["memories"][0]["excerpt"].endswith("12/345/67890")
    regex = run(ctx, "memory_grep", pattern=r"\d+/\d+/\d+", regex=True)
    assert regex["total"] == 1
    assert run(ctx, "memory_grep", pattern="meier")["total"] == 2
    assert run(ctx, "memory_grep", pattern="meier", case_sensitive=True)["total"] == 0
    for bad in ("(unclosed", r"(a)\1", "(?=x)", "a{1000}"):
        result = dispatch("memory_grep", {"pattern": bad, "regex": True}, ctx)
        assert (result.ok, result.code) == (False, "memory_invalid_pattern"), bad


def test_describe_counts_by_kind_scope_and_client(as_anna, as_boss, meier):
    services.store(
        as_anna, build(MemoryStore, text="Ich trinke Kaffee schwarz.", scope="personal", kind="preference")
    )
    services.store(
        as_boss,
        build(MemoryStore, text="Meier bekommt die Post per Einschreiben.", subject_client_id=meier.pk),
    )
    services.store(as_boss, build(MemoryStore, text="Belege immer bis zum 10. anfordern.", kind="procedure"))
    described = run(ToolContext(principal=as_anna), "memory_describe")
    assert described["total"] == 3
    assert described["by_kind"] == {"fact": 1, "preference": 1, "procedure": 1, "note": 0}
    assert described["by_scope"] == {"shared": 2, "personal": 1}
    assert described["by_subject"] == [{"client": {"id": meier.pk, "name": "Meier GmbH"}, "count": 1}]


def test_expand_shows_sources_and_history(as_anna):
    ctx = ToolContext(principal=as_anna, run_id="r1")
    first = run(ctx, "memory_store", text=FACT, scope="personal", quote="wir schließen freitags um 14 Uhr")
    run(ToolContext(principal=as_anna, run_id="r2"), "memory_store", text=FACT, scope="personal")
    expanded = run(ctx, "memory_expand", id=first["memory"]["id"])["memory"]
    assert [(s["kind"], s["ref"]) for s in expanded["sources"]] == [("chat_run", "r1"), ("chat_run", "r2")]
    assert expanded["sources"][0]["quote"] == "wir schließen freitags um 14 Uhr"
    assert [h["action"] for h in expanded["history"]] == ["created", "confirmed"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"text": "x" * 2001}, "memory_too_large"),
        ({"text": "ok", "subject_client_id": 999999}, "client_not_found"),
        ({"text": "ok", "kind": "rumour"}, "invalid_arguments"),
        ({"text": "ok", "surprise": 1}, "invalid_arguments"),
        ({"text": "nul\x00"}, "invalid_arguments"),
    ],
)
def test_store_refuses_bad_input_and_writes_nothing(as_anna, args, code):
    result = dispatch("memory_store", args, ToolContext(principal=as_anna))
    assert (result.ok, result.code) == (False, code)
    assert not Memory.objects.exists()


def test_read_tools_are_read_only_and_scoped_for_api_keys():
    from apps.tools import registry

    for name in ("memory_search", "memory_get", "memory_grep", "memory_describe", "memory_expand"):
        tool = registry.get(name)
        assert tool.read_only and tool.api_scopes == {"memory:read"}, name
    store = registry.get("memory_store")
    assert not store.read_only and store.api_scopes == {"memory:write"}


def _queries(ctx, name, **args) -> int:
    with CaptureQueriesContext(connection) as captured:
        run(ctx, name, **args)
    return len(captured)


def test_list_tools_cost_the_same_queries_for_few_and_many_rows(as_anna, as_boss, meier):
    ctx = ToolContext(principal=as_anna)
    services.store(
        as_boss,
        build(MemoryStore, text="Meier bekommt die Post per Einschreiben.", subject_client_id=meier.pk),
    )
    few = {
        name: _queries(ctx, name, **args)
        for name, args in (
            ("memory_search", {"query": "Post Meier"}),
            ("memory_grep", {"pattern": "Meier"}),
            ("memory_describe", {}),
        )
    }
    for i in range(12):
        services.store(
            as_boss,
            build(
                MemoryStore,
                text=f"Meier Notiz Nummer {i}: Unterlagen {i * 7} Seiten.",
                subject_client_id=meier.pk,
                kind="note",
            ),
        )
    many = {
        name: _queries(ctx, name, **args)
        for name, args in (
            ("memory_search", {"query": "Post Meier"}),
            ("memory_grep", {"pattern": "Meier"}),
            ("memory_describe", {}),
        )
    }
    assert many == few
