"""In Chromium: the office admin (role admin, nothing else) opens the Kanzlei settings from the
settings page, picks Bayern, names the office, sees a bad value refused on its field, saves, and
invites a colleague, who sets a password on the link shown and signs in. A staff member gets a
403 page saying why."""

import pytest

from apps.core.services import get_setting
from apps.deadlines import office
from tests.e2e.helpers import log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e


def test_the_admin_sets_up_the_office_and_invites_a_colleague(server, browser, page):
    chefin = UserFactory(email="chefin@kanzlei.example", full_name="Clara Chef", role="admin")
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, server, chefin.email)
    page.goto(f"{server}/settings/")
    page.get_by_role("link", name="Kanzlei-Einstellungen").click()
    page.wait_for_url("**/einstellungen/kanzlei/")

    page.get_by_label("Bundesland").select_option("BY")
    page.get_by_label("Name der Kanzlei").fill("Kanzlei Berger & Partner")
    page.get_by_label("Anschrift der Kanzlei").fill("Leopoldstr. 1\n80802 München")
    page.get_by_label("Mandantennummern: Stellen").fill("0")
    page.locator("#office-settings").get_by_role("button", name="Speichern").click()
    field = page.locator(".field.has-error", has=page.locator("#id_client_width"))
    field.wait_for(timeout=5000)
    assert get_setting("office_name") is None  # nothing stored while a field is wrong

    page.get_by_label("Mandantennummern: Stellen").fill("5")
    page.locator("#office-settings").get_by_role("button", name="Speichern").click()
    page.get_by_text("Die Kanzlei-Einstellungen wurden gespeichert.").wait_for(timeout=5000)
    assert get_setting("office_name") == "Kanzlei Berger & Partner"
    assert get_setting(office.SETTING_KEY) == "BY"
    assert page.get_by_label("Bundesland").input_value() == "BY"

    invite = page.locator("#office-invite")
    invite.get_by_label("Name").fill("Tom Weber")
    invite.get_by_label("E-Mail-Adresse").fill("tom@kanzlei.example")
    invite.get_by_role("button", name="Einladen").click()
    link = page.locator("#invite-link")
    link.wait_for(timeout=5000)
    url = link.input_value()
    assert "/accounts/reset/" in url

    colleague = browser.new_context(locale="de-DE")
    try:
        tom = colleague.new_page()
        tom.goto(url)
        tom.locator("#id_new_password1").fill("ein-langes-Passwort-42")
        tom.locator("#id_new_password2").fill("ein-langes-Passwort-42")
        tom.locator("form button[type=submit], form input[type=submit]").first.click()
        tom.wait_for_url("**/reset/done/")
        tom.goto(f"{server}/accounts/login/")
        tom.fill("#id_username", "tom@kanzlei.example")
        tom.fill("#id_password", "ein-langes-Passwort-42")
        tom.click("button[type=submit]")
        tom.wait_for_url(f"{server}/")
        tom.goto(f"{server}/einstellungen/kanzlei/")
        assert "Nur Administratorinnen und Administratoren" in tom.content()
    finally:
        colleague.close()
    assert errors == []
