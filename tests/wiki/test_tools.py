"""wiki_search, wiki_get_page, wiki_propose_change: success, bad input, permission."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.mutations.models import MutationEvent
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from apps.tools.registry import get
from apps.wiki.models import WikiPage, WikiProposal
from tests.wiki.factories import WikiPageFactory

pytestmark = pytest.mark.django_db


def test_tools_are_registered_read_only_where_they_read():
    assert get("wiki_search").read_only and get("wiki_get_page").read_only
    assert not get("wiki_propose_change").read_only
    assert not get("wiki_search").is_gated


def test_search_returns_ranked_results_with_snippets(anna_ctx, handbook):
    result = dispatch("wiki_search", {"query": "Frist"}, anna_ctx)
    assert result.ok, result.message
    slugs = [r["slug"] for r in result.output["results"]]
    assert slugs[0] == "fristenkontrolle" and set(slugs) == {"fristenkontrolle", "posteingang"}
    assert result.output["total"] == 2
    assert any("**" in r["snippet"] for r in result.output["results"])
    assert result.output["results"][0]["url"] == "/wiki/fristenkontrolle/"


def test_get_page_by_slug_or_id(anna_ctx, handbook):
    by_slug = dispatch("wiki_get_page", {"slug": "datenschutz"}, anna_ctx)
    by_id = dispatch("wiki_get_page", {"page_id": handbook["daten"].pk, "slug": None}, anna_ctx)
    assert by_slug.ok and by_id.ok
    assert by_slug.output == by_id.output
    assert by_slug.output["page"]["body"] == "Mandantendaten bleiben in der Kanzlei."
    assert by_slug.output["page"]["revision"] == 1


def test_propose_change_never_edits_the_page(anna_ctx, handbook):
    result = dispatch(
        "wiki_propose_change",
        {"slug": "posteingang", "body": "Neuer Ablauf", "comment": "aus dem Chat"},
        anna_ctx,
    )
    assert result.ok, result.message
    proposal = result.output["proposal"]
    assert (
        proposal["status"] == "pending" and proposal["base_revision"] == 1 and proposal["run_id"] == "run-1"
    )
    assert result.refresh_topic == "wiki.proposals" and result.mutation_event_id
    assert WikiPage.objects.get(slug="posteingang").body != "Neuer Ablauf"
    stored = WikiProposal.objects.get()
    assert (stored.surface, stored.session_id, stored.proposed_by.email) == (
        "native",
        "s-1",
        "anna@kanzlei.example",
    )


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("wiki_search", {"query": ""}, "invalid_arguments"),
        ("wiki_search", {"query": "frist", "limit": 500}, "invalid_arguments"),
        ("wiki_search", {"query": "?!"}, "invalid_input"),
        ("wiki_get_page", {}, "invalid_arguments"),
        ("wiki_get_page", {"slug": "a", "page_id": 1}, "invalid_arguments"),
        ("wiki_get_page", {"slug": "gibt-es-nicht"}, "wiki_page_not_found"),
        ("wiki_get_page", {"page_id": 987654}, "wiki_page_not_found"),
        ("wiki_propose_change", {"slug": "posteingang"}, "invalid_arguments"),
        ("wiki_propose_change", {"body": "Text ohne Ziel"}, "invalid_input"),
        ("wiki_propose_change", {"page_id": 987654, "body": "x"}, "wiki_page_not_found"),
        ("wiki_propose_change", {"slug": "neu", "title": "Neu", "body": "x"}, "invalid_input"),
        ("wiki_propose_change", {"slug": "x", "body": "y", "status": "accepted"}, "invalid_arguments"),
    ],
)
def test_bad_input_has_a_clear_code_and_writes_nothing(anna_ctx, handbook, name, args, code):
    events_before = MutationEvent.objects.count()
    result = dispatch(name, args, anna_ctx)
    assert (result.ok, result.code) == (False, code), result.message
    assert result.message
    assert not WikiProposal.objects.exists() and MutationEvent.objects.count() == events_before


def test_public_embeds_see_no_wiki(as_embed, handbook):
    ctx = ToolContext(principal=as_embed)
    for name, args in [
        ("wiki_search", {"query": "frist"}),
        ("wiki_get_page", {"slug": "posteingang"}),
        ("wiki_propose_change", {"slug": "posteingang", "body": "Spam"}),
    ]:
        assert dispatch(name, args, ctx).code == "forbidden"
    assert not WikiProposal.objects.exists()


def test_automations_may_propose_but_not_decide(as_robot, handbook):
    result = dispatch(
        "wiki_propose_change", {"title": "Morgenrunde", "body": "Um 9 Uhr."}, ToolContext(as_robot)
    )
    assert result.ok and result.output["proposal"]["proposed_by_service"] == "Morgen-Briefing"
    assert result.output["proposal"]["is_new_page"] is True
    assert not WikiPage.objects.filter(slug="morgenrunde").exists()


def test_search_query_count_is_constant(anna_ctx, anna):
    def count():
        with CaptureQueriesContext(connection) as ctx:
            assert dispatch("wiki_search", {"query": "kanzlei", "limit": 50}, anna_ctx).ok
        return len(ctx.captured_queries)

    for i in range(2):
        WikiPageFactory(title=f"Kanzlei {i}", author=anna)
    few = count()
    for i in range(2, 20):
        WikiPageFactory(title=f"Kanzlei {i}", author=anna)
    assert count() == few


def test_get_page_accepts_a_pasted_path(anna_ctx, handbook):
    result = dispatch("wiki_get_page", {"slug": "/wiki/Posteingang/"}, anna_ctx)
    assert result.ok and result.output["page"]["slug"] == "posteingang"
