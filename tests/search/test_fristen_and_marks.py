"""The search page's second pass: Fristen and appointments are found (never a colleague's private
appointment), the words are marked with <mark> and everything else escaped (an XSS attempt in a
document's title and text stays text), exact document hits come first and the meaning-based ones
in their own section "Ähnliche Dokumente", and a generic file name shows the text's first line."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.dashboard.templatetags.search_marks import marked
from tests.documents.factories import DocumentFactory, FolderFactory
from tests.notifications.fristen_rows import frist

pytestmark = pytest.mark.django_db

SEARCH = "/suche/"
SUGGEST = "/suche/vorschlaege/"


def appointment(title, *, owner, visibility="shared", location=""):
    from apps.calendar.models import CalendarEvent

    start = timezone.now() + dt.timedelta(days=2)
    return CalendarEvent.objects.create(
        kind=CalendarEvent.Kind.EVENT,
        title=title,
        start=start,
        end=start + dt.timedelta(hours=1),
        visibility=visibility,
        owner=owner,
        location=location,
    )


def section(html: str, key: str) -> str:
    start = html.index(f'data-search-section="{key}"')
    end = html.find("data-search-section=", start + 10)
    return html[start : end if end > 0 else len(html)]


def test_fristen_and_appointments_are_found_with_calendar_rights(web, anna, ben):
    frist("Einspruch Kormoran GmbH", timezone.localdate() + dt.timedelta(days=5), responsible=ben)
    frist("Kormoran Frist erledigt", timezone.localdate(), responsible=ben, status="done")
    appointment("Besprechung Kormoran", owner=ben, location="Büro")
    appointment("Kormoran privat Anna", owner=anna, visibility="private")
    appointment("Kormoran Arzttermin Ben", owner=ben, visibility="private")
    frist(
        "Kormoran private Frist Ben", timezone.localdate(), responsible=ben, visibility="private", owner=ben
    )

    html = web.get(SEARCH, {"q": "kormoran"}).content.decode()
    deadlines = section(html, "deadlines")
    assert "<mark>Kormoran</mark> GmbH" in deadlines and "<mark>Kormoran</mark> Frist erledigt" in deadlines
    appointments = section(html, "appointments")
    assert "Besprechung <mark>Kormoran</mark>" in appointments
    assert "<mark>Kormoran</mark> privat Anna" in appointments  # her own private entry
    assert "Arzttermin" not in html  # a colleague's private appointment never appears
    assert "private Frist Ben" not in html
    drop_down = web.get(SUGGEST, {"q": "kormoran"}).content.decode()
    assert "Einspruch <mark>Kormoran</mark> GmbH" in drop_down and "Arzttermin" not in drop_down


def test_an_xss_attempt_in_a_document_stays_text(web, media_root):
    DocumentFactory(
        title='<script>alert("x")</script> Reiher <img src=x onerror=alert(1)>',
        folder=FolderFactory(name="Kanzlei"),
        extracted_text='Reiher <b onmouseover="alert(2)">fett</b> und </mark><script>bad()</script>',
    )
    for url in (SEARCH, SUGGEST):
        html = web.get(url, {"q": "reiher"}).content.decode()
        assert "<mark>Reiher</mark>" in html
        assert "<script>alert" not in html and "<img src=x" not in html and "<b onmouseover" not in html
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
        assert "<script>bad()" not in html


def test_a_query_with_markup_is_escaped_too():
    assert str(marked("a <bb> Reiher", "<bb> reiher")) == "a &lt;<mark>bb</mark>&gt; <mark>Reiher</mark>"
    assert str(marked("Zeichen & Co", "amp")) == "Zeichen &amp; Co"  # never inside an entity


def test_exact_hits_first_and_similar_documents_apart(web, media_root, monkeypatch):
    from apps.documents import search as document_search

    folder = FolderFactory(name="Kanzlei")
    exact = DocumentFactory(title="Pirol Vertrag", folder=folder, extracted_text="Vertrag mit Pirol.")
    near = DocumentFactory(title="Gesellschaftsvertrag", folder=folder, extracted_text="Über Singvögel.")
    monkeypatch.setattr(
        document_search,
        "_ranked",
        lambda principal, words, limit: [(exact, "Pirol"), (near, "Über Singvögel.")],
    )
    html = web.get(SEARCH, {"q": "pirol"}).content.decode()
    assert html.index('data-search-section="documents"') < html.index(
        'data-search-section="similar_documents"'
    )
    assert "Ähnliche Dokumente" in html
    assert "<mark>Pirol</mark> Vertrag" in section(html, "documents")
    similar = section(html, "similar_documents")
    assert "Gesellschaftsvertrag" in similar and "Pirol Vertrag" not in similar  # not twice
    drop_down = web.get(SUGGEST, {"q": "pirol"}).content.decode()
    assert "similar_documents" not in drop_down  # as you type: no embedding


def test_no_similar_section_without_similar_documents(web, media_root, monkeypatch):
    from apps.documents import search as document_search

    DocumentFactory(title="Pirol Vertrag", folder=FolderFactory(name="Kanzlei"), extracted_text="x")
    monkeypatch.setattr(document_search, "_ranked", lambda principal, words, limit: [])
    html = web.get(SEARCH, {"q": "pirol"}).content.decode()
    assert 'data-search-section="similar_documents"' not in html


@pytest.mark.parametrize("name", ["scan001.pdf", "Dokument.pdf", "IMG_2024.jpg", "Scan 3.pdf"])
def test_a_generic_file_name_shows_the_first_line(web, media_root, name):
    DocumentFactory(
        title=name,
        folder=FolderFactory(name="Kanzlei"),
        extracted_text="\n\n# Einkommensteuerbescheid Stieglitz 2024\nFinanzamt München",
    )
    html = web.get(SEARCH, {"q": "stieglitz"}).content.decode()
    assert "Einkommensteuerbescheid <mark>Stieglitz</mark> 2024" in section(html, "documents")


def test_a_meaningful_file_name_stays(web, media_root):
    DocumentFactory(
        title="Vertrag Stieglitz.pdf", folder=FolderFactory(name="Kanzlei"), extracted_text="Stieglitz"
    )
    html = web.get(SEARCH, {"q": "stieglitz"}).content.decode()
    assert "Vertrag <mark>Stieglitz</mark>.pdf" in html


def test_document_and_calendar_hits_cost_the_same_queries_for_more_rows(web, ben, media_root, monkeypatch):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.documents import search as document_search

    monkeypatch.setattr(document_search, "_ranked", lambda principal, words, limit: [])
    folder = FolderFactory(name="Kanzlei")

    def add(n: int) -> None:
        for i in range(n):
            DocumentFactory(title=f"scan{i:03}.pdf", folder=folder, extracted_text=f"Wachtel Bescheid {i}")
            frist(f"Wachtel Frist {i}", timezone.localdate(), responsible=ben)
            appointment(f"Wachtel Termin {i}", owner=ben)

    def count() -> int:
        web.get(SEARCH, {"q": "wachtel"})  # warm the navigation badges after the writes
        with CaptureQueriesContext(connection) as ctx:
            html = web.get(SEARCH, {"q": "wachtel"}).content.decode()
        assert "<mark>Wachtel</mark> Bescheid" in html
        return len(ctx.captured_queries)

    add(1)
    few = count()
    add(7)
    assert count() == few
