"""In Chromium: a reviewer has the review queue open; a memory another person's client stores
through the REST API (as the copilot or an MCP client would) appears without a reload, with
the navigation's count; another reviewer approves it in their own browser and it leaves the
first queue. The review pages and the memory page run without a CSP violation."""

import json
import urllib.request

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.memory.models import Memory
from tests.e2e.helpers import log_in
from tests.factories import UserFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

COLLECT = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def store_memory(base_url: str, key: str, text: str) -> dict:
    request = urllib.request.Request(
        f"{base_url}/api/v1/memory",
        data=json.dumps({"text": text, "scope": "shared"}).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_the_review_queue_updates_live(server, worker, browser):
    """The stored memory joins the queue once the worker has checked it (duplicates, conflicts)."""
    chef = UserFactory(email="chef@kanzlei.example", full_name="Clara Chef", role="admin")
    rita = UserFactory(email="rita@kanzlei.example", full_name="Rita Prüfer", role="admin")
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun", role="admin")  # keys are admin-made
    key = keys.create_api_key(Principal.for_user(ben), name="e2e", scopes=["memory:write"])[1]

    first, second = browser.new_context(locale="de-DE"), browser.new_context(locale="de-DE")
    page, other = first.new_page(), second.new_page()
    page.add_init_script(COLLECT)
    log_in(page, server, chef.email)
    page.goto(f"{server}/pruefen/?kind=memory")
    page.locator("#review-queue .empty").wait_for(timeout=10000)
    page.wait_for_timeout(700)  # let the mutation socket connect

    stored = store_memory(server, key, "Die Kanzlei ist zwischen den Jahren geschlossen.")
    assert stored["memory"]["review"] == "pending", stored
    memory_id = stored["memory"]["id"]
    item = page.locator(f'#review-queue [data-record-id="memory-{memory_id}"]')
    item.wait_for(state="visible", timeout=10000)  # no reload: the socket delivered it
    assert "Ben Braun" in item.inner_text()
    page.locator('[data-nav-badge="review"]', has_text="1").wait_for(timeout=10000)

    # Someone in the middle of a decision keeps what they typed: the refetch waits for them.
    item.locator("summary").click()
    item.locator("textarea").fill("Die Kanzlei ist vom 24.12. bis 1.1. geschlossen.")
    later = store_memory(server, key, "Der Kopierer steht jetzt im Flur.")["memory"]["id"]
    page.locator('[data-nav-badge="review"]', has_text="2").wait_for(timeout=10000)
    page.wait_for_timeout(1000)
    assert page.locator(f'[data-record-id="memory-{later}"]').count() == 0
    assert item.locator("textarea").input_value() == "Die Kanzlei ist vom 24.12. bis 1.1. geschlossen."
    item.locator("summary").click()  # done: the queue catches up
    page.locator(f'#review-queue [data-record-id="memory-{later}"]').wait_for(timeout=10000)

    log_in(other, server, rita.email)
    other.goto(f"{server}/pruefen/?kind=memory")
    other.locator(f'[data-record-id="memory-{memory_id}"] button[value="approve"]').click()
    other.wait_for_load_state()
    wait_for(lambda: Memory.objects.get(pk=memory_id).review == "approved", timeout=10)

    item.wait_for(state="detached", timeout=10000)
    page.locator('[data-nav-badge="review"]', has_text="1").wait_for(timeout=10000)
    assert Memory.objects.get(pk=memory_id).reviewed_by == rita

    for path, ready in (
        ("/pruefen/?kind=memory&state=decided", "#review-queue"),
        ("/admin/review/reviewqueue/", "#review-queue"),
        ("/gedaechtnis/?tab=office", "#memory-list"),
    ):
        page.goto(f"{server}{path}")
        page.wait_for_selector(ready, timeout=15000)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("window.__csp") == [], path
    assert "Die Kanzlei ist zwischen den Jahren geschlossen." in page.locator("#memory-list").inner_text()
    first.close()
    second.close()
