"""The header search (/suche/ and its drop-down): every app's section through its own provider
(`dashboard.search_providers`), never a row the person may not see, bad input refused clearly,
and a constant number of queries whatever the hits."""

import pytest
from django.urls import reverse

from apps.core.inputs import build
from apps.core.plugins import contributions
from apps.dashboard.search import POINT
from apps.notes import services as notes
from apps.notes.contracts import NoteCreate
from apps.tasks import services as tasks
from apps.tasks.contracts import TaskCreate
from apps.wiki import services as wiki
from apps.wiki.contracts import WikiPageCreate
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db

SEARCH = "/suche/"
SUGGEST = "/suche/vorschlaege/"


def test_every_domain_contributes_a_provider():
    modules = [p.__module__ for p in contributions(POINT)]
    assert sorted(modules) == sorted(
        [
            "apps.tasks.search",
            "apps.clients.search",
            "apps.documents.search",
            "apps.notes.search",
            "apps.wiki.search",
            "apps.calendar.search",
            "apps.calendar.search",
            "apps.documents.search",
        ]
    )


def test_the_box_is_in_every_page_header(web):
    html = web.get(reverse("dashboard")).content.decode().replace("<mark>", "").replace("</mark>", "")
    assert 'id="header-search-input"' in html and 'aria-keyshortcuts="/"' in html
    assert "js/header-search.js" in html


VISIBLE = [
    "Zebrafink Bilanz prüfen",
    "Zebrafink KG",
    "Zebrafink Protokoll",
    "Zebrafink Handbuch",
    "Zebrafink Vertrag",
]
INVISIBLE = [
    "Zebrafink Geheimaufgabe",
    "Zebrafink Privatnotiz",
    "Zebrafink Geheimdokument",
    "Zebrafink Geheim AG",
]


def test_one_query_finds_every_kind_and_nothing_invisible(web, office):
    response = web.get(SEARCH, {"q": "zebrafink"})
    assert response.status_code == 200
    html = response.content.decode().replace("<mark>", "").replace("</mark>", "")
    for title in VISIBLE:
        assert title in html, title
    for title in INVISIBLE:
        assert title not in html, title
    for key in ("tasks", "clients", "documents", "notes", "wiki"):
        assert f'data-search-section="{key}"' in html


def test_the_drop_down_shows_the_same_rights(web, office):
    response = web.get(SUGGEST, {"q": "zebrafink"})
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    html = response.content.decode().replace("<mark>", "").replace("</mark>", "")
    assert "<html" not in html  # a fragment for the header, not a page
    for title in VISIBLE:
        assert title in html, title
    for title in INVISIBLE:
        assert title not in html, title
    assert f'href="{SEARCH}?q=zebrafink"' in html


@pytest.mark.parametrize("web_user", ["ben"], indirect=True)
def test_the_owner_finds_his_own_rows(web, office):
    html = web.get(SEARCH, {"q": "zebrafink"}).content.decode().replace("<mark>", "").replace("</mark>", "")
    for title in ("Zebrafink Geheimaufgabe", "Zebrafink Privatnotiz", "Zebrafink Geheimdokument"):
        assert title in html, title
    assert "Zebrafink Geheim AG" not in html  # hidden from everybody


def test_documents_rank_by_meaning_and_keep_folder_rights(web, office):
    # The passage shown comes from the knowledge store's hybrid search; the index's office-wide
    # copy of Ben's document must still not pass the documents' folder rights.
    html = (
        web.get(SEARCH, {"q": "Zebrafinken Vertrag"})
        .content.decode()
        .replace("<mark>", "")
        .replace("</mark>", "")
    )
    assert "Zebrafink Vertrag" in html and "Vertrag über Zebrafinken." in html  # its passage
    assert "Zebrafink Geheimdokument" not in html and "Geheime Zebrafinken" not in html


def test_documents_fall_back_to_words_when_embeddings_are_down(web, office, monkeypatch):
    from apps.documents import search as document_search
    from apps.knowledge.errors import EmbeddingError

    def down(*args, **kwargs):
        raise EmbeddingError("down")

    monkeypatch.setattr(document_search, "hybrid_search", down)
    html = web.get(SEARCH, {"q": "zebrafink"}).content.decode().replace("<mark>", "").replace("</mark>", "")
    assert "Zebrafink Vertrag" in html and "Zebrafink Geheimdokument" not in html


def test_client_numbers_and_steuernummer_from_the_header(web, office):
    assert "Zebrafink KG" in web.get(SUGGEST, {"q": "2181508150"}).content.decode().replace(
        "<mark>", ""
    ).replace("</mark>", "")
    assert "Zebrafink KG" in web.get(SEARCH, {"q": "K-777"}).content.decode().replace("<mark>", "").replace(
        "</mark>", ""
    )


def test_results_page_query_count_is_constant(web, office, statuses, as_anna, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    web.get(SEARCH, {"q": "zebrafink"})  # warm the per-process caches
    with CaptureQueriesContext(connection) as few:
        web.get(SEARCH, {"q": "zebrafink"})
    board = tasks.list_boards(as_anna)[0]
    for i in range(8):
        tasks.create_task(as_anna, build(TaskCreate, title=f"Zebrafink Aufgabe {i}", board_id=board.pk))
        notes.create_note(as_anna, build(NoteCreate, name=f"Zebrafink Notiz {i}", text="x"))
        wiki.create_page(as_anna, build(WikiPageCreate, title=f"Zebrafink Seite {i}", body="y"))
        ClientFactory(name=f"Zebrafink {i} GmbH")
    web.get(SEARCH, {"q": "zebrafink"})  # the writes reset the navigation badges' caches: warm again
    with CaptureQueriesContext(connection) as many:
        html = (
            web.get(SEARCH, {"q": "zebrafink"}).content.decode().replace("<mark>", "").replace("</mark>", "")
        )
    assert "Zebrafink Aufgabe 7" in html and "Zebrafink Seite 7" in html
    assert len(many) == len(few), [q["sql"][:120] for q in many.captured_queries]
    with django_assert_max_num_queries(len(few)):
        web.get(SUGGEST, {"q": "zebrafink"})


def test_bad_input_is_refused_clearly(web, office):
    too_long = web.get(SEARCH, {"q": "x" * 201})
    assert too_long.status_code == 400 and "200" in too_long.content.decode().replace("<mark>", "").replace(
        "</mark>", ""
    )
    assert web.get(SUGGEST, {"q": "x" * 201}).status_code == 400
    for odd in ["&|!():*", "'; DROP TABLE tasks_task; --", "zebra:* | !", "\\"]:
        assert web.get(SEARCH, {"q": odd}).status_code == 200, odd
        assert web.get(SUGGEST, {"q": odd}).status_code == 200, odd
    attack = (
        web.get(SEARCH, {"q": "<script>alert(1)</script>"})
        .content.decode()
        .replace("<mark>", "")
        .replace("</mark>", "")
    )
    assert "<script>alert(1)" not in attack and "&lt;script&gt;" in attack
    assert "Zebrafink" not in web.get(SEARCH, {"q": "z"}).content.decode().replace("<mark>", "").replace(
        "</mark>", ""
    )  # too short: a hint
    assert web.get(SEARCH).status_code == 200  # empty: the explanation


def test_one_refusing_provider_does_not_hide_the_others(web, office, monkeypatch):
    from apps.core.errors import InvalidInput
    from apps.dashboard import search

    def refusing(principal, words, *, limit, quick=False):
        raise InvalidInput("Diese Suche ist gerade nicht möglich.")

    refusing.__module__ = "apps.broken.search"
    providers = (*contributions(POINT), refusing)
    monkeypatch.setattr(search, "contributions", lambda point: providers)
    html = web.get(SEARCH, {"q": "zebrafink"}).content.decode().replace("<mark>", "").replace("</mark>", "")
    assert "Diese Suche ist gerade nicht möglich." in html and "Zebrafink KG" in html


def test_search_needs_a_login(client):
    assert client.get(SEARCH, {"q": "x"}).status_code == 302
    assert client.get(SUGGEST, {"q": "x"}).status_code == 302
