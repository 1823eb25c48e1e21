"""Issue 23: the copilot wants to delete a task; the delete waits for the person. The chat shows
the approval card live, the task stays until "Freigeben" is clicked, then the call runs once, the
run resumes and answers, and the task disappears from the open board page live."""

from decimal import Decimal

import pytest

from apps.accounts.principal import Principal
from apps.agent.models import Run
from apps.approvals.models import StagedCall
from apps.core.inputs import build
from apps.core.services import set_setting
from apps.llm.models import ModelConfig, Provider
from apps.tasks import services as tasks
from apps.tasks.contracts import TaskCreate
from apps.tasks.models import Board, Task
from tests.e2e.helpers import log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e

COLLECT = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""

TITLE = "Umsatzsteuer Q3"
ANSWER = "Die Aufgabe Umsatzsteuer Q3 ist gelöscht."


def test_the_delete_waits_for_the_card_and_the_task_disappears_live(
    server, worker, fake_openai, browser, statuses
):
    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    user = UserFactory(email="anna@kanzlei.example")
    task = tasks.create_task(Principal.for_user(user), build(TaskCreate, title=TITLE, board_id=board.pk))
    provider = Provider.objects.create(
        name="Fake",
        kind=Provider.Kind.OPENAI_COMPATIBLE,
        base_url=fake_openai.base_url,
        api_key="sk-test-e2e",
    )
    config = ModelConfig.objects.create(
        provider=provider,
        model_id="fake-model",
        input_price_per_million=Decimal("1"),
        output_price_per_million=Decimal("1"),
    )
    set_setting("default_chat_model", config.pk)
    fake_openai.tool_calls(("aufgaben_delete_task", {"task_id": task.pk})).reply(ANSWER)
    fake_openai.reply("Aufgabe löschen")  # the chat's title, asked after the first answer

    context = browser.new_context(locale="de-DE")
    context.add_init_script(COLLECT)  # the page's own CSP violation reports
    chat, tasks_page = context.new_page(), context.new_page()
    errors: list[str] = []
    chat.on("pageerror", lambda e: errors.append(str(e)))
    chat.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    log_in(chat, server, user.email)
    tasks_page.goto(f"{server}/aufgaben/?board={board.pk}")
    card_on_board = tasks_page.locator(f'.task-card[data-task-id="{task.pk}"]')
    card_on_board.wait_for(timeout=10000)
    tasks_page.wait_for_timeout(500)  # let the mutation socket connect

    chat.goto(f"{server}/chat/")
    chat.click(".chat-sessions form button[type=submit]")
    chat.wait_for_url(f"{server}/chat/*/")
    chat.wait_for_selector("#chat-input:not([disabled])")
    chat.wait_for_timeout(500)  # let the chat socket connect
    chat.fill("#chat-input", "Lösche bitte die Aufgabe Umsatzsteuer Q3.")
    chat.click("#chat-send")

    approval = chat.locator(".approval-card", has_text=TITLE)
    approval.wait_for(timeout=20000)  # drawn live from the run's APPROVAL event
    chat.locator(".tool-lines li.waiting").wait_for(timeout=5000)  # the step waits, not failed
    assert approval.locator("button", has_text="Freigeben und Gleichartiges künftig erlauben").count() == 1
    assert approval.locator("button", has_text="Ablehnen").count() == 1
    staged = StagedCall.objects.get()
    assert staged.status == StagedCall.Status.PENDING and staged.tool == "aufgaben_delete_task"
    assert Run.objects.get().status == Run.Status.WAITING
    assert Task.objects.filter(pk=task.pk).exists() and card_on_board.is_visible()
    chat.locator("[data-nav-badge='approvals']", has_text="1").wait_for(timeout=5000)

    # Opened again, the chat draws its waiting card from the server (the event lies before the
    # replay cursor).
    chat.reload()
    approval = chat.locator(".approval-card", has_text=TITLE)
    approval.wait_for(timeout=10000)
    assert chat.locator(".approval-card").count() == 1
    chat.wait_for_timeout(500)  # let the chat socket connect
    approval.get_by_role("button", name="Freigeben", exact=True).click()
    approval.locator(".approval-state", has_text="Freigegeben und ausgeführt").wait_for(timeout=10000)
    card_on_board.wait_for(state="detached", timeout=10000)  # gone from the board, live
    chat.locator(".bubble.assistant .answer", has_text=ANSWER).wait_for(timeout=20000)

    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.EXECUTED and not Task.objects.filter(pk=task.pk).exists()
    run = Run.objects.get()
    assert run.status == Run.Status.COMPLETED
    assert fake_openai.chat_requests[1]["messages"][-1]["role"] == "tool"
    assert chat.evaluate("window.__csp") == [] and errors == []
    # The Freigaben page lists the decision; the navigation badge counts nothing waiting.
    chat.goto(f"{server}/freigaben/")
    chat.locator(f"#approvals-lists [data-record-id='decided-{staged.pk}']").wait_for(timeout=5000)
    assert chat.locator("[data-nav-badge='approvals']").is_hidden()
    assert chat.evaluate("window.__csp") == [] and errors == []
    context.close()
