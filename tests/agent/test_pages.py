"""The chat page renders: setup hint without a provider, transcript with safe Markdown."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.models import Message
from tests.agent.helpers import say

pytestmark = pytest.mark.django_db


def test_without_provider_the_page_explains_the_setup(web):
    response = web.get(reverse("chat:index"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "OPENAI_API_KEY" in body and 'id="chat-setup"' in body


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_new_session_and_transcript_render_sanitized(web, user, model):
    response = web.post(reverse("chat:new"))
    session = services.list_sessions(Principal.for_user(user)).get()
    assert response.url == reverse("chat:session", args=[session.pk])
    run = say(Principal.for_user(user), session.pk, "Was steht an?")
    services.add_message(
        run, Message.Role.TOOL, "{}", tool_call_id="c1", metadata={"name": "aufgaben_list_tasks", "ok": True}
    )
    services.add_message(run, Message.Role.ASSISTANT, "**Zwei** Aufgaben <script>alert(1)</script>")

    body = web.get(reverse("chat:session", args=[session.pk])).content.decode()
    assert "<strong>Zwei</strong>" in body
    assert "<script>alert(1)" not in body
    assert "aufgaben_list_tasks" in body and "js/chat.js" in body
    assert 'id="chat-setup"' not in body


def test_foreign_session_is_404(web, model):
    from tests.factories import UserFactory

    session = services.create_session(Principal.for_user(UserFactory()))
    assert web.get(reverse("chat:session", args=[session.pk])).status_code == 404


def test_anonymous_is_redirected_to_login(client, db):
    assert client.get(reverse("chat:index")).status_code == 302


def test_markdown_subset():
    from apps.llm.markdown import render

    html = render("# Titel\n\n- a `x`\n- b\n\n[Link](https://example.com) und [böse](javascript:alert(1))")
    assert "<h3>Titel</h3>" in html and "<ul><li>a <code>x</code></li><li>b</li></ul>" in html
    assert 'href="https://example.com"' in html and "javascript:" not in html.split("böse")[0]
