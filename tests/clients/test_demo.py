"""The demo office gets clients with client numbers and a few cases."""

import pytest
from django.core.management import call_command

from apps.clients.models import Case, Client
from apps.core.services import get_setting

pytestmark = pytest.mark.django_db


def test_bootstrap_loads_the_clients_demo(settings):
    settings.CLAPILOT_ADMIN_EMAIL = "chef@kanzlei.example"
    settings.CLAPILOT_ADMIN_PASSWORD = "a-long-configured-secret"
    settings.CLAPILOT_DEMO_DATA = True
    call_command("bootstrap")
    assert Client.objects.count() >= 8
    assert Client.objects.filter(name="Bäckerei Schulz GmbH", client_number="10002").exists()
    assert Case.objects.filter(client__name="Schreinerei Vogel").count() == 2
    assert get_setting("office_name") == "Kanzlei Berger & Partner"  # for the reports' header
    assert "München" in get_setting("office_address")


def test_demo_tasks_and_calendar_link_the_demo_clients(settings):
    from apps.calendar.models import CalendarEvent
    from apps.tasks.models import Task

    settings.CLAPILOT_ADMIN_EMAIL = "chef@kanzlei.example"
    settings.CLAPILOT_ADMIN_PASSWORD = "a-long-configured-secret"
    settings.CLAPILOT_DEMO_DATA = True
    call_command("bootstrap")
    call_command("bootstrap")  # a second start loads nothing twice
    assert Client.objects.filter(client_number="10003").count() == 1
    meier = Client.objects.get(client_number="10003")
    assert Task.objects.filter(client=meier, title__contains="Einspruch").exists()
    assert CalendarEvent.objects.filter(client=meier, kind="deadline", criticality="critical").exists()
    assert CalendarEvent.objects.filter(client=meier, kind="event").exists()
    assert Task.objects.filter(client__isnull=False).count() >= 7
    assert CalendarEvent.objects.filter(client__isnull=False).count() >= 10


def test_the_demo_case_is_linked_to_its_own_frist_task_and_document(settings):
    from apps.calendar.models import CalendarEvent
    from apps.documents.models import Document
    from apps.tasks.models import Task

    settings.CLAPILOT_ADMIN_EMAIL = "chef@kanzlei.example"
    settings.CLAPILOT_ADMIN_PASSWORD = "a-long-configured-secret"
    settings.CLAPILOT_DEMO_DATA = True
    call_command("bootstrap")
    case = Case.objects.get(reference="2026-0003")
    assert (
        CalendarEvent.objects.filter(case=case, kind="deadline", title__contains="Einspruchsfrist").count()
        == 1
    )
    assert Task.objects.filter(case=case, title__contains="Einspruch").count() == 1
    assert Document.objects.filter(case=case, title="Aktennotiz Einspruch KSt 2023").count() == 1
