"""Stored XSS (issue 15, defect 2): a link a person, a client or the model stores is one of
http(s), mailto or a path on this server, on every surface (REST, tool, page form, service), and
a page never renders any other href, even for rows stored before the check existed."""

import datetime as dt

import pytest
from django.core.cache import cache
from django.template import Context, Template
from django.urls import reverse
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.calendar.models import CalendarEvent
from apps.core import errors, validation
from apps.core.inputs import build
from apps.llm import markdown
from apps.tasks import services as task_services
from apps.tasks.contracts import TaskCreate
from apps.tasks.models import Board, Task
from apps.tools.dispatcher import dispatch

ATTACKS = [
    "javascript:alert(document.cookie)",
    "JaVaScRiPt:alert(1)",
    "  javascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "\x00javascript:alert(1)",
    "javascript&colon;alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "DATA:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "//evil.example/x",
    "/\\evil.example/x",
    "\\\\evil.example",
    "https:evil.example",
    "http://",
    "https://exa mple.com/\x7f",
    "https://" + "a" * 3000 + ".example",
]
SAFE = [
    "https://www.elster.de/eportal/start",
    "http://intranet.kanzlei.example/akte?id=7#x",
    "HTTPS://EXAMPLE.COM/",
    "mailto:anna@kanzlei.example?subject=Frist",
    "/dokumente/12/",
    "/aufgaben/?q=meier",
    "#kommentare",
    "?page=2",
    "",
]


@pytest.mark.parametrize("value", ATTACKS)
def test_unsafe_urls_are_refused(value):
    assert not validation.is_safe_url(value)
    with pytest.raises(errors.InvalidUrl) as exc:
        validation.url(value, "link")
    assert exc.value.code == "invalid_url" and "link" in exc.value.field_errors


@pytest.mark.parametrize("value", SAFE)
def test_safe_urls_pass_unchanged(value):
    assert validation.is_safe_url(value)
    assert validation.url(value, "link") == value.strip()


def test_invalid_url_is_in_the_error_catalog_with_a_german_message():
    errors.load_all()
    assert "invalid_url" in {row["code"] for row in errors.catalog()}
    from django.utils import translation

    with translation.override("de"), pytest.raises(errors.InvalidUrl) as exc:
        validation.url("javascript:alert(1)", "source_url")
    assert "Webadresse" in exc.value.message


# --- Aufgaben: REST, tool, service, page ------------------------------------------------------
@pytest.fixture
def board(db, statuses):
    return Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)


@pytest.fixture
def api(anna):
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.mark.django_db
def test_rest_refuses_a_javascript_source_url(api, board):
    response = api.post(
        "/api/v1/tasks/",
        {"title": "x", "board_id": board.pk, "source_url": "javascript:alert(document.cookie)"},
        format="json",
    )
    assert response.status_code == 400, response.content
    body = response.json()
    assert "source_url" in body["details"]["field_errors"]
    assert not Task.objects.exists()
    ok = api.post(
        "/api/v1/tasks/",
        {"title": "x", "board_id": board.pk, "source_url": "https://www.elster.de/"},
        format="json",
    )
    assert ok.status_code == 201 and ok.json()["task"]["source_url"] == "https://www.elster.de/"


@pytest.mark.django_db
def test_tool_refuses_a_javascript_source_url(anna_ctx, board):
    result = dispatch(
        "aufgaben_create_task", {"title": "x", "source_url": "javascript:alert(document.cookie)"}, anna_ctx
    )
    assert not result.ok and result.code == "invalid_arguments"
    assert [e["type"] for e in result.output["field_errors"] if e["field"] == "source_url"] == ["invalid_url"]
    assert not Task.objects.exists()


@pytest.mark.django_db
def test_service_refuses_a_javascript_source_url(as_anna, board):
    with pytest.raises(errors.InvalidUrl):
        task_services.create_task(
            as_anna, build(TaskCreate, title="x", board_id=board.pk, source_url="data:text/html,<b>")
        )
    assert not Task.objects.exists()


@pytest.mark.django_db
def test_task_page_never_renders_a_stored_javascript_link(web, board, statuses):
    bad = Task.objects.create(
        title="alt", board=board, status=statuses["offen"], source_url="javascript:alert(document.cookie)"
    )
    good = Task.objects.create(
        title="gut", board=board, status=statuses["offen"], source_url="https://www.elster.de/"
    )
    assert "javascript:" not in " ".join(_links(web.get(reverse("tasks:detail", args=[bad.pk])))).lower()
    assert "https://www.elster.de/" in _links(web.get(reverse("tasks:detail", args=[good.pk])))


# --- Kalender: form, REST, stored rows --------------------------------------------------------
@pytest.mark.django_db
def test_calendar_form_and_rest_refuse_a_javascript_conference_link(web, api):
    form = {"title": "Termin", "kind": "event", "start": "2026-12-03T09:00", "end": "2026-12-03T10:00",
            "visibility": "shared", "criticality": "normal", "conference_url": "javascript:alert(1)"}  # fmt: skip
    page = web.post(reverse("calendar:create"), form)
    assert page.status_code == 200 and 'class="error"' in page.content.decode()
    rest = api.post(
        "/api/v1/calendar/events",
        {"title": "T", "start": "2026-12-03T09:00:00+01:00", "conference_url": "javascript:alert(1)"},
        format="json",
    )
    assert rest.status_code == 400 and "conference_url" in rest.json()["details"]["field_errors"]
    assert not CalendarEvent.objects.exists()


@pytest.mark.django_db
def test_calendar_pages_never_render_a_stored_javascript_link(web, anna):
    start = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
    event = CalendarEvent.objects.create(
        title="Call", start=start, end=start + dt.timedelta(hours=1), owner=anna,
        conference_url="javascript:alert(document.cookie)",
    )  # fmt: skip
    for url in (reverse("calendar:detail", args=[event.pk]), reverse("calendar:agenda")):
        response = web.get(url)
        assert "Call" in response.content.decode(), url
        assert all(validation.is_safe_url(link) for link in _links(response)), (url, _links(response))


@pytest.mark.django_db
def test_note_page_never_renders_a_stored_javascript_asset_link(web, anna):
    from tests.notes.factories import NoteFactory, NotePageFactory

    note = NoteFactory(name="Notiz", owner=anna)
    NotePageFactory(
        note=note,
        asset_items=[
            {"id": "a", "kind": "link", "title": "Böse", "url": "javascript:alert(document.cookie)"},
            {"id": "b", "kind": "link", "title": "Gut", "url": "https://www.elster.de/"},
        ],
    )
    response = web.get(reverse("notes:note", args=[note.pk]))
    body = response.content.decode()
    assert "Böse" in body and "https://www.elster.de/" in _links(response)
    assert all(validation.is_safe_url(link) for link in _links(response)), _links(response)


# --- rendering guard and the Markdown renderer ------------------------------------------------
@pytest.mark.parametrize("value", ATTACKS)
def test_safe_href_filter_drops_unsafe_values(value):
    out = Template("{% load safe_urls %}[{{ value|safe_href }}]").render(Context({"value": value}))
    assert out == "[]"


def test_safe_href_filter_keeps_safe_values():
    out = Template("{% load safe_urls %}{{ value|safe_href }}").render(Context({"value": "/a/?b=1&c=2"}))
    assert out == "/a/?b=1&amp;c=2"


@pytest.mark.parametrize(
    "source",
    [
        "[klick](javascript:alert(1))",
        "[klick](data:text/html,<script>alert(1)</script>)",
        '<a href="javascript:alert(1)">x</a>',
        '[x](https://a.example/"onclick="alert(1))',
        "[x](https://a.example/) <img src=x onerror=alert(1)>",
    ],
)
def test_markdown_renderer_drops_script_links(source):
    tags = _tags(markdown.render(source))
    hrefs = [dict(attrs).get("href", "") for tag, attrs in tags if tag == "a"]
    assert all(validation.is_safe_url(h) and h.startswith("https://") for h in hrefs), hrefs
    assert all(name in {"href", "title", "rel"} for _, attrs in tags for name, _ in attrs), tags
    assert "img" not in {tag for tag, _ in tags}


def _links(response):
    """Every href, src, action and formaction of a page."""
    names = {"href", "src", "action", "formaction"}
    return [v or "" for _, attrs in _tags(response.content.decode()) for k, v in attrs if k in names]


def _tags(html):
    from html.parser import HTMLParser

    found = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, attrs))

    Collect().feed(html)
    return found
