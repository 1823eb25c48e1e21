import pytest
from django.core.management import call_command

from apps.accounts.models import ServicePrincipal, User

pytestmark = pytest.mark.django_db


def test_first_start_creates_admin_demo_office_and_schedule(settings, capsys):
    settings.CLAPILOT_ADMIN_EMAIL = "Chef@Kanzlei.example"
    settings.CLAPILOT_ADMIN_PASSWORD = ""
    settings.CLAPILOT_DEMO_DATA = True
    call_command("bootstrap")
    out = capsys.readouterr().out
    admin = User.objects.get(email="chef@kanzlei.example")
    assert admin.is_admin and admin.is_superuser
    password = next(line.split()[1] for line in out.splitlines() if "password:" in line)
    assert admin.check_password(password)
    assert User.objects.filter(role="staff").count() == 4
    assert ServicePrincipal.objects.filter(kind="team_room").exists()

    call_command("bootstrap")  # a second start changes nothing and prints no password
    out = capsys.readouterr().out
    assert "password:" not in out
    assert User.objects.count() == 5


def test_configured_password_and_empty_instance(settings):
    settings.CLAPILOT_ADMIN_EMAIL = "boss@kanzlei.example"
    settings.CLAPILOT_ADMIN_PASSWORD = "a-long-configured-secret"
    settings.CLAPILOT_DEMO_DATA = False
    call_command("bootstrap")
    assert User.objects.get().check_password("a-long-configured-secret")
    assert not ServicePrincipal.objects.exists()
