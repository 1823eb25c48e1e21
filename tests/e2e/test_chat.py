"""Issue 5: a user asks in the chat for a task; the scripted model calls `aufgaben_create_task`,
the answer streams in over the socket and the board shows the new task. Issue 14.5: the step
reads "Aufgabe anlegen", the answer links the new task, and the chat gets its generated title."""

from decimal import Decimal

import pytest

from apps.agent.models import Run
from apps.core.services import set_setting
from apps.llm.models import ModelConfig, Provider
from apps.tasks.models import Board, Task
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.e2e

TITLE = "Belege Müller anfordern"
ANSWER = "Ich habe die Aufgabe Belege Müller anfordern auf dem Board Steuern angelegt."


def test_chat_creates_task_and_board_shows_it(server, worker, fake_openai, page, statuses):
    board = Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    user = UserFactory(email="anna@kanzlei.example")
    provider = Provider.objects.create(
        name="Fake",
        kind=Provider.Kind.OPENAI_COMPATIBLE,
        base_url=fake_openai.base_url,
        api_key="sk-test-e2e",
    )
    config = ModelConfig.objects.create(
        provider=provider,
        model_id="fake-model",
        input_price_per_million=Decimal("1000"),
        output_price_per_million=Decimal("2000"),
    )
    set_setting("default_chat_model", config.pk)
    fake_openai.tool_calls(("aufgaben_create_task", {"title": TITLE, "board_id": board.pk})).reply(ANSWER)
    fake_openai.reply("Belegliste Müller")  # the chat's title, asked after the first answer

    page.goto(f"{server}/accounts/login/")
    page.fill("#id_username", user.email)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.goto(f"{server}/chat/")
    page.click(".chat-sessions form button[type=submit]")
    page.wait_for_url(f"{server}/chat/*/")
    page.wait_for_selector("#chat-input:not([disabled])")
    page.wait_for_timeout(500)  # let the chat socket connect

    page.fill("#chat-input", "Bitte lege eine Aufgabe an: Belege Müller anfordern, Board Steuern.")
    page.click("#chat-send")
    page.locator(".bubble.user", has_text="Belege Müller anfordern, Board Steuern").wait_for(timeout=5000)
    answer = page.locator(".bubble.assistant .answer", has_text=ANSWER)
    answer.wait_for(timeout=20000)  # streamed from the worker through the channel layer
    page.locator(".bubble.assistant .tool-lines li.ok", has_text="Aufgabe anlegen").wait_for(timeout=5000)
    task = Task.objects.get(title=TITLE)
    link = page.locator(f'.bubble.assistant .record-links a[href="/aufgaben/{task.pk}/"]', has_text=TITLE)
    link.wait_for(timeout=5000)
    page.locator("#chat-title", has_text="Belegliste Müller").wait_for(timeout=20000)

    run = Run.objects.get(session__messages__content__contains="Belege Müller anfordern, Board Steuern")
    assert run.status == Run.Status.COMPLETED
    tokens = "".join(e.payload["text"] for e in run.events.filter(kind="token").order_by("seq"))
    assert tokens == ANSWER  # the answer arrived as streamed tokens, not only as the final event
    assert task.board_id == board.pk
    assert len(fake_openai.chat_requests) == 3  # two rounds, then the title
    assert fake_openai.chat_requests[1]["messages"][-1]["role"] == "tool"

    link.click()  # the link opens the task the copilot created
    page.wait_for_url(f"{server}/aufgaben/{task.pk}/")
    page.goto(f"{server}/aufgaben/?board={board.pk}")
    page.locator(f'.task-card[data-task-id="{task.pk}"]', has_text=TITLE).wait_for(timeout=5000)
