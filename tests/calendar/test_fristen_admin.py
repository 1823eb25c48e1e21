"""The admin: Fristen cannot be deleted there either; its filter lists open Fristen whose
responsible person was deactivated, until they are reassigned."""

import datetime as dt

import pytest
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.contracts import EventCreate, EventUpdate
from apps.calendar.models import CalendarEvent
from apps.core.inputs import build
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def frist(anna):
    leaving = UserFactory(full_name="Lena Weg")
    day = dt.date.today() + dt.timedelta(days=20)
    event = services.create_event(
        Principal.for_user(anna),
        build(
            EventCreate,
            title="verwaiste Frist",
            kind="deadline",
            start=day.isoformat(),
            responsible_id=leaving.pk,
        ),
    )
    leaving.is_active = False
    leaving.save()
    return event


def test_admin_refuses_deleting_a_frist(client, admin_user, frist):
    client.force_login(admin_user)
    delete = client.post(
        reverse("admin:office_calendar_calendarevent_delete", args=[frist.pk]), {"post": "yes"}
    )
    assert delete.status_code == 403 and CalendarEvent.objects.filter(pk=frist.pk).exists()


def test_admin_filter_lists_fristen_without_active_responsible(client, admin_user, anna, frist):
    client.force_login(admin_user)
    url = reverse("admin:office_calendar_calendarevent_changelist")
    listed = client.get(url, {"responsible_gone": "1"})
    assert listed.status_code == 200 and [e.pk for e in listed.context["cl"].result_list] == [frist.pk]
    services.update_event(
        Principal.for_user(anna), frist.pk, build(EventUpdate, **{"responsible_id": anna.pk})
    )
    assert list(client.get(url, {"responsible_gone": "1"}).context["cl"].result_list) == []
    history = client.get(reverse("admin:office_calendar_deadlinechange_changelist"))
    assert history.status_code == 200
