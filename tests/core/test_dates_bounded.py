"""One bound for every date a caller sends (issue 25, item 3): a year outside 1900–2200 is a field
error `date_out_of_range` on REST (400), tools (`ok: false`, `invalid_arguments`), page forms and
query strings; a row stored before the bound (year 9999) renders as broken, never as a 500."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.db import DatabaseCache
from django.urls import reverse
from rest_framework.test import APIClient

from apps.apikeys import services as apikeys
from apps.calendar.contracts import EventCreate
from apps.calendar.models import CalendarEvent
from apps.core import validation
from apps.core.errors import DateOutOfRange
from apps.core.inputs import build
from apps.core.origin import Origin
from apps.memory import services as memory
from apps.memory.contracts import MemoryStore
from apps.memory.models import Memory
from apps.tasks.models import Board, Task
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db

# Year 9999 (the reported one), just outside both ends, and year 1 (parseable, far out).
BAD_DAYS = ["9999-12-31", "1899-12-31", "2201-01-01", "0001-01-01"]
BAD_MOMENTS = ["9999-12-31T23:59:59Z", "1899-12-31T12:00:00+01:00", "0001-01-01T00:00:00Z"]
YEAR_9999 = dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def _fresh_rate_limits(settings):
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}
    if isinstance(caches["default"], DatabaseCache):
        cache.clear()


@pytest.fixture
def device(anna):
    """Anna's phone: a device token acts as her on every REST endpoint."""
    _, token = apikeys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def memory_key(as_boss):
    _, plaintext = apikeys.create_api_key(as_boss, name="Agent", scopes=["memory:write"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return client


@pytest.fixture
def board(db):
    return Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)


def refused_rest(response, field: str) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid_request"
    assert field in body["details"]["field_errors"]
    assert body["details"]["field_codes"][field] == "date_out_of_range"
    assert "1900" in body["details"]["field_errors"][field]


def refused_tool(result, field: str) -> None:
    assert not result.ok and result.code == "invalid_arguments", (result.code, result.message)
    assert {"field": field, "type": "date_out_of_range"} in [
        {"field": e["field"], "type": e["type"]} for e in result.output["field_errors"]
    ], result.output


# --- the bound itself -------------------------------------------------------------------------
def test_the_bound_is_inclusive_at_both_ends():
    assert validation.in_range(dt.date(1900, 1, 1), "d") == dt.date(1900, 1, 1)
    assert validation.in_range(dt.datetime(2200, 12, 31, 23, 59), "d").year == 2200
    for day in (dt.date(1899, 12, 31), dt.date(2201, 1, 1), dt.date(9999, 12, 31), dt.date(1, 1, 1)):
        with pytest.raises(DateOutOfRange) as exc:
            validation.in_range(day, "due_date")
        assert exc.value.code == "date_out_of_range" and "due_date" in exc.value.field_errors


def test_the_schema_tells_clients_and_the_model_the_bound():
    from apps.tools import registry

    schema = registry.get("aufgaben_create_task").schema["properties"]["due_date"]
    pattern = next(s for s in schema["anyOf"] if s.get("type") == "string")["pattern"]
    import re

    assert re.match(pattern, "2026-01-01") and re.match(pattern, "2200-12-31")
    assert not re.match(pattern, "9999-12-31") and not re.match(pattern, "1899-01-01")


# --- memory: REST, tool, service --------------------------------------------------------------
@pytest.mark.parametrize("moment", BAD_MOMENTS)
def test_rest_memory_store_refuses_a_validity_out_of_range(memory_key, moment):
    response = memory_key.post(
        "/api/v1/memory", {"text": "Das Büro ist zu.", "valid_until": moment}, format="json"
    )
    refused_rest(response, "valid_until")
    assert not Memory.objects.exists()


@pytest.mark.parametrize("moment", BAD_MOMENTS)
def test_tool_memory_store_refuses_a_validity_out_of_range(anna_ctx, moment):
    result = dispatch("memory_store", {"text": "Das Büro ist zu.", "valid_from": moment}, anna_ctx)
    refused_tool(result, "valid_from")
    assert not Memory.objects.exists()


def test_the_memory_service_refuses_it_for_internal_callers(as_anna):
    with pytest.raises(DateOutOfRange):
        memory.store(as_anna, build(MemoryStore, text="Das Büro ist zu.", valid_until=YEAR_9999))
    assert not Memory.objects.exists()


# --- deadlines: REST, tool, working day -------------------------------------------------------
@pytest.mark.parametrize("day", BAD_DAYS)
def test_rest_deadline_compute_refuses_a_trigger_out_of_range(device, day):
    response = device.post(
        "/api/v1/deadlines/compute", {"trigger_date": day, "amount": 1, "unit": "months"}, format="json"
    )
    refused_rest(response, "trigger_date")


def test_rest_working_day_refuses_a_day_out_of_range(device):
    refused_rest(device.get("/api/v1/deadlines/working-day", {"date": "9999-12-31"}), "date")


@pytest.mark.parametrize("day", BAD_DAYS)
def test_tool_compute_deadline_refuses_a_trigger_out_of_range(anna_ctx, day):
    args = {"trigger_date": day, "amount": 1, "unit": "years"}
    refused_tool(dispatch("calendar_compute_deadline", args, anna_ctx), "trigger_date")


def test_a_deadline_at_the_end_of_the_bound_is_computed(anna_ctx):
    result = dispatch(
        "calendar_compute_deadline", {"trigger_date": "2200-12-31", "amount": 10, "unit": "years"}, anna_ctx
    )
    assert result.ok, result.message
    assert result.output["deadline"]["end"][:4] in ("2210", "2211")  # ten years on, no overflow


# --- calendar: REST, tool, the month page, the Fristen page, the Fristenbuch export --------------
@pytest.mark.parametrize("moment", ["9999-12-31T10:00:00+01:00", "9999-12-31", "1899-06-01T09:00"])
def test_rest_event_create_refuses_a_start_out_of_range(device, moment):
    response = device.post("/api/v1/calendar/events", {"title": "Termin", "start": moment}, format="json")
    refused_rest(response, "start")
    assert not CalendarEvent.objects.exists()


def test_rest_event_filters_refuse_days_out_of_range(device):
    refused_rest(device.get("/api/v1/calendar/events", {"start": "9999-12-01T00:00:00Z"}), "start")
    refused_rest(device.get("/api/v1/calendar/deadlines", {"due_to": "9999-12-31"}), "due_to")


def test_tool_event_create_refuses_dates_out_of_range(anna_ctx):
    result = dispatch(
        "calendar_create_event", {"title": "Termin", "start": "9999-12-31T10:00:00+01:00"}, anna_ctx
    )
    refused_tool(result, "start")
    frist = {
        "title": "Einspruch",
        "kind": "deadline",
        "start": "2026-03-02",
        "all_day": True,
        "trigger_date": "0001-01-01",
    }
    refused_tool(dispatch("calendar_create_event", frist, anna_ctx), "trigger_date")
    pre = {**frist, "trigger_date": None, "pre_deadlines": [{"due_date": "1899-12-31"}]}
    refused_tool(dispatch("calendar_create_event", pre, anna_ctx), "pre_deadlines.0.due_date")
    assert not CalendarEvent.objects.exists()


def test_the_calendar_service_refuses_it_for_internal_callers(as_anna):
    from apps.calendar import services as calendar

    with pytest.raises(DateOutOfRange) as exc:
        calendar.create_event(as_anna, build(EventCreate, title="Termin", start="9999-12-31T23:00:00"))
    assert "start" in exc.value.field_errors


def test_fristenbuch_export_answers_400_for_a_day_out_of_range(web):
    url = reverse("calendar:fristenbuch-export", args=["csv"])
    for params in (
        {"since": "9999-01-01"},
        {"since": "9999-12-01", "until": "9999-12-31"},
        {"until": "0001-01-01"},
    ):
        response = web.get(url, params)
        assert response.status_code == 400, (params, response.status_code)
        assert response.json()["code"] == "date_out_of_range"
    assert web.get(url, {"since": "2026-01-01", "until": "2026-01-31"}).status_code == 200


def test_calendar_pages_show_the_bound_instead_of_failing(web):
    month = web.get(reverse("calendar:index"), {"month": "9999-12"})
    assert month.status_code == 200
    assert any("1900" in str(m) for m in month.context["messages"])
    assert web.get(reverse("calendar:agenda"), {"from": "9999-12-31"}).status_code == 200
    fristen = web.get(reverse("calendar:deadlines"), {"from": "9999-01-01", "to": "9999-12-31"})
    assert fristen.status_code == 200 and any("1900" in str(m) for m in fristen.context["messages"])


# --- tasks: REST, tool, the page form ---------------------------------------------------------
@pytest.mark.parametrize("day", BAD_DAYS)
def test_rest_task_create_refuses_a_due_date_out_of_range(device, board, day):
    response = device.post(
        "/api/v1/tasks/", {"title": "x", "board_id": board.pk, "due_date": day}, format="json"
    )
    refused_rest(response, "due_date")
    assert not Task.objects.exists()


def test_tool_task_create_and_filter_refuse_days_out_of_range(anna_ctx, board):
    refused_tool(
        dispatch("aufgaben_create_task", {"title": "x", "due_date": "9999-12-31"}, anna_ctx), "due_date"
    )
    refused_tool(
        dispatch("aufgaben_create_task", {"title": "x", "follow_up_date": "1899-12-31"}, anna_ctx),
        "follow_up_date",
    )
    assert not Task.objects.exists()


def test_task_page_form_shows_a_field_error(web, board, statuses):
    task = Task.objects.create(title="Bleibt", board=board, status=statuses["offen"])
    form = {
        "title": "Bleibt",
        "base_title": "Bleibt",
        "status": statuses["offen"].pk,
        "board": board.pk,
        "priority": "normal",
        "due_date": "9999-12-31",
        "base_due_date": "",
    }
    response = web.post(reverse("tasks:detail", args=[task.pk]), form)
    assert response.status_code == 200
    assert response.context["form"].has_error("due_date", code="date_out_of_range")
    task.refresh_from_db()
    assert task.due_date is None
    page = web.get(reverse("tasks:detail", args=[task.pk])).content.decode()
    assert 'min="1900-01-01"' in page and 'max="2200-12-31"' in page


# --- a stored year-9999 row renders as broken -------------------------------------------------
@pytest.fixture
def broken_memories(as_anna):
    """Rows an office stored before the bound: a shared fact waiting for review and a personal one."""
    pending = memory.store(
        as_anna,
        build(MemoryStore, text="Der Drucker im 2. OG ist kaputt."),
        origin=Origin(surface="agent", run_id="1"),
    ).memory
    personal = memory.store(
        as_anna, build(MemoryStore, text="Ich mag kurze Antworten.", scope="personal")
    ).memory
    fine = memory.store(
        as_anna,
        build(MemoryStore, text="Der Kopierer im 1. OG geht wieder."),
        origin=Origin(surface="agent", run_id="1"),
    ).memory
    Memory.objects.filter(pk__in=[pending.pk, personal.pk]).update(valid_until=YEAR_9999)
    Memory.objects.filter(pk=fine.pk).update(valid_until=dt.datetime(2030, 6, 30, 12, tzinfo=dt.UTC))
    Memory.objects.update(checking=False)
    return pending, personal


def test_the_review_queue_renders_a_year_9999_row_as_broken(client, boss, broken_memories):
    client.force_login(boss)
    response = client.get(reverse("review:queue"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Der Drucker im 2. OG ist kaputt." in page and "Der Kopierer im 1. OG geht wieder." in page
    assert page.count('class="date-broken"') == 1 and "ungültiges Datum" in page
    assert "30.06.2030" in page  # a sound date still shows as before


def test_my_memory_page_renders_a_year_9999_row_as_broken(client, anna, broken_memories):
    client.force_login(anna)
    response = client.get(reverse("memory:index"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Ich mag kurze Antworten." in page and 'class="date-broken"' in page
    assert client.get(reverse("memory:export-json")).status_code == 200
    assert client.get(reverse("memory:export-csv")).status_code == 200


def test_the_filter_shows_sound_dates_like_date_and_broken_ones_marked():
    from django.utils import timezone, translation

    from apps.core.templatetags.dates import shown_date

    with timezone.override("Europe/Berlin"), translation.override("de"):
        assert shown_date(dt.datetime(2026, 12, 31, 23, 30, tzinfo=dt.UTC), "d.m.Y") == "01.01.2027"
        assert shown_date(dt.date(2026, 3, 2), "d.m.Y") == "02.03.2026"
        assert "ungültiges Datum" in shown_date(YEAR_9999, "d.m.Y")
        assert "ungültiges Datum" in shown_date(dt.date(1, 1, 1), "d.m.Y")
        assert shown_date(None, "d.m.Y") == ""


def test_a_stored_frist_at_the_end_of_year_9999_renders_on_every_calendar_surface(web, device, anna):
    """23:30 UTC on 9999-12-31 is past the calendar's end in Berlin: the records and pages show it
    in UTC instead of failing the Fristen list, the entry's page and the REST answers."""
    end = dt.datetime(9999, 12, 31, 23, 30, tzinfo=dt.UTC)
    frist = CalendarEvent.objects.create(
        title="Ewige Frist", kind="deadline", start=end, end=end, owner=anna, responsible=anna,
        time_zone="Europe/Berlin", created_by=anna,
    )  # fmt: skip
    page = web.get(reverse("calendar:deadlines"))
    assert page.status_code == 200 and "Ewige Frist" in page.content.decode()
    assert web.get(reverse("calendar:detail", args=[frist.pk])).status_code == 200
    listed = device.get("/api/v1/calendar/deadlines")
    assert listed.status_code == 200 and listed.json()["deadlines"][0]["start"].startswith("9999-12-31T23:30")
    assert device.get(f"/api/v1/calendar/events/{frist.pk}").status_code == 200


def test_moving_an_entry_towards_year_9999_is_refused(web, as_anna):
    from apps.calendar import services as calendar

    event = calendar.create_event(
        as_anna, build(EventCreate, title="Termin", start="2026-03-02T10:00:00+01:00")
    )
    url = reverse("calendar:move", args=[event.pk])
    moved = web.post(url, {"from_date": "2026-03-02", "to_date": "9999-12-31"})
    assert moved.status_code == 400 and moved.json()["code"] == "date_out_of_range"
    event.refresh_from_db()
    assert event.start.year == 2026


def test_calendar_page_form_shows_a_field_error_for_year_9999(web):
    form = {"title": "Finanzamt", "kind": "event", "start": "9999-12-31T09:00", "visibility": "shared",
            "criticality": "normal", "repeat": "daily", "repeat_until": "9999-12-31"}  # fmt: skip
    response = web.post(reverse("calendar:create"), form)
    assert response.status_code == 200
    assert response.context["form"].has_error("repeat_until", code="date_out_of_range")
    response = web.post(reverse("calendar:create"), {**form, "repeat": "none", "repeat_until": ""})
    assert response.status_code == 200 and "1900" in str(response.context["form"].errors["start"])
    assert not CalendarEvent.objects.exists()
    page = web.get(reverse("calendar:create")).content.decode()
    assert 'max="2200-12-31T23:59"' in page


def test_the_admin_opens_a_year_9999_memory_and_refuses_a_new_one(client, boss, broken_memories):
    pending, _personal = broken_memories
    client.force_login(boss)
    url = reverse("admin:memory_memory_change", args=[pending.pk])
    page = client.get(url)
    assert page.status_code == 200 and "31.12.9999" in page.content.decode()  # shown in UTC
    form = {"text": pending.text, "kind": "fact", "valid_from_0": "", "valid_from_1": "",
            "valid_until_0": "31.12.9999", "valid_until_1": "12:00:00"}  # fmt: skip
    for prefix in ("sources", "revisions"):
        form |= {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}
    refused = client.post(url, form)
    assert refused.status_code == 200
    assert refused.context["adminform"].form.has_error("valid_until", code="date_out_of_range")


def test_note_attachment_times_are_bounded_in_the_contract_and_the_service():
    from pydantic import ValidationError

    from apps.notes import attachments
    from apps.notes.contracts import NoteAudioIn

    item = {"id": "a1", "title": "Diktat", "created_at": "9999-12-31T23:59:59Z"}
    with pytest.raises(ValidationError) as exc:
        NoteAudioIn.model_validate(item)
    assert [e["type"] for e in exc.value.errors()] == ["date_out_of_range"]
    with pytest.raises(DateOutOfRange) as refused:
        attachments.audio_attachments([item])
    assert list(refused.value.field_errors) == ["audio_attachments[0].created_at"]
    fine = attachments.audio_attachments([{**item, "created_at": "2026-03-02T09:30:00Z"}])
    assert fine[0]["created_at"] == "2026-03-02T09:30:00+00:00"


def _date_fields(schema, path=""):
    """(path, node) of every date or date-time string in a JSON schema."""
    if isinstance(schema, dict):
        if schema.get("format") in ("date", "date-time"):
            yield path, schema
        for key, value in schema.items():
            yield from _date_fields(value, f"{path}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            yield from _date_fields(value, f"{path}/{i}")


def test_every_input_model_bounds_its_dates():
    """No input model of any app (tools, REST bodies and queries, forms) takes a date or moment
    without the bound: each one's schema carries the year pattern of `Date` / `DateTime`."""
    import importlib

    from django.apps import apps
    from django.utils.module_loading import module_has_submodule

    from apps.core.contracts import Input

    for config in apps.get_app_configs():
        for module in ("contracts", "tools", "api", "forms"):
            if config.name.startswith("apps.") and module_has_submodule(config.module, module):
                importlib.import_module(f"{config.name}.{module}")

    def every(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from every(sub)

    unbounded, checked = [], 0
    for model in set(every(Input)):
        if not model.__module__.startswith("apps."):
            continue
        for path, node in _date_fields(model.model_json_schema()):
            checked += 1
            if "pattern" not in node:
                unbounded.append(f"{model.__module__}.{model.__name__}{path}")
    assert not unbounded, unbounded
    assert checked >= 20


def test_the_calendar_admin_lists_a_stored_year_9999_entry(admin_client, anna):
    """The admin's list of calendar entries has no date hierarchy (its year links are computed in
    the viewer's zone by the database, and year 10000 overflowed into a 500 for the whole list);
    its date filter offers fixed ranges instead. The list and the change page show the moment as
    broken instead of failing."""
    end = dt.datetime(9999, 12, 31, 23, 30, tzinfo=dt.UTC)
    CalendarEvent.objects.create(
        title="Ewige Frist", kind="deadline", start=end, end=end, owner=anna, responsible=anna,
        time_zone="Europe/Berlin", created_by=anna,
    )  # fmt: skip
    listed = admin_client.get(reverse("admin:office_calendar_calendarevent_changelist"))
    assert listed.status_code == 200 and "Ewige Frist" in listed.content.decode()
    frist = CalendarEvent.objects.get(title="Ewige Frist")
    opened = admin_client.get(reverse("admin:office_calendar_calendarevent_change", args=[frist.pk]))
    assert opened.status_code == 200 and "Ewige Frist" in opened.content.decode()
