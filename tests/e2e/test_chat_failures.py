"""Issue 27.5 in the browser: "Stopp" leaves "Gestoppt." with the partial answer; a model failure
is told in the bubble with "Erneut versuchen", which then answers; a failed tool step opens to its
code and message; nothing vanishes with the next message, and a reload shows the same."""

import pytest

from apps.agent.models import ChatSession, Run
from tests.e2e import test_chat_manage

pytestmark = pytest.mark.e2e

SLOW = test_chat_manage.SLOW
anna_in_chat = test_chat_manage.anna_in_chat  # signed in, in a new chat, with the scripted model

FAILED = "Die Antwort ist fehlgeschlagen: Das Sprachmodell hat mit einem Fehler geantwortet."


def _send(page, text: str) -> None:
    page.fill("#chat-input", text)
    page.click("#chat-send")
    page.locator(".bubble.user", has_text=text).wait_for(timeout=5000)


def test_stop_shows_stopped_and_keeps_the_partial_answer(server, fake_openai, page, anna_in_chat):
    session = ChatSession.objects.get(user=anna_in_chat)
    fake_openai.reply(SLOW, delay=0.3)
    _send(page, "Erzähl mir alles.")
    answer = page.locator(".bubble.assistant .answer", has_text="Wort2")
    answer.wait_for(timeout=15000)
    page.click("#chat-stop")
    outcome = page.locator(".bubble.assistant .run-outcome.cancelled", has_text="Gestoppt.")
    outcome.wait_for(timeout=15000)
    bubble = page.locator(".bubble.assistant").last
    kept = bubble.locator(".answer").inner_text()
    assert kept.startswith("Wort0 Wort1 Wort2") and "Wort79" not in kept
    assert "Arbeitet" not in bubble.inner_text()
    assert bubble.locator(".chat-retry").is_visible()
    assert Run.objects.get(session=session).status == Run.Status.CANCELLED

    page.reload()
    bubble = page.locator(".bubble.assistant").last
    bubble.locator(".run-outcome.cancelled", has_text="Gestoppt.").wait_for(timeout=5000)
    assert bubble.locator(".answer").inner_text().startswith("Wort0 Wort1 Wort2")
    assert "Ich musste anhalten" not in bubble.inner_text()  # the note for the model is not shown


def test_model_failure_is_told_in_the_bubble_and_retry_answers(server, fake_openai, page, anna_in_chat):
    session = ChatSession.objects.get(user=anna_in_chat)
    fake_openai.error(503, "upstream down")
    _send(page, "Welche Fristen laufen ab?")
    failed = page.locator(".bubble.assistant .run-outcome.failed", has_text=FAILED)
    failed.wait_for(timeout=20000)
    assert failed.locator(".outcome-code").inner_text() == "provider_error"
    assert page.locator("#chat-error").is_hidden()  # not under the composer any more
    assert "Arbeitet" not in page.locator(".bubble.assistant").last.inner_text()

    # The same after a reload, then "Erneut versuchen" answers the same question.
    page.reload()
    page.wait_for_timeout(500)  # let the chat socket connect
    failed = page.locator(".bubble.assistant .run-outcome.failed", has_text=FAILED)
    failed.wait_for(timeout=5000)
    fake_openai.reply("Zwei Fristen laufen ab.")
    failed.locator(".chat-retry", has_text="Erneut versuchen").click()
    page.locator(".bubble.assistant .answer", has_text="Zwei Fristen laufen ab.").wait_for(timeout=20000)
    assert page.locator(".chat-retry").count() == 0
    assert failed.is_visible()  # the failure stays in the history
    assert page.locator(".bubble.user").count() == 1  # the question was not sent twice
    runs = list(Run.objects.filter(session=session).order_by("pk"))
    assert [r.status for r in runs] == [Run.Status.FAILED, Run.Status.COMPLETED]
    assert runs[1].retry_of_id == runs[0].pk
    assert fake_openai.chat_requests[1]["messages"][-1]["content"] == "Welche Fristen laufen ab?"

    # Nothing vanishes with the next message, nor with a reload.
    fake_openai.reply("Gern.")
    _send(page, "Danke!")
    page.locator(".bubble.assistant .answer", has_text="Gern.").wait_for(timeout=20000)
    assert failed.is_visible()
    page.reload()
    page.locator(".run-outcome.failed", has_text=FAILED).wait_for(timeout=5000)
    page.locator(".bubble.assistant .answer", has_text="Zwei Fristen laufen ab.").wait_for(timeout=5000)
    assert page.locator(".chat-retry").count() == 0  # not the last answer any more


def test_failed_tool_opens_to_its_code_and_message(server, fake_openai, page, anna_in_chat):
    fake_openai.tool_calls(("aufgaben_get_task", {"task_id": 987654})).reply("Die Aufgabe gibt es nicht.")
    _send(page, "Zeig mir Aufgabe 987654.")
    page.locator(".bubble.assistant .answer", has_text="Die Aufgabe gibt es nicht.").wait_for(timeout=20000)

    def check() -> tuple[str, str]:
        step = page.locator(".bubble.assistant .tool-lines li.failed").first
        step.wait_for(timeout=5000)
        body = step.locator(".tool-error p")
        assert body.is_hidden()  # closed until opened
        step.locator("summary").click()
        body.wait_for(state="visible", timeout=2000)
        code = step.locator(".tool-error-code").inner_text()
        message = step.locator(".tool-error-message").inner_text()
        assert code and " " not in code and message and message != code
        return code, message

    live = check()
    page.reload()
    assert check() == live  # the same from the stored transcript
