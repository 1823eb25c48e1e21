"""static/js/mutations.js in headless Chromium against a real daphne: generic UI actions,
refresh events, the sessionStorage cursor, and replay after a dropped socket."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.mutations import actions
from apps.mutations.services import record_mutation as record_in_this_thread
from tests.e2e.conftest import browser, server, shared_chromium  # noqa: F401 - the e2e fixtures
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.e2e


@pytest.fixture
def page(browser):  # noqa: F811
    """Playwright evaluates wait_for_function's predicate with eval, which the pages' strict CSP
    refuses; these tests are about mutations.js, the CSP has its own browser test
    (tests/e2e/test_content_security_policy.py)."""
    context = browser.new_context(locale="de-DE", bypass_csp=True)
    page = context.new_page()
    yield page
    context.close()


DEMO_LIST = """
document.querySelector("main").insertAdjacentHTML("beforeend",
  '<ul data-list="demo"><li data-record-id="r1">eins</li><li data-record-id="r2">zwei</li></ul>');
window.refreshed = [];
document.addEventListener("clapilot:refresh", (e) => { window.refreshed.push(e.detail.topic); e.preventDefault(); });
"""


def record_mutation(**kwargs):
    """Playwright's sync API runs an event loop in this thread; services run outside one (like
    in a request or a worker), where publishing after commit can reach the channel layer."""

    def record():
        try:
            return record_in_this_thread(**kwargs)
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(record).result()


def sign_in(page, server, user) -> None:  # noqa: F811
    page.goto(f"{server}/accounts/login/")
    page.fill("#id_username", user.email)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{server}/")
    page.wait_for_function("window.__clapilotMutations?.connection?.socket?.readyState === 1", timeout=10000)


def test_generic_actions_apply_and_a_dropped_socket_replays(server, page):  # noqa: F811
    user = UserFactory()
    sign_in(page, server, user)
    page.evaluate(DEMO_LIST)

    event = record_mutation(
        audience="all",
        topic="demo.record.updated",
        ui_actions=[actions.highlight("r1"), actions.remove("demo", "r2"), actions.reload_topic("demo")],
    )
    page.wait_for_selector('[data-record-id="r1"].flash-highlight', timeout=10000)
    page.wait_for_selector('[data-record-id="r2"]', state="detached", timeout=5000)
    page.wait_for_function("window.refreshed.includes('demo')", timeout=5000)
    assert page.evaluate("sessionStorage.getItem('clapilot.mutations.after')") == str(event.id)

    # Drop the socket; what is committed meanwhile arrives after the reconnect.
    page.evaluate("window.__clapilotMutations.connection.socket.close()")
    missed = record_mutation(
        audience="user", user=user, topic="demo.record.deleted", ui_actions=[actions.remove("demo", "r1")]
    )
    page.wait_for_selector('[data-record-id="r1"]', state="detached", timeout=15000)
    page.wait_for_function(
        f"sessionStorage.getItem('clapilot.mutations.after') === '{missed.id}'", timeout=5000
    )


def test_other_users_events_are_not_applied_and_navigate_follows_own(server, page):  # noqa: F811
    user, other = UserFactory(), UserFactory()
    sign_in(page, server, user)
    page.evaluate(DEMO_LIST)

    record_mutation(
        audience="user", user=other, topic="demo.secret", ui_actions=[actions.remove("demo", "r1")]
    )
    record_mutation(
        audience="all_except", user=user, topic="demo.hidden", ui_actions=[actions.remove("demo", "r1")]
    )
    record_mutation(audience="user", user=user, topic="demo.mine", ui_actions=[actions.highlight("r2")])
    page.wait_for_selector('[data-record-id="r2"].flash-highlight', timeout=10000)  # delivered in order
    assert page.locator('[data-record-id="r1"]').count() == 1

    record_mutation(audience="user", user=user, topic="demo.go", ui_actions=[actions.navigate("/settings/")])
    page.wait_for_url(f"{server}/settings/", timeout=10000)


REGION = (
    '<div id="live-region" data-n="{n}" hx-get="/__region/" hx-target="this" hx-swap="outerHTML"'
    ' hx-trigger="clapilot:refresh">fetch {n}</div>'
)


def test_a_refresh_asked_for_while_the_region_fetches_is_not_lost(server, page):  # noqa: F811
    """A live event that arrives while its region is still fetching (or before htmx has wired the
    swapped-in region) must still lead to a fetch of the region that stands there afterwards:
    htmx alone queues it on the old node, which the swap removes, and the page stays stale."""
    sign_in(page, server, UserFactory())
    held, served = [], []

    def answer(route):
        served.append(route.request.url)
        if len(served) == 1:
            held.append(route)  # the first fetch stays in flight until the test lets it go
        else:
            route.fulfill(status=200, content_type="text/html", body=REGION.format(n=len(served)))

    page.route("**/__region/", answer)
    page.evaluate(
        "(html) => { document.querySelector('main').insertAdjacentHTML('beforeend', html);"
        " window.htmx.process(document.getElementById('live-region')); }",
        REGION.format(n=0),
    )
    refresh = "document.getElementById('live-region').dispatchEvent(new CustomEvent('clapilot:refresh'))"
    page.evaluate(refresh)
    page.wait_for_function("document.getElementById('live-region')['htmx-internal-data']?.xhr")
    page.evaluate(refresh)  # the change this refresh stands for came after the first fetch began
    held[0].fulfill(status=200, content_type="text/html", body=REGION.format(n=1))
    page.wait_for_selector('#live-region[data-n="2"]', timeout=5000)
    page.wait_for_timeout(300)
    assert len(served) == 2  # asked again once, not more
    assert page.locator("#live-region").count() == 1
