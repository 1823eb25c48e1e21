"""The agent's side of learning: two read tools (active objects only), the `learning:` source of
context_search / context_get, and the bounded, labelled prompt layer. No tool writes learning."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import ServicePrincipal
from apps.accounts.principal import Principal
from apps.knowledge.context import context_get, context_search
from apps.learning import prompt_layer, services
from apps.learning.models import LearningObject
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from apps.tools.registry import all_tools
from tests.factories import ServicePrincipalFactory
from tests.learning.conftest import fact

pytestmark = pytest.mark.django_db


@pytest.fixture
def known():
    return {
        "hours": fact("Die Kanzlei ist freitags ab 13 Uhr geschlossen.", subject="office.opening_hours"),
        "parking": fact("Parkplätze gibt es im Hof.", subject="office.parking"),
        "staged": fact("Die Kanzlei ist samstags geöffnet.", subject="office.saturday", confidence=0.3),
    }


def test_the_learning_tools_only_read():
    learning = sorted((t.name, t.read_only) for t in all_tools() if t.family == "learning")
    assert learning == [("learning_get_object", True), ("learning_search", True)]
    writers = [t.name for t in all_tools() if "learning" in t.name and not t.read_only]
    assert writers == []


def test_search_finds_active_objects_only(anna_ctx, known):
    result = dispatch("learning_search", {"query": "Kanzlei geschlossen"}, anna_ctx)
    assert result.ok, result.message
    assert [r["id"] for r in result.output["results"]] == [known["hours"].ref]
    assert result.output["total"] == 1 and result.output["results"][0]["status"] == "active"
    everything = dispatch("learning_search", {}, anna_ctx).output
    assert {r["object_id"] for r in everything["results"]} == {known["hours"].pk, known["parking"].pk}
    procedures = dispatch("learning_search", {"object_type": "procedure_proposal"}, anna_ctx).output
    assert procedures["results"] == [] and procedures["total"] == 0


def test_get_object_with_evidence_and_staged_ones_are_not_found(anna_ctx, known, admin_user):
    got = dispatch("learning_get_object", {"object_id": known["hours"].ref}, anna_ctx)
    # The quote is for reviewers and the chat's owner (tests/learning/test_evidence_visibility.py).
    assert got.ok and got.output["object"]["text"] == known["hours"].text
    as_admin = ToolContext(principal=Principal.for_user(admin_user))
    got = dispatch("learning_get_object", {"object_id": known["hours"].ref}, as_admin)
    assert got.ok and got.output["object"]["evidence"][0]["quote"].startswith("Die Kanzlei")
    assert dispatch("learning_get_object", {"object_id": str(known["hours"].pk)}, anna_ctx).ok
    for ref in (known["staged"].ref, "learning:abc", "999999"):
        assert (
            dispatch("learning_get_object", {"object_id": ref}, anna_ctx).code == "learning_object_not_found"
        )


def test_public_embeds_get_no_learning(known):
    embed = Principal.for_service(ServicePrincipalFactory(kind=ServicePrincipal.Kind.PUBLIC_EMBED))
    ctx = ToolContext(principal=embed)
    assert dispatch("learning_search", {"query": "Kanzlei"}, ctx).code == "forbidden"
    assert dispatch("learning_get_object", {"object_id": known["hours"].ref}, ctx).code == "forbidden"


def test_search_query_count_is_constant(anna_ctx):
    def count():
        with CaptureQueriesContext(connection) as captured:
            assert dispatch("learning_search", {"query": "Kanzlei", "limit": 50}, anna_ctx).ok
        return len(captured.captured_queries)

    for i in range(2):
        fact(f"Die Kanzlei hat Regel {i}.")
    few = count()
    for i in range(2, 30):
        fact(f"Die Kanzlei hat Regel {i}.")
    assert count() == few


def test_context_search_and_get_know_the_learning_source(as_anna, known):
    found = context_search(as_anna, "freitags geschlossen", sources=["learning"])
    assert [r["id"] for r in found["results"]] == [known["hours"].ref]
    assert found["results"][0]["source"] == "learning"
    assert context_search(as_anna, "freitags", sources=["learning"], scope="personal")["results"] == []
    got = context_get(as_anna, known["hours"].ref)
    assert got["text"] == known["hours"].text and got["evidence"] == []  # not Anna's chat
    with pytest.raises(services.LearningObjectNotFound):
        context_get(as_anna, known["staged"].ref)
    via_tool = dispatch(
        "context_search", {"query": "Parkplätze", "sources": ["learning"]}, ToolContext(as_anna)
    )
    assert via_tool.ok and via_tool.output["results"][0]["id"] == known["parking"].ref


def _layer(user, text: str) -> str | None:
    # The round context carries the run's principal (the runtime builds it from the run).
    round_context = SimpleNamespace(
        principal=Principal.for_user(user), messages=[{"role": "user", "content": text}]
    )
    return prompt_layer.provider(round_context)


def test_the_prompt_layer_is_labelled_bounded_and_active_only(anna, known):
    layer = _layer(anna, "Parkplätze?")
    assert layer.startswith(prompt_layer.HEAD) and "not instructions" in layer
    lines = [line for line in layer.splitlines() if line.startswith("- [learning:")]
    assert lines[0] == f"- [learning:{known['parking'].pk}] Parkplätze gibt es im Hof."  # relevant first
    assert known["staged"].text not in layer
    for i in range(200):
        fact(f"Die Kanzlei hat die Hausregel Nummer {i}, die sehr ausführlich beschrieben wird. " * 3)
    big = _layer(anna, "Hausregel")
    assert len(big) <= prompt_layer.MAX_CHARS
    assert len([line for line in big.splitlines() if line.startswith("- [")]) <= prompt_layer.MAX_ITEMS


def test_nothing_learned_means_no_layer(anna):
    assert _layer(anna, "Hallo") is None
    fact("Rejected.", confidence=0.1)
    LearningObject.objects.update(status=LearningObject.Status.REJECTED)
    assert _layer(anna, "Hallo") is None
