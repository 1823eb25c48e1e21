import pytest
from django.core import mail
from django.urls import reverse

from apps.accounts.models import User
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def test_login_page_is_german_by_default(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert "Anmelden" in response.content.decode()


def test_login_with_email_and_password_then_dashboard(client):
    user = UserFactory(email="anna@kanzlei.example")
    response = client.post(reverse("login"), {"username": "ANNA@kanzlei.example", "password": PASSWORD})
    assert response.status_code == 302
    page = client.get(reverse("dashboard"))
    assert page.status_code == 200
    body = page.content.decode()
    assert user.get_short_name() in body
    assert "Aufgaben" in body and "Mandanten" in body  # navigation, German


def test_wrong_password_shows_one_clear_error(client):
    UserFactory(email="anna@kanzlei.example")
    response = client.post(reverse("login"), {"username": "anna@kanzlei.example", "password": "nope"})
    assert response.status_code == 200
    assert 'role="alert"' in response.content.decode()


def test_dashboard_requires_login(client):
    response = client.get(reverse("dashboard"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_settings_save_language_and_time_zone(web, user):
    response = web.post(reverse("settings"), {"language": "en", "time_zone": "America/New_York"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.language, user.time_zone) == ("en", "America/New_York")
    assert "Settings" in web.get(reverse("settings")).content.decode()


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_settings_reject_unknown_time_zone_and_keep_old_values(web, user):
    response = web.post(reverse("settings"), {"language": "en", "time_zone": "Mars/Olympus"})
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.time_zone == "Europe/Berlin"


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_language_switch_stores_the_choice_in_the_profile(web, user):
    response = web.post(reverse("switch-language"), {"language": "it", "next": "/settings/"})
    assert response.status_code == 302 and response["Location"] == "/settings/"
    user.refresh_from_db()
    assert user.language == "it"
    assert "Impostazioni" in web.get(reverse("dashboard")).content.decode()


def test_language_switch_refuses_foreign_redirects(web):
    response = web.post(reverse("switch-language"), {"language": "de", "next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_password_reset_sends_a_link(client):
    UserFactory(email="anna@kanzlei.example")
    response = client.post(reverse("password_reset"), {"email": "anna@kanzlei.example"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert "/accounts/reset/" in mail.outbox[0].body


def test_admin_is_for_the_admin_role_only(client):
    staff = UserFactory()
    client.force_login(staff)
    assert client.get("/admin/").status_code == 302
    admin = User.objects.create_superuser("chef@kanzlei.example", PASSWORD)
    client.force_login(admin)
    page = client.get("/admin/")
    assert page.status_code == 200
    for path in (
        "/admin/accounts/user/",
        "/admin/accounts/serviceprincipal/",
        "/admin/django_celery_beat/periodictask/",
    ):
        assert client.get(path).status_code == 200, path
