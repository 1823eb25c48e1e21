"""Wiki pages: render, search, write through the services, escape everything, constant queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.wiki import proposals
from apps.wiki.models import WikiPage, WikiProposal
from tests.wiki.factories import WikiPageFactory

pytestmark = pytest.mark.django_db

XSS = '<script>alert("x")</script> <img src=x onerror=alert(1)> [klick](javascript:alert(1))'


def test_index_lists_pages_and_searches(web, handbook):
    body = web.get(reverse("wiki:index")).content.decode()
    assert all(title in body for title in ("Fristenkontrolle", "Posteingang", "Datenschutz"))
    found = web.get(reverse("wiki:index"), {"q": "frist"}).content.decode()
    assert "Fristenkontrolle" in found and "Datenschutz" not in found and "<mark>" in found
    partial = web.get(
        reverse("wiki:index"), {"q": "frist"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="wiki-results"
    )
    assert "<html" not in partial.content.decode()
    assert "Datenschutz" in web.get(reverse("wiki:index"), {"q": "?!"}).content.decode()


def test_index_empty_state_and_no_match(web):
    assert reverse("wiki:create") in web.get(reverse("wiki:index")).content.decode()
    assert "frist" in web.get(reverse("wiki:index"), {"q": "frist"}).content.decode()


def test_index_paginates(web, anna):
    for i in range(27):
        WikiPageFactory(title=f"Seite {i:02d}", slug=f"seite-{i:02d}", author=anna)
    first = web.get(reverse("wiki:index")).content.decode()
    assert "Seite 00" in first and "Seite 26" not in first
    assert "Seite 26" in web.get(reverse("wiki:index"), {"page": 2}).content.decode()


def test_page_renders_markdown(web, anna):
    WikiPageFactory(
        slug="ablauf", title="Ablauf", body="## Schritte\n\n- **Post** öffnen\n- Frist eintragen", author=anna
    )
    body = web.get(reverse("wiki:page", args=["ablauf"])).content.decode()
    assert "<h3>Schritte</h3>" in body and "<li><strong>Post</strong> öffnen</li>" in body
    assert web.get(reverse("wiki:page", args=["gibt-es-nicht"])).status_code == 404


def test_markdown_and_diffs_never_carry_scripts(web, anna, as_anna, as_ben):
    page = WikiPageFactory(slug="boese", title='<b onmouseover="x">Titel</b>', body=XSS, author=anna)
    proposals.propose_change(as_ben, slug="boese", body=XSS + "\n<iframe src=//evil>")
    urls = [
        reverse("wiki:page", args=["boese"]),
        reverse("wiki:history", args=["boese"]),
        reverse("wiki:revision", args=["boese", 1]),
        reverse("wiki:proposals"),
        reverse("wiki:index"),
        reverse("wiki:index") + "?q=alert",
    ]
    for url in urls:
        body = web.get(url).content.decode()
        assert "<script>alert" not in body and "<img" not in body and "<iframe" not in body, url
        assert 'href="javascript:' not in body and "<b onmouseover" not in body, url
    assert "&lt;script&gt;" in web.get(reverse("wiki:page", args=["boese"])).content.decode()
    assert page.body == XSS  # stored as written, escaped on output


def test_create_and_edit_through_the_forms(web, anna):
    response = web.post(reverse("wiki:create"), {"title": "Urlaubsplanung", "body": "Bis **März**."})
    assert response.status_code == 302 and response.url == reverse("wiki:page", args=["urlaubsplanung"])
    clash = web.post(reverse("wiki:create"), {"title": "Andere", "slug": "urlaubsplanung", "body": "x"})
    assert clash.status_code == 200 and "urlaubsplanung" in clash.content.decode()
    assert WikiPage.objects.count() == 1
    edit_url = reverse("wiki:edit", args=["urlaubsplanung"])
    assert 'name="base_revision"' in web.get(edit_url).content.decode()
    saved = web.post(edit_url, {"title": "Urlaubsplanung", "body": "Bis Ende März.", "base_revision": 1})
    assert saved.status_code == 302
    stale = web.post(edit_url, {"title": "Urlaubsplanung", "body": "Alter Stand", "base_revision": 1})
    assert stale.status_code == 200 and "diff-del" in stale.content.decode()
    assert 'name="base_revision" value="2"' in stale.content.decode()
    page = WikiPage.objects.get()
    assert page.body == "Bis Ende März." and page.revision_number == 2


def test_history_shows_a_diff_between_revisions(web, anna, as_anna):
    from apps.core.inputs import build
    from apps.wiki import services
    from apps.wiki.contracts import WikiPageUpdate

    WikiPageFactory(slug="ablauf", title="Ablauf", body="Zeile eins\nZeile zwei", author=anna)
    services.update_page(as_anna, "ablauf", build(WikiPageUpdate, body="Zeile eins\nZeile drei"))
    body = web.get(reverse("wiki:history", args=["ablauf"])).content.decode()
    assert '<span class="diff-del">- Zeile zwei</span>' in body
    assert '<span class="diff-add">+ Zeile drei</span>' in body
    older = web.get(reverse("wiki:history", args=["ablauf"]), {"a": 1, "b": 1}).content.decode()
    assert "diff-add" not in older
    assert web.get(reverse("wiki:history", args=["ablauf"]), {"a": 9}).status_code == 404


def test_review_queue_accepts_and_rejects(web, anna, as_ben, handbook):
    first, _ = proposals.propose_change(as_ben, slug="posteingang", body="Neu: Post um 9 Uhr")
    second, _ = proposals.propose_change(as_ben, slug="datenschutz", body="Weniger streng")
    body = web.get(reverse("wiki:proposals")).content.decode()
    assert "Neu: Post um 9 Uhr" in body and 'data-record-id="proposal-' in body
    web.post(reverse("wiki:accept", args=[first.pk]))
    assert WikiPage.objects.get(slug="posteingang").body == "Neu: Post um 9 Uhr"
    web.post(reverse("wiki:reject", args=[second.pk]), {"reason": ""})
    assert WikiProposal.objects.get(pk=second.pk).status == "pending"  # a reason is required
    web.post(reverse("wiki:reject", args=[second.pk]), {"reason": "Nein"})
    assert WikiProposal.objects.get(pk=second.pk).status == "rejected"
    assert "proposal-" not in web.get(reverse("wiki:proposals")).content.decode()


def test_list_pages_query_counts_are_constant(web, anna, as_ben):
    def queries(url):
        with CaptureQueriesContext(connection) as ctx:
            assert web.get(url).status_code == 200
        return len(ctx.captured_queries)

    pages = [WikiPageFactory(author=anna) for _ in range(2)]
    for p in pages:
        proposals.propose_change(as_ben, page_id=p.pk, body="Vorschlag")
    urls = [reverse("wiki:index"), reverse("wiki:index") + "?q=handbuchseite", reverse("wiki:proposals")]
    few = [queries(u) for u in urls]
    for _ in range(15):
        p = WikiPageFactory(author=anna)
        proposals.propose_change(as_ben, page_id=p.pk, body="Vorschlag")
    assert [queries(u) for u in urls] == few


def test_pages_need_a_login(client):
    assert client.get(reverse("wiki:index")).status_code == 302
