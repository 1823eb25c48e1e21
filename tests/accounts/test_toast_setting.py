"""The profile setting that mutes live notices, and what the page hands to toasts.js."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from apps.accounts import services
from apps.accounts.contracts import PreferencesUpdate
from apps.accounts.principal import Principal
from apps.core.errors import InvalidInput
from apps.core.inputs import build

pytestmark = pytest.mark.django_db


def toast_settings(html: str) -> dict:
    match = re.search(r'<script id="toast-settings" type="application/json">(.*?)</script>', html)
    assert match, "the page renders no toast settings"
    return json.loads(match.group(1))


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_muting_live_notices_on_the_settings_page(web, user):
    page = web.get(reverse("settings")).content.decode()
    assert 'name="mute_toasts"' in page
    assert toast_settings(page) == {"me": user.pk, "muted": False}

    response = web.post(
        reverse("settings"), {"language": "de", "time_zone": "Europe/Berlin", "mute_toasts": "on"}
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.mute_toasts is True
    page = web.get(reverse("settings")).content.decode()
    assert toast_settings(page)["muted"] is True
    assert re.search(r'name="mute_toasts"[^>]*checked', page)

    web.post(reverse("settings"), {"language": "de", "time_zone": "Europe/Berlin"})  # unticked
    user.refresh_from_db()
    assert user.mute_toasts is False


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_a_bad_time_zone_keeps_the_mute_setting_as_it_was(web, user):
    web.post(reverse("settings"), {"language": "de", "time_zone": "Mars/Olympus", "mute_toasts": "on"})
    user.refresh_from_db()
    assert user.mute_toasts is False


def test_the_language_switch_leaves_the_mute_setting_alone(user):
    user.mute_toasts = True
    user.save()
    services.update_preferences(
        Principal.for_user(user), build(PreferencesUpdate, language="it", time_zone=user.time_zone)
    )
    user.refresh_from_db()
    assert (user.language, user.mute_toasts) == ("it", True)


def test_a_non_boolean_mute_is_refused(user):
    with pytest.raises(InvalidInput):
        services.update_preferences(
            Principal.for_user(user),
            build(PreferencesUpdate, language="de", time_zone="Europe/Berlin", mute_toasts="yes"),
        )


def test_signed_out_pages_carry_no_toast_settings(client):
    assert 'id="toast-settings"' not in client.get(reverse("login")).content.decode()
