"""context_search / context_get: success, bad input, permission; fusion with reservation; the
agent context block; constant query counts."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.knowledge import context, embeddings
from apps.knowledge.agent_context import agent_context_provider, build_agent_context, known_refs
from apps.knowledge.context import ContextHit, fuse
from apps.knowledge.models import KnowledgeFile
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.knowledge.conftest import payload

pytestmark = pytest.mark.django_db

LONG = "Die Umsatzsteuervoranmeldung ist bis zum zehnten des Folgemonats abzugeben. " * 4


@pytest.fixture
def docs(index_now, anna, meier):
    index_now(
        21,
        payload(
            "Annas Entwurf: Kündigung des Mietvertrags zum Jahresende.",
            title="Kündigung",
            scope="personal",
            owner_id=anna.pk,
        ),
    )
    index_now(22, payload(LONG, title="Umsatzsteuer Merkblatt"))
    index_now(
        23,
        payload(
            "Meier GmbH: Lohnsteuer-Außenprüfung angekündigt für Mai.",
            title="Prüfung Meier",
            scope="client",
            client_id=meier.pk,
        ),
    )


def test_context_search_and_get(docs, anna_ctx):
    found = dispatch("context_search", {"query": "Wann ist die Umsatzsteuervoranmeldung fällig?"}, anna_ctx)
    assert found.ok, found.message
    first = found.output["results"][0]
    assert first["id"] == "document:22" and first["source"] == "document" and first["snippet"]
    assert found.output["notices"] == []
    got = dispatch("context_get", {"id": "document:22", "max_chars": 100}, anna_ctx)
    assert got.ok and got.output["title"] == "Umsatzsteuer Merkblatt"
    assert len(got.output["text"]) == 100 and got.output["next_offset"] == 100
    rest = dispatch("context_get", {"id": "document:22", "offset": 100, "max_chars": 20000}, anna_ctx)
    assert rest.output["next_offset"] is None and got.output["text"] + rest.output["text"] == LONG.strip()


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("context_search", {"query": ""}, "invalid_arguments"),
        ("context_search", {"query": "x", "limit": 500}, "invalid_arguments"),
        ("context_search", {"query": "x", "scope": "everyone"}, "invalid_arguments"),
        ("context_search", {"query": "x", "sources": ["telepathy"]}, "unknown_source"),
        ("context_get", {"id": "document"}, "invalid_input"),
        ("context_get", {"id": "telepathy:1"}, "unknown_source"),
        ("context_get", {"id": "document:99999"}, "knowledge_not_found"),
        ("context_get", {"id": "document:22", "max_chars": 10**9}, "invalid_arguments"),
    ],
)
def test_bad_input_has_a_clear_code(docs, anna_ctx, name, args, code):
    result = dispatch(name, args, anna_ctx)
    assert not result.ok and result.code == code, result


def test_another_users_personal_document_is_invisible_through_the_tools(docs, ben_ctx, as_robot):
    found = dispatch("context_search", {"query": "Kündigung Mietvertrag Jahresende"}, ben_ctx)
    assert found.ok and "document:21" not in [r["id"] for r in found.output["results"]]
    got = dispatch("context_get", {"id": "document:21"}, ben_ctx)
    assert not got.ok and got.code == "knowledge_not_found"
    assert "Kündigung" not in (got.message or "")
    robot_ctx = ToolContext(principal=as_robot)
    personal = dispatch("context_search", {"query": "Kündigung", "scope": "personal"}, robot_ctx)
    assert personal.ok and personal.output["results"] == [] and personal.output["notices"]
    shared = dispatch("context_search", {"query": "Lohnsteuer Außenprüfung Meier"}, robot_ctx)
    assert "document:23" in [r["id"] for r in shared.output["results"]]
    assert not dispatch("context_get", {"id": "document:21"}, robot_ctx).ok


def test_the_owner_reads_her_personal_document(docs, anna_ctx):
    got = dispatch("context_get", {"id": "document:21"}, anna_ctx)
    assert got.ok and "Mietvertrag" in got.output["text"] and got.output["scope"] == "personal"


def test_fusion_reserves_places_for_every_source():
    big = [ContextHit(ref=f"document:{i}", source="document", title="", snippet="") for i in range(10)]
    small = [ContextHit(ref="wiki:kanzlei", source="wiki", title="", snippet="")]
    fused = [hit.ref for hit, _score in fuse({"document": big, "wiki": small}, 4)]
    assert len(fused) == 4 and "wiki:kanzlei" in fused and fused[0] == "document:0"
    assert [h.ref for h, _ in fuse({"document": big}, 3)] == ["document:0", "document:1", "document:2"]


def test_a_registered_source_is_searched_and_fused(docs, anna_ctx, monkeypatch):
    wiki = context.ContextSource(
        "wiki",
        search=lambda q: [
            ContextHit(ref="wiki:umsatzsteuer", source="wiki", title="USt im Wiki", snippet="…")
        ],
        get=lambda principal, ident, options: {"id": f"wiki:{ident}", "text": "Wiki-Seite"},
    )
    declared = context.all_sources()
    monkeypatch.setattr(context, "all_sources", lambda: {**declared, "wiki": wiki})
    found = dispatch("context_search", {"query": "Umsatzsteuer", "limit": 2}, anna_ctx)
    ids = [r["id"] for r in found.output["results"]]
    assert "wiki:umsatzsteuer" in ids and len(ids) == 2
    only = dispatch("context_search", {"query": "Umsatzsteuer", "sources": ["wiki"]}, anna_ctx)
    assert [r["id"] for r in only.output["results"]] == ["wiki:umsatzsteuer"]
    assert dispatch("context_get", {"id": "wiki:umsatzsteuer"}, anna_ctx).output["text"] == "Wiki-Seite"


def test_context_search_query_count_is_constant(index_now, anna_ctx):
    index_now(31, payload("Reisekostenabrechnung für Dienstreisen nach Berlin.", title="Reisekosten"))
    dispatch("context_search", {"query": "Reisekosten"}, anna_ctx)  # warm-up
    with CaptureQueriesContext(connection) as few:
        dispatch("context_search", {"query": "Reisekosten Berlin"}, anna_ctx)
    for i in range(32, 40):
        index_now(
            i, payload(f"Reisekostenabrechnung Nummer {i} für Dienstreisen nach Berlin.", title=f"R{i}")
        )
    with CaptureQueriesContext(connection) as many:
        result = dispatch("context_search", {"query": "Reisekosten Berlin"}, anna_ctx)
    assert len(result.output["results"]) == 9
    assert len(many) == len(few)


def test_agent_context_is_layered_and_scoped(docs, as_anna, as_ben):
    known = KnowledgeFile.objects.get(source_id="21").pk
    block = build_agent_context(as_anna, "Umsatzsteuer Frist Lohnsteuer Prüfung", known_file_ids=[known])
    assert block.index("### Files of this conversation") < block.index("### Relevant passages")
    assert "[document:21] Kündigung" in block and "[document:22]" in block
    bens = build_agent_context(as_ben, "Kündigung Mietvertrag", known_file_ids=[known])
    assert "document:21" not in bens and "Mietvertrag" not in bens


def test_agent_context_is_empty_when_embedding_fails(docs, as_anna, monkeypatch):
    def broken(*args, **kwargs):
        raise embeddings.EmbeddingError("down")

    monkeypatch.setattr(embeddings, "embed_query", broken)
    assert build_agent_context(as_anna, "Umsatzsteuer") == ""


def test_the_runtime_hook_uses_the_runs_user_and_the_last_user_message(docs, anna):
    from types import SimpleNamespace

    from apps.agent.runtime import RoundContext, context_providers

    assert agent_context_provider in context_providers()
    run = SimpleNamespace(pk=1, user=anna, user_id=anna.pk, service_principal_id=None)
    messages = [
        {"role": "system", "content": "…"},
        {"role": "user", "content": "Was steht in meinem Entwurf?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "function": {"name": "documents_get", "arguments": '{"document_id": 21}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true, "output": {"ref": "document:22"}}'},
        {"role": "user", "content": "Und wann ist die Umsatzsteuervoranmeldung fällig?"},
    ]
    assert known_refs(messages) == [("document", "21"), ("document", "22")]
    block = agent_context_provider(RoundContext(run=run, round=1, messages=messages))
    assert "[document:22]" in block and "[document:21] Kündigung" in block
    assert agent_context_provider(RoundContext(run=run, round=1, messages=messages[:1])) is None
    # A document the user attached in the chat is a known file of the conversation, too.
    asked = [{"role": "user", "content": "Bitte prüfen Sie den Anhang."}]
    plain = agent_context_provider(RoundContext(run=run, round=1, messages=asked)) or ""
    attached = agent_context_provider(
        RoundContext(run=run, round=1, messages=asked, attached_document_ids=(21,))
    )
    assert "- [document:21] Kündigung" not in plain
    assert "### Files of this conversation" in attached and "- [document:21] Kündigung" in attached
