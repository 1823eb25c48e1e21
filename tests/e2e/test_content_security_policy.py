"""The strict Content-Security-Policy in a real browser (issue 15, defect 2): the main pages, the
admin and the API docs run without a single CSP violation (every script, style, socket and
fetch is allowed), and the behaviours that were inline handlers still work."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.agent.models import ChatSession
from apps.calendar.models import CalendarEvent
from apps.tasks.models import Board, Task
from tests.e2e.helpers import log_in
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.e2e

PAGES = [
    ("/", "main"),
    ("/chat/", "main"),
    ("/aufgaben/", "main"),
    ("/aufgaben/liste/", "#task-rows"),
    ("/kalender/", "#calendar-view"),
    ("/kalender/agenda/", "#calendar-view"),
    ("/dokumente/", "#document-rows"),
    ("/mandanten/", "main"),
    ("/notizen/", "main"),
    ("/wiki/", "#wiki-results"),
    ("/wissen/", "main"),
    ("/settings/developer/", "main"),
    ("/freigaben/", "#approvals-lists"),
    ("/freigaben/richtlinien/", "#policy-form"),
    ("/admin/", "#content"),
    ("/admin/tasks/task/", "#changelist"),
    ("/admin/django_celery_beat/periodictask/add/", "#periodictask_form"),
    ("/api/docs/", ".swagger-ui .info"),
]

# Collects the violations the page itself reports (each blocked script, style, socket …).
COLLECT = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def test_main_pages_run_without_csp_violations(server, page, statuses):
    admin = UserFactory(email="chefin@kanzlei.example", role="admin", is_superuser=True)
    board = Board.objects.create(name="Steuern")
    task = Task.objects.create(
        title="Bescheid prüfen", board=board, status=statuses["offen"], source_url="https://www.elster.de/"
    )
    ClientFactory(name="Meier GmbH")
    start = timezone.now() + dt.timedelta(days=1)
    CalendarEvent.objects.create(
        title="Mandantengespräch", start=start, end=start + dt.timedelta(hours=1), owner=admin,
        conference_url="https://meet.example.com/abc",
    )  # fmt: skip

    chat = ChatSession.objects.create(user=admin, title="Fristen")

    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if "Content Security Policy" in m.text else None)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(COLLECT)

    log_in(page, server, admin.email)
    pages = [*PAGES, (f"/aufgaben/{task.pk}/", "main"), (f"/chat/{chat.pk}/", "#chat-composer")]
    for path, ready in pages:
        page.goto(f"{server}{path}")
        page.wait_for_selector(ready, timeout=15000)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)  # the mutation socket, htmx's first requests
        reported = page.evaluate("window.__csp")
        assert reported == [], (path, reported)
        assert console == [], (path, console)
    assert errors == [], errors

    # The behaviours that were inline handlers: a confirmation before a delete …
    page.goto(f"{server}/aufgaben/{task.pk}/")
    asked: list[str] = []

    def dismiss(dialog):
        asked.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    page.click("form[data-confirm] button[type=submit]")
    page.wait_for_timeout(300)
    assert asked and Task.objects.filter(pk=task.pk).exists()
    # … and the language switch that submits itself.
    with page.expect_navigation():
        page.select_option("#lang-select", "en")
    page.wait_for_load_state()
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.evaluate("window.__csp") == [] and console == [] and errors == []
