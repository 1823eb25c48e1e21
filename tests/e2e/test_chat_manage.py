"""Issue 14.5 in the browser: the stop button only while a run is active, a user's line breaks
kept, the generated title shown live, renaming and deleting a chat (with a confirmation)."""

from decimal import Decimal

import pytest

from apps.agent.models import ChatSession, Run
from apps.core.services import set_setting
from apps.llm.models import ModelConfig, Provider
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.e2e

SLOW = " ".join(f"Wort{i}" for i in range(80))


@pytest.fixture
def anna_in_chat(server, worker, fake_openai, page):
    user = UserFactory(email="anna@kanzlei.example")
    provider = Provider.objects.create(
        name="Fake",
        kind=Provider.Kind.OPENAI_COMPATIBLE,
        base_url=fake_openai.base_url,
        api_key="sk-test-e2e",
    )
    config = ModelConfig.objects.create(
        provider=provider, model_id="fake-model", input_price_per_million=Decimal("1")
    )
    set_setting("default_chat_model", config.pk)
    page.goto(f"{server}/accounts/login/")
    page.fill("#id_username", user.email)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.goto(f"{server}/chat/")
    page.click(".chat-sessions form button[type=submit]")
    page.wait_for_url(f"{server}/chat/*/")
    page.wait_for_selector("#chat-input:not([disabled])")
    page.wait_for_timeout(500)  # let the chat and mutation sockets connect
    return user


def test_stop_title_rename_and_delete(server, fake_openai, page, anna_in_chat):
    session = ChatSession.objects.get(user=anna_in_chat)
    stop = page.locator("#chat-stop")
    assert not stop.is_visible()  # no run yet: no stop button

    # 1. A slow answer: the stop button appears while it streams and goes when it stopped.
    fake_openai.reply(SLOW, delay=0.3)
    page.fill("#chat-input", "Erzähl mir alles.")
    page.click("#chat-send")
    stop.wait_for(state="visible", timeout=5000)
    page.locator(".bubble.assistant .answer", has_text="Wort2").wait_for(timeout=15000)
    stop.click()
    stop.wait_for(state="hidden", timeout=15000)
    run = Run.objects.get(session=session)
    assert run.status == Run.Status.CANCELLED
    assert "Wort79" not in page.locator(".bubble.assistant").last.inner_text()

    # 2. A question over two lines keeps its break; the first answer names the chat, live.
    fake_openai.reply("Drei Fristen laufen diese Woche ab.")
    fake_openai.reply("Fristen dieser Woche")  # the title call after the first answer
    page.fill("#chat-input", "Welche Fristen laufen ab?")
    page.press("#chat-input", "Shift+Enter")
    page.locator("#chat-input").press_sequentially("Bitte mit Datum.")
    page.press("#chat-input", "Enter")
    mine = page.locator(".bubble.user .text", has_text="Bitte mit Datum.")
    mine.wait_for(timeout=5000)
    assert mine.inner_text() == "Welche Fristen laufen ab?\nBitte mit Datum."
    assert mine.evaluate("el => getComputedStyle(el).whiteSpace") == "pre-wrap"
    page.locator(".bubble.assistant .answer", has_text="Drei Fristen").wait_for(timeout=20000)
    stop.wait_for(state="hidden", timeout=5000)  # the run's end follows its last words
    page.locator("#chat-title", has_text="Fristen dieser Woche").wait_for(timeout=20000)
    page.locator(f'#chat-list li[data-record-id="{session.pk}"]', has_text="Fristen dieser Woche").wait_for(
        timeout=5000
    )
    title_request = fake_openai.chat_requests[-1]
    assert title_request["stream"] is False and "Drei Fristen" in title_request["messages"][-1]["content"]

    # 3. Rename: the user's name replaces the generated one.
    page.click(".chat-rename summary")
    page.fill("#chat-rename-title", "Meine Fristen")
    page.click("#chat-rename-form button[type=submit]")
    page.locator("#chat-title", has_text="Meine Fristen").wait_for(timeout=5000)
    session.refresh_from_db()
    assert session.title == "Meine Fristen" and session.title_source == "user"

    # 4. Delete asks first: dismissing keeps the chat, accepting deletes it.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#chat-delete")
    page.wait_for_timeout(500)
    assert ChatSession.objects.filter(pk=session.pk).exists()
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#chat-delete")
    page.wait_for_url(f"{server}/chat/", timeout=5000)
    assert not ChatSession.objects.filter(pk=session.pk).exists()
    assert page.locator(f'#chat-list li[data-record-id="{session.pk}"]').count() == 0


def test_search_and_older_messages(server, page, anna_in_chat):
    from apps.agent.models import Message

    session = ChatSession.objects.get(user=anna_in_chat)
    session.title = "Lohnsteuer"
    session.save()
    for i in range(25):
        Message.objects.create(session=session, role="user", content=f"Frage {i:02d}")
        Message.objects.create(session=session, role="assistant", content=f"Antwort {i:02d}")
    other = ChatSession.objects.create(user=anna_in_chat, title="Anderes")

    page.goto(f"{server}/chat/{session.pk}/")
    page.locator(".bubble.user", has_text="Frage 24").wait_for()
    assert page.locator(".bubble.user", has_text="Frage 04").count() == 0
    page.click(".chat-older")
    page.locator(".bubble.user", has_text="Frage 04").wait_for(timeout=5000)
    assert page.locator(".chat-older").count() == 0
    assert page.locator(".bubble.user").count() == 25

    page.fill("#chat-search", "frage 07")
    page.press("#chat-search", "Enter")
    page.wait_for_url("**q=frage+07")
    assert page.locator("#chat-list li[data-record-id]").count() == 1
    assert page.locator(f'#chat-list li[data-record-id="{other.pk}"]').count() == 0
