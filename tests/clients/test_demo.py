"""The demo office gets clients with client numbers and a few cases."""

import pytest
from django.core.management import call_command

from apps.clients.models import Case, Client

pytestmark = pytest.mark.django_db


def test_bootstrap_loads_the_clients_demo(settings):
    settings.CLAPILOT_ADMIN_EMAIL = "chef@kanzlei.example"
    settings.CLAPILOT_ADMIN_PASSWORD = "a-long-configured-secret"
    settings.CLAPILOT_DEMO_DATA = True
    call_command("bootstrap")
    assert Client.objects.count() >= 8
    assert Client.objects.filter(name="Bäckerei Schulz GmbH", client_number="10002").exists()
    assert Case.objects.filter(client__name="Schreinerei Vogel").count() == 2
