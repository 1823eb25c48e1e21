"""Issue 25, defect 4: anyone at the same address could lock a known person out. Wrong passwords
sent to `POST /api/v1/auth/token` with a colleague's e-mail counted in the web login's lockout
(e-mail + address, across all login paths) and locked the admin out of /accounts/login/.

Now the web lock counts per account and per address separately, a device that signed in to the
account before passes it with the right password, and the token login has its own throttles."""

import pytest
from django.test import Client

from tests.accounts.test_login_lockout import WRONG, hammer, page_login, signed_in, token_login
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(db):
    return UserFactory(email="chefin@kanzlei.example", role="admin", is_superuser=True)


@pytest.fixture
def generous_token_throttle(settings):
    """The per-minute e-mail + address bucket would stop the colleague after ten tries: lift it
    to see what the other buckets and the web lock do."""
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "login": "1000/min"},
    }


def known_device(email: str) -> Client:
    """A browser that signed in to the account with its password once (and signed out)."""
    browser = Client()
    assert page_login(browser, email, PASSWORD).status_code == 302
    browser.post("/accounts/logout/")
    assert not signed_in(browser)
    return browser


def test_wrong_token_logins_with_the_admins_email_do_not_lock_the_admin_out_of_the_web(
    admin, settings, generous_token_throttle
):
    """The reported scenario: a colleague at the same address (behind the proxy, everyone's)
    sends wrong passwords to the token endpoint with the admin's e-mail."""
    colleague = Client()
    statuses = [token_login(colleague, admin.email, WRONG).status_code for _ in range(40)]
    assert statuses[0] == 400 and statuses[-1] == 429, statuses  # the token path is throttled …
    assert (
        colleague.post(
            "/api/v1/auth/token",
            {"email": admin.email, "password": WRONG, "device_name": "x"},
            content_type="application/json",
        ).json()["code"]
        == "throttled"
    )
    same_address = Client()  # … and the admin, on a browser never used before, signs in
    response = page_login(same_address, admin.email, PASSWORD)
    assert response.status_code == 302 and signed_in(same_address)


def test_the_token_login_is_throttled_per_address_and_per_account(admin, settings, generous_token_throttle):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "login_address": "5/hour",
            "login_account": "8/hour",
        },
    }
    guesser = Client(REMOTE_ADDR="203.0.113.5")
    many = [token_login(guesser, f"raten{n}@kanzlei.example", WRONG).status_code for n in range(6)]
    assert many == [400] * 5 + [429]  # one address, many e-mails
    for n in range(8):  # one e-mail, many addresses
        assert token_login(Client(REMOTE_ADDR=f"198.51.100.{n}"), admin.email, WRONG).status_code == 400
    refused = token_login(Client(REMOTE_ADDR="198.51.100.99"), admin.email, PASSWORD)
    assert refused.status_code == 429 and refused.json()["code"] == "throttled" and refused["Retry-After"]
    # the web login is not touched by any of it
    assert page_login(Client(REMOTE_ADDR="203.0.113.5"), admin.email, PASSWORD).status_code == 302


def test_brute_force_from_one_address_is_still_locked(admin, settings):
    guesser = Client(REMOTE_ADDR="203.0.113.9")
    limit = settings.CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT
    statuses = [page_login(guesser, f"raten{n}@kanzlei.example", WRONG).status_code for n in range(limit)]
    assert statuses == [200] * (limit - 1) + [429]  # the failure that reaches the limit locks
    assert page_login(guesser, admin.email, PASSWORD).status_code == 429
    assert page_login(Client(REMOTE_ADDR="203.0.113.9"), admin.email, PASSWORD).status_code == 429
    elsewhere = Client(REMOTE_ADDR="198.51.100.3")
    assert page_login(elsewhere, admin.email, PASSWORD).status_code == 302


def test_one_account_guessed_from_many_addresses_is_locked(admin, settings):
    for n in range(settings.AXES_FAILURE_LIMIT):
        page_login(Client(REMOTE_ADDR=f"203.0.113.{n}"), admin.email, WRONG)
    stranger = Client(REMOTE_ADDR="198.51.100.50")
    assert page_login(stranger, admin.email, PASSWORD).status_code == 429 and not signed_in(stranger)


def test_the_known_device_signs_in_with_the_right_password_during_an_account_lock(admin, settings):
    browser = known_device(admin.email)
    hammer(Client(REMOTE_ADDR="203.0.113.77"), admin.email)  # someone locks the account
    assert page_login(Client(), admin.email, PASSWORD).status_code == 429  # a new browser waits
    response = page_login(browser, admin.email, PASSWORD)
    assert response.status_code == 302 and signed_in(browser)
    # and the device's token login too (the mobile app carrying the cookie)
    assert token_login(browser, admin.email, PASSWORD).status_code == 201


def test_the_known_device_passes_an_address_lock(admin, settings):
    browser = known_device(admin.email)
    for n in range(settings.CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT):
        page_login(Client(), f"raten{n}@kanzlei.example", WRONG)
    assert page_login(Client(), admin.email, PASSWORD).status_code == 429
    assert page_login(browser, admin.email, PASSWORD).status_code == 302 and signed_in(browser)


def test_a_known_device_has_its_own_failure_budget(admin, settings):
    """A stolen device cookie buys no extra guesses: after the limit of wrong passwords from the
    device, it is an ordinary browser again (here: locked with the account)."""
    browser = known_device(admin.email)
    statuses = [
        page_login(browser, admin.email, WRONG).status_code for _ in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert statuses == [200] * settings.AXES_FAILURE_LIMIT  # not counted for the account meanwhile
    hammer(Client(REMOTE_ADDR="203.0.113.78"), admin.email)
    assert page_login(browser, admin.email, PASSWORD).status_code == 429 and not signed_in(browser)


def test_a_device_cookie_of_another_account_or_forged_does_not_pass(admin, settings):
    from apps.accounts import lockout

    colleague = UserFactory(email="kollege@kanzlei.example")
    browser = known_device(colleague.email)
    hammer(Client(REMOTE_ADDR="203.0.113.79"), admin.email)
    assert page_login(browser, admin.email, PASSWORD).status_code == 429
    forged = Client()
    forged.cookies[lockout.device_cookie_name(admin.email)] = "eyJhIjoiMSJ9:forged:signature"
    assert page_login(forged, admin.email, PASSWORD).status_code == 429


def test_a_success_clears_the_accounts_failures_only(admin, settings):
    """A guesser's own successful login must not clear the failures they made at other accounts
    from the same address."""
    guesser_account = UserFactory(email="rater@kanzlei.example")
    guesser = Client(REMOTE_ADDR="203.0.113.10")
    for n in range(settings.CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT - 1):
        page_login(guesser, f"raten{n}@kanzlei.example", WRONG)
    assert page_login(Client(REMOTE_ADDR="203.0.113.10"), guesser_account.email, PASSWORD).status_code == 302
    page_login(guesser, "raten-last@kanzlei.example", WRONG)
    assert page_login(Client(REMOTE_ADDR="203.0.113.10"), admin.email, PASSWORD).status_code == 429


def test_a_token_login_without_a_client_address_is_still_counted(admin, settings):
    """Found by the broad schemathesis sweep: a request without REMOTE_ADDR (a WSGI server that
    sets none) made the per-address bucket fail with a 500."""
    statuses = [token_login(Client(), admin.email, WRONG, REMOTE_ADDR=None).status_code for _ in range(11)]
    assert statuses == [400] * 10 + [429]
