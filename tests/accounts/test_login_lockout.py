"""Brute force on the logins (issue 15, defect 3; issue 25, defect 4): wrong passwords on
/accounts/login/ or /admin/login/ lock that account (from any address) and, counted separately,
the client address (any e-mail), so the right password is refused too until the short cool-off
has passed or an admin lifts the lock — except from a device that signed in to the account before
(its signed cookie). The device-token login counts its own failures and never locks the web login."""

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.utils import timezone

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

WRONG = "falsches-passwort"
ATTEMPTS = 30


@pytest.fixture
def victim(db):
    return UserFactory(email="chefin@kanzlei.example", role="admin", is_superuser=True)


def page_login(client, email, password, *, path="/accounts/login/", **extra):
    return client.post(path, {"username": email, "password": password}, **extra)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def hammer(client, email, path="/accounts/login/", **extra):
    statuses = [page_login(client, email, WRONG, path=path, **extra).status_code for _ in range(ATTEMPTS)]
    return statuses


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_thirty_wrong_passwords_lock_the_account_from_that_address(victim, path, settings):
    attacker = Client()
    statuses = hammer(attacker, victim.email, path)
    assert statuses[0] == 200 and statuses[-1] == 429, statuses
    assert statuses.count(200) == settings.AXES_FAILURE_LIMIT - 1
    locked = page_login(attacker, victim.email, PASSWORD, path=path)
    assert locked.status_code == 429 and not signed_in(attacker)
    body = locked.content.decode()
    assert "Zu viele fehlgeschlagene Anmeldeversuche" in body
    assert locked["Retry-After"] == str(int(settings.AXES_COOLOFF_TIME.total_seconds()))


def test_a_person_typing_their_password_right_is_never_slowed(victim):
    for _ in range(3):
        assert page_login(Client(), victim.email, WRONG).status_code == 200
    person = Client()
    response = page_login(person, victim.email, PASSWORD)
    assert response.status_code == 302 and signed_in(person)
    assert not AccessAttempt.objects.filter(failures_since_start__gt=0).exists()  # reset on success


def test_other_people_at_the_same_address_are_not_locked_out(victim):
    hammer(Client(), victim.email)
    colleague = UserFactory(email="kollege@kanzlei.example")
    same_address = Client()
    assert page_login(same_address, colleague.email, PASSWORD).status_code == 302
    assert signed_in(same_address)


def test_the_lock_counts_the_address_and_the_email_in_any_spelling(victim):
    hammer(Client(), victim.email.upper())
    assert page_login(Client(), f"  {victim.email} ", PASSWORD).status_code == 429


def test_a_forged_forwarded_header_does_not_escape_the_lock_without_a_proxy(victim, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 0}
    guesser = Client()
    for n in range(settings.CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT):
        page_login(guesser, f"raten{n}@kanzlei.example", WRONG, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")
    forged = Client()
    response = page_login(forged, victim.email, PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.99")
    assert response.status_code == 429 and not signed_in(forged)


def test_behind_a_proxy_one_client_cannot_lock_out_the_others(settings):
    """Everyone arrives from the proxy's address; the client is the one the proxy names: one
    client's guesses at many accounts lock that client, not the office behind the proxy."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    person = UserFactory(email="person@kanzlei.example")
    guesser = Client(**proxy)
    for n in range(settings.CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT):
        page_login(guesser, f"raten{n}@kanzlei.example", WRONG, HTTP_X_FORWARDED_FOR="203.0.113.1")
    blocked = page_login(Client(**proxy), person.email, PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.1")
    assert blocked.status_code == 429
    office = Client(**proxy)
    assert page_login(office, person.email, PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.20").status_code == 302
    assert signed_in(office)


def test_the_lock_ends_after_the_cool_off(victim, settings):
    hammer(Client(), victim.email)
    assert page_login(Client(), victim.email, PASSWORD).status_code == 429
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - dt.timedelta(seconds=1)
    )
    person = Client()
    assert page_login(person, victim.email, PASSWORD).status_code == 302 and signed_in(person)


def test_an_admin_lifts_the_lock_in_the_admin(victim, admin_user):
    hammer(Client(), victim.email)
    attempt = AccessAttempt.objects.get(username=victim.email)
    admin = Client()
    admin.force_login(admin_user)
    listing = admin.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and victim.email in listing.content.decode()
    deleted = admin.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302 and not AccessAttempt.objects.exists()
    person = Client()
    assert page_login(person, victim.email, PASSWORD).status_code == 302 and signed_in(person)


def test_reset_command_lifts_the_lock(victim):
    from django.core.management import call_command

    hammer(Client(), victim.email)
    call_command("axes_reset_username", victim.email)
    person = Client()
    assert page_login(person, victim.email, PASSWORD).status_code == 302 and signed_in(person)


# --- the device-token login of the mobile apps ------------------------------------------------
def token_login(client, email, password, **extra):
    return client.post(
        "/api/v1/auth/token",
        {"email": email, "password": password, "device_name": "iPhone"},
        content_type="application/json",
        **extra,
    )


def test_device_token_login_answers_the_web_lock_with_a_json_code(victim, settings):
    hammer(Client(), victim.email)  # the web login locks the account
    locked = token_login(Client(REMOTE_ADDR="198.51.100.7"), victim.email, PASSWORD)
    assert locked.status_code == 429 and "token" not in locked.json()
    body = locked.json()
    assert body["code"] == "login_locked" and body["message"]
    assert body["details"]["retry_after"] == int(settings.AXES_COOLOFF_TIME.total_seconds())
    assert locked["Retry-After"] == str(body["details"]["retry_after"])


# --- under ASGI (daphne): the middleware chain runs async, axes' async path answers ------------
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_lockout_answers_under_asgi_too(settings):
    from asgiref.sync import sync_to_async
    from django.test import AsyncClient

    victim = await sync_to_async(UserFactory)(email="asgi@kanzlei.example")
    client = AsyncClient()
    statuses = [
        (await client.post("/accounts/login/", {"username": victim.email, "password": WRONG})).status_code
        for _ in range(settings.AXES_FAILURE_LIMIT + 2)
    ]
    assert statuses[0] == 200 and statuses[-1] == 429, statuses
    locked = await client.post("/accounts/login/", {"username": victim.email, "password": PASSWORD})
    assert locked.status_code == 429 and "Zu viele fehlgeschlagene Anmeldeversuche" in locked.content.decode()
    api = await client.post(
        "/api/v1/auth/token",
        {"email": victim.email, "password": PASSWORD, "device_name": "x"},
        content_type="application/json",
    )
    assert api.status_code == 429 and api.json()["code"] == "login_locked"
