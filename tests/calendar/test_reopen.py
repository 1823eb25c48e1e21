"""A done Frist reopened with a reason (recorded in its Fristenbuch), refused without one, on every
surface (service, page, tool, REST); done and cancelled Fristen struck through in the month,
week, agenda and the Fristen list."""

import datetime as dt
from dataclasses import replace

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.calendar import lifecycle, services
from apps.calendar.contracts import DeadlineCancel, DeadlineComplete, DeadlineReopen, EventCreate
from apps.calendar.errors import DeadlineNotClosed, DeadlineReasonRequired, NotADeadline
from apps.calendar.models import CalendarEvent
from apps.core.inputs import build
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db


@pytest.fixture
def due():
    return timezone.localdate() + dt.timedelta(days=10)


@pytest.fixture
def done(as_anna, due):
    frist = services.create_event(
        as_anna,
        build(EventCreate, title="Einspruch Meier", kind="deadline", start=due.isoformat(), all_day=True),
    )
    return lifecycle.complete_deadline(
        as_anna, frist.pk, build(DeadlineComplete, how="Einspruch eingelegt", link="/dokumente/7/")
    )


def _status_lines(event):
    return [(c.old, c.new, c.reason) for c in event.history.filter(field="status").order_by("id")]


def test_reopening_needs_a_reason_and_records_it(as_anna, anna, done):
    for reason in ("", "   "):
        with pytest.raises(DeadlineReasonRequired) as refused:
            lifecycle.reopen_deadline(as_anna, done.pk, build(DeadlineReopen, reason=reason))
        assert refused.value.code == "deadline_reason_required" and "reason" in refused.value.field_errors
    assert CalendarEvent.objects.get(pk=done.pk).status == "done"
    opened = lifecycle.reopen_deadline(
        as_anna,
        done.pk,
        build(DeadlineReopen, reason="Finanzamt hat Einspruch als verfristet zurückgewiesen"),
    )
    assert opened.status == "open" and opened.version == done.version + 1
    assert (opened.done_at, opened.done_by, opened.done_how, opened.done_link) == (None, None, "", "")
    assert _status_lines(opened)[-1] == (
        "done",
        "open",
        "Finanzamt hat Einspruch als verfristet zurückgewiesen",
    )
    assert opened.history.order_by("id").last().actor == anna


def test_only_a_closed_frist_reopens(as_anna, done, due):
    lifecycle.reopen_deadline(as_anna, done.pk, build(DeadlineReopen, reason="zu früh abgehakt"))
    with pytest.raises(DeadlineNotClosed):
        lifecycle.reopen_deadline(as_anna, done.pk, build(DeadlineReopen, reason="nochmal"))
    cancelled = lifecycle.cancel_deadline(
        as_anna, done.pk, build(DeadlineCancel, reason="Bescheid aufgehoben")
    )
    again = lifecycle.reopen_deadline(
        as_anna, cancelled.pk, build(DeadlineReopen, reason="doch nicht aufgehoben")
    )
    assert again.status == "open" and again.cancel_reason == "" and again.cancelled_at is None
    appointment = services.create_event(as_anna, build(EventCreate, title="Termin", start=f"{due}T10:00"))
    with pytest.raises(NotADeadline):
        lifecycle.reopen_deadline(as_anna, appointment.pk, build(DeadlineReopen, reason="x"))


def test_the_stale_version_is_refused(as_anna, done):
    from apps.core.errors import VersionConflict

    with pytest.raises(VersionConflict):
        lifecycle.reopen_deadline(as_anna, done.pk, build(DeadlineReopen, reason="x", expected_version=1))


def test_the_page_reopens_with_a_reason_and_refuses_without(web, done):
    url = reverse("calendar:deadline-reopen", args=[done.pk])
    refused = web.post(url, {"reason": ""}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 422 and refused.context["notice_failed"] is True
    assert "Grund" in refused.context["notice"]  # "a reason is required for the Fristenbuch", in German
    assert CalendarEvent.objects.get(pk=done.pk).status == "done"
    detail = web.get(reverse("calendar:detail", args=[done.pk])).content.decode()
    assert 'id="deadline-reopen"' in detail and url in detail
    reopened = web.post(url, {"reason": "Mandant hat Unterlagen nachgereicht"}, follow=True)
    assert reopened.status_code == 200 and CalendarEvent.objects.get(pk=done.pk).status == "open"
    assert any("wieder offen" in str(m) for m in reopened.context["messages"])


def test_the_tool_and_rest_reopen(anna_ctx, anna, done):
    refused = dispatch("calendar_reopen_deadline", {"event_id": done.pk}, replace(anna_ctx, approved=True))
    assert not refused.ok and refused.code == "deadline_reason_required"
    result = dispatch(
        "calendar_reopen_deadline",
        {"event_id": done.pk, "reason": "zu früh"},
        replace(anna_ctx, approved=True),
    )
    assert (
        result.ok and result.output["event"]["status"] == "open" and result.output["event"]["done_at"] is None
    )
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    url = f"/api/v1/calendar/deadlines/{done.pk}/reopen"
    open_already = api.post(url, {"reason": "x"}, format="json")
    assert open_already.status_code == 409 and open_already.json()["code"] == "deadline_not_closed"
    completed = api.post(f"/api/v1/calendar/deadlines/{done.pk}/complete", {"how": "erledigt"}, format="json")
    assert completed.status_code == 200
    no_reason = api.post(url, {}, format="json")
    assert no_reason.status_code == 400 and no_reason.json()["code"] == "deadline_reason_required"
    ok = api.post(url, {"reason": "Fristverlängerung abgelehnt"}, format="json")
    assert ok.status_code == 200 and ok.json()["event"]["status"] == "open"
    history = api.get(f"/api/v1/calendar/deadlines/{done.pk}/history").json()["history"]
    assert (history[-1]["field"], history[-1]["new"], history[-1]["reason"]) == (
        "status",
        "open",
        "Fristverlängerung abgelehnt",
    )


def test_done_and_cancelled_fristen_are_struck_through_in_every_view(web, as_anna, done, due):
    other = services.create_event(
        as_anna, build(EventCreate, title="Gestrichen", kind="deadline", start=due.isoformat(), all_day=True)
    )
    lifecycle.cancel_deadline(as_anna, other.pk, build(DeadlineCancel, reason="Bescheid aufgehoben"))
    services.create_event(
        as_anna, build(EventCreate, title="Offen", kind="deadline", start=due.isoformat(), all_day=True)
    )
    month = web.get(reverse("calendar:index"), {"month": due.strftime("%Y-%m")}).content.decode()
    grid, phone_agenda = month.split('<div class="cal-month-agenda"')  # the phone's agenda: the same rows
    for part in (grid, phone_agenda):
        assert part.count("is-done") == 1 and part.count("is-cancelled") == 1
    week = web.get(reverse("calendar:week"), {"week": due.isoformat()}).content.decode()
    assert "is-done" in week and "is-cancelled" in week
    agenda = web.get(reverse("calendar:agenda"), {"from": timezone.localdate().isoformat()}).content.decode()
    assert agenda.count("is-done") == 1 and agenda.count("is-cancelled") == 1
    listed = web.get(reverse("calendar:deadlines"), {"status": "all"}).content.decode()
    assert "status-done" in listed and "status-cancelled" in listed
    assert reverse("calendar:deadline-reopen", args=[done.pk]) in listed
