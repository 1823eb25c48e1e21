"""In Chromium: the dashboard is open; widgets created and fed through the tool API (as the
copilot would) appear and change without a reload; another person's widget never appears; the
wiki review queue shows a new proposal live."""

import json

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from tests.e2e.helpers import execute_tool, log_in
from tests.factories import UserFactory
from tests.wiki.factories import WikiPageFactory

pytestmark = pytest.mark.e2e


def _key(user) -> str:
    return keys.create_api_key(Principal.for_user(user), name="e2e", scopes=["tools:execute"])[1]


def test_dashboard_widgets_update_live(server, page):
    anna = UserFactory(email="anna@kanzlei.example", role="admin")
    ben = UserFactory(email="ben@kanzlei.example", role="admin")
    anna_key, ben_key = _key(anna), _key(ben)
    log_in(page, server, anna.email)
    page.goto(f"{server}/")
    page.locator("#widget-cards .widget-empty").wait_for(timeout=5000)
    page.wait_for_timeout(700)  # let the mutation socket connect

    created = execute_tool(
        server,
        anna_key,
        "mini_apps_create",
        {"title": "Offene Fristen", "latest_data": json.dumps({"Offen": 4})},
    )
    assert created["ok"], created
    card = page.locator(f'#widget-cards [data-record-id="widget-{created["output"]["widget"]["id"]}"]')
    card.wait_for(state="visible", timeout=5000)
    assert "4" in card.locator("dd").inner_text()

    assert execute_tool(server, ben_key, "widgets_create", {"title": "Bens Zahlen", "latest_data": "7"})["ok"]
    updated = execute_tool(
        server,
        anna_key,
        "widgets_update_data",
        {"widget_id": created["output"]["widget"]["id"], "latest_data": json.dumps({"Offen": 9})},
    )
    assert updated["ok"], updated
    page.locator("#widget-cards dd", has_text="9").wait_for(timeout=5000)
    assert page.get_by_text("Bens Zahlen").count() == 0


def test_review_queue_shows_new_proposals_live(server, page):
    anna = UserFactory(email="anna@kanzlei.example", role="admin")
    WikiPageFactory(slug="posteingang", title="Posteingang", body="Post um 10 Uhr.", author=anna)
    log_in(page, server, anna.email)
    page.goto(f"{server}/wiki/vorschlaege/")
    page.locator("#wiki-proposals .empty").wait_for(timeout=5000)
    page.wait_for_timeout(700)

    result = execute_tool(
        server, _key(anna), "wiki_propose_change", {"slug": "posteingang", "body": "Post um 9 Uhr."}
    )
    assert result["ok"], result
    page.locator("#wiki-proposals .diff-add", has_text="Post um 9 Uhr.").wait_for(timeout=5000)
