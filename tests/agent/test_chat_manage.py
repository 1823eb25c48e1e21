"""Issue 14.5: rename, delete and search chats (services, pages), a long history in pages, the
stop button only while a run is active and a user's line breaks kept."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.contracts import ChatSessionCreate, ChatSessionRename
from apps.agent.errors import RunInProgress, SessionNotFound
from apps.agent.models import ChatSession, Message, Run
from apps.core.errors import InvalidInput
from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from tests.agent.helpers import say
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def me(anna):
    return Principal.for_user(anna)


def _chat(me, title="", *turns: tuple[str, str]) -> ChatSession:
    session = services.create_session(me, build(ChatSessionCreate, title=title))
    for question, answer in turns:
        Message.objects.create(session=session, role="user", content=question)
        Message.objects.create(session=session, role="assistant", content=answer)
    return session


# --- rename ---------------------------------------------------------------------------------
def test_rename_is_the_users_name_and_pushed_live(me, anna):
    session = _chat(me)
    renamed = services.rename_session(
        me, session.pk, build(ChatSessionRename, title="  Fristen   Bäckerei  ")
    )
    assert renamed.title == "Fristen Bäckerei" and renamed.title_source == "user"
    event = MutationEvent.objects.order_by("id").last()
    assert event.topic == "chat.session.updated" and event.user_id == anna.pk and event.audience == "user"
    assert event.ui_actions == [
        {
            "type": "upsert",
            "list": "chat-sessions",
            "record_id": str(session.pk),
            "record": {
                "id": session.pk,
                "title": "Fristen Bäckerei",
                "title_source": "user",
                "url": f"/chat/{session.pk}/",
            },
        }
    ]


@pytest.mark.parametrize("title", ["", "   ", "x" * 201, None, ["a"]])
def test_a_bad_title_is_refused_and_nothing_changes(me, title):
    session = _chat(me, "Alt")
    with pytest.raises(InvalidInput):
        services.rename_session(me, session.pk, build(ChatSessionRename, title=title))
    session.refresh_from_db()
    assert session.title == "Alt"


def test_someone_elses_chat_cannot_be_renamed_or_deleted(me):
    other = _chat(Principal.for_user(UserFactory()), "Fremd")
    with pytest.raises(SessionNotFound):
        services.rename_session(me, other.pk, build(ChatSessionRename, title="Meins"))
    with pytest.raises(SessionNotFound):
        services.delete_session(me, other.pk)
    other.refresh_from_db()
    assert other.title == "Fremd"


def test_rename_page_redirects_and_shows_errors(web, anna):
    session = _chat(Principal.for_user(anna))
    response = web.post(reverse("chat:rename", args=[session.pk]), {"title": "Neu"})
    assert response.status_code == 302 and response.url == reverse("chat:session", args=[session.pk])
    assert ChatSession.objects.get(pk=session.pk).title == "Neu"
    page = web.post(reverse("chat:rename", args=[session.pk]), {"title": ""}, follow=True).content.decode()
    assert "Titel: Dieses Feld ist erforderlich." in page
    assert ChatSession.objects.get(pk=session.pk).title == "Neu"
    other = _chat(Principal.for_user(UserFactory()))
    assert web.post(reverse("chat:rename", args=[other.pk]), {"title": "x"}).status_code == 404
    assert web.get(reverse("chat:rename", args=[session.pk])).status_code == 405


# --- delete ---------------------------------------------------------------------------------
def test_delete_removes_the_chat_with_its_messages_and_runs(me, anna, model):
    session = _chat(me, "Weg", ("Frage", "Antwort"))
    run = say(me, session.pk, "Noch was")
    services.finish_run(run, Run.Status.COMPLETED)
    assert services.delete_session(me, session.pk) == session.pk
    assert not ChatSession.objects.filter(pk=session.pk).exists()
    assert not Message.objects.filter(session_id=session.pk).exists()
    assert not Run.objects.filter(pk=run.pk).exists()
    event = MutationEvent.objects.order_by("id").last()
    assert event.topic == "chat.session.deleted" and event.user_id == anna.pk
    assert event.ui_actions == [{"type": "remove", "list": "chat-sessions", "record_id": str(session.pk)}]


def test_delete_is_refused_while_the_copilot_answers(me, model):
    session = _chat(me)
    say(me, session.pk, "Frage")  # queued: an active run
    with pytest.raises(RunInProgress):
        services.delete_session(me, session.pk)
    assert ChatSession.objects.filter(pk=session.pk).exists()


def test_delete_page_asks_first_and_redirects(web, anna):
    session = _chat(Principal.for_user(anna), "Weg")
    body = web.get(reverse("chat:session", args=[session.pk])).content.decode()
    assert 'id="chat-delete-form" data-confirm="' in body  # page-behaviors.js asks; no inline handler
    assert "onclick" not in body and "onsubmit" not in body
    response = web.post(reverse("chat:delete", args=[session.pk]))
    assert response.status_code == 302 and response.url == reverse("chat:index")
    assert not ChatSession.objects.filter(pk=session.pk).exists()
    assert web.post(reverse("chat:delete", args=[session.pk])).status_code == 404


def _admin_delete_waits_for_the_run(client, admin, url, run, rows, message):
    """The admin's delete is refused while `run` is active (the service's message shown, the row
    kept) and goes through once the run has finished."""
    client.force_login(admin)
    page = client.post(url, {"post": "yes"}, follow=True).content.decode()
    assert message in page and rows.exists()
    services.finish_run(run, Run.Status.COMPLETED)
    assert client.post(url, {"post": "yes"}).status_code == 302 and not rows.exists()


def test_the_admin_deletes_a_persons_chat_through_the_service(client, boss, me, anna, model):
    """Afterwards the owner's open chat list drops it live, as when they delete it themselves."""
    session = _chat(me, "Weg")
    run = say(me, session.pk, "Frage")  # queued: an active run
    url = reverse("admin:agent_chatsession_delete", args=[session.pk])
    message = "Stoppen Sie den Copiloten, bevor Sie diesen Chat löschen."
    _admin_delete_waits_for_the_run(
        client, boss, url, run, ChatSession.objects.filter(pk=session.pk), message
    )
    event = MutationEvent.objects.order_by("id").last()
    assert event.topic == "chat.session.deleted" and event.user_id == anna.pk
    assert client.get(reverse("admin:agent_chatsession_add")).status_code == 403


def test_the_admin_deletes_only_finished_runs(client, boss, me, model):
    session = _chat(me, "Läufe")
    run = say(me, session.pk, "Frage")
    url = reverse("admin:agent_run_delete", args=[run.pk])
    message = "Stoppen Sie den Copiloten, bevor Sie diesen Lauf löschen."
    _admin_delete_waits_for_the_run(client, boss, url, run, Run.objects.filter(pk=run.pk), message)
    assert Message.objects.filter(session=session).exists()  # the chat keeps its messages


# --- search ---------------------------------------------------------------------------------
def test_search_finds_titles_and_message_text_of_own_chats_only(me):
    by_title = _chat(me, "Umsatzsteuer Bäckerei")
    by_text = _chat(me, "Allerlei", ("Wann ist die umsatzsteuer fällig?", "Am 10."))
    _chat(me, "Anderes", ("Hallo", "Hi"))
    _chat(Principal.for_user(UserFactory()), "Umsatzsteuer fremd")
    found = set(services.search_sessions(me, "UMSATZSTEUER").values_list("pk", flat=True))
    assert found == {by_title.pk, by_text.pk}
    assert services.search_sessions(me, "").count() == 3


def test_search_is_literal(me):
    _chat(me, "100 Prozent")
    assert services.search_sessions(me, "%").count() == 0
    assert services.search_sessions(me, "_").count() == 0
    assert services.search_sessions(me, "x" * 5000).count() == 0  # cut, no error


def test_chat_list_search_has_a_constant_query_count(web, anna):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    me = Principal.for_user(anna)

    def queries(q: str) -> tuple[int, str]:
        with CaptureQueriesContext(connection) as captured:
            body = web.get(reverse("chat:index"), {"q": q}).content.decode()
        return len(captured), body

    for i in range(3):
        _chat(me, f"Chat {i}", (f"Frage {i} zur Lohnsteuer", "Antwort"))
    few, body = queries("lohnsteuer")
    assert body.count('data-record-id="') == 3
    for i in range(3, 30):
        _chat(me, f"Chat {i}", (f"Frage {i} zur Lohnsteuer", "Antwort"))
    many, body = queries("lohnsteuer")
    assert body.count('data-record-id="') == 30
    assert many == few <= 14
    none, body = queries("nirgends")
    assert none <= few and "Kein Chat passt zur Suche." in body


# --- pagination -----------------------------------------------------------------------------
def test_a_long_history_is_paginated(web, anna, django_assert_max_num_queries):
    me = Principal.for_user(anna)
    session = _chat(me, "Lang", *[(f"Frage {i:02d}", f"Antwort {i:02d}") for i in range(45)])
    with django_assert_max_num_queries(20):
        body = web.get(reverse("chat:session", args=[session.pk])).content.decode()
    assert "Frage 25" in body and "Frage 44" in body and "Frage 24" not in body
    first_shown = Message.objects.get(session=session, content="Frage 25")
    older = reverse("chat:older", args=[session.pk]) + f"?before={first_shown.pk}"
    assert f'data-url="{older}"' in body and "Ältere Nachrichten" in body

    with django_assert_max_num_queries(8):
        data = web.get(older).json()
    assert "Frage 05" in data["html"] and "Frage 24" in data["html"] and "Frage 04" not in data["html"]
    assert "Frage 25" not in data["html"]
    last = web.get(reverse("chat:older", args=[session.pk]) + f"?before={data['older']}").json()
    assert "Frage 00" in last["html"] and "Frage 04" in last["html"] and last["older"] is None
    assert "chat-older" not in last["html"]


def test_older_messages_refuses_bad_input_and_foreign_chats(web, anna):
    session = _chat(Principal.for_user(anna), "Kurz", ("a", "b"))
    url = reverse("chat:older", args=[session.pk])
    response = web.get(url + "?before=abc", HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and response.json()["code"] == "invalid_chat_input"
    other = _chat(Principal.for_user(UserFactory()), "Fremd", ("geheim", "x"))
    assert web.get(reverse("chat:older", args=[other.pk]) + "?before=999999").status_code == 404


# --- the composer ---------------------------------------------------------------------------
def test_stop_button_only_with_an_active_run(web, anna, model):
    me = Principal.for_user(anna)
    session = _chat(me, "Ruhig")
    body = web.get(reverse("chat:session", args=[session.pk])).content.decode()
    assert 'id="chat-stop" class="danger" hidden' in body
    say(me, session.pk, "Frage")
    body = web.get(reverse("chat:session", args=[session.pk])).content.decode()
    assert 'id="chat-stop" class="danger">' in body


def test_user_line_breaks_are_kept(web, anna, model):
    me = Principal.for_user(anna)
    session = _chat(me)
    say(me, session.pk, "Zeile eins\nZeile zwei\n\n<b>drei</b>")
    body = web.get(reverse("chat:session", args=[session.pk])).content.decode()
    # pre-wrap keeps the breaks; the text itself is escaped
    assert '<div class="text">Zeile eins\nZeile zwei\n\n&lt;b&gt;drei&lt;/b&gt;</div>' in body


def test_first_message_sets_the_fallback_title_live(me, anna, model):
    session = _chat(me)
    say(me, session.pk, "Wie hoch ist die Grundsteuer der Bäckerei Sonnenschein in Köln 2025 genau?")
    session.refresh_from_db()
    assert session.title == "Wie hoch ist die Grundsteuer der Bäckerei Sonnenschein in…"
    event = MutationEvent.objects.order_by("id").last()
    assert event.topic == "chat.session.updated" and event.ui_actions[0]["record"]["title"] == session.title


# --- REST API (mobile clients) --------------------------------------------------------------
@pytest.fixture
def api(anna):
    from rest_framework.test import APIClient

    from apps.apikeys.services import issue_device_token

    _, token = issue_device_token(anna, "Annas iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_api_rename_search_and_delete(api, me):
    session = _chat(me, "Alt", ("Wie hoch ist die Grundsteuer?", "Hoch."))
    _chat(me, "Anderes")
    url = f"/api/v1/chat/sessions/{session.pk}/"
    renamed = api.patch(url, {"title": "Grundsteuer"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["session"]["title"] == "Grundsteuer"
    assert api.patch(url, {"title": ""}, format="json").status_code == 400
    assert api.get(url).json()["session"]["title"] == "Grundsteuer"
    found = api.get("/api/v1/chat/sessions/", {"q": "grundsteuer"}).json()
    assert [s["id"] for s in found["sessions"]] == [session.pk]
    assert api.delete(url).status_code == 204
    assert api.get(url).status_code == 404
    assert api.delete(url).json()["code"] == "chat_session_not_found"


def test_api_cannot_touch_someone_elses_chat(api):
    other = _chat(Principal.for_user(UserFactory()), "Fremd")
    url = f"/api/v1/chat/sessions/{other.pk}/"
    assert api.patch(url, {"title": "Meins"}, format="json").status_code == 404
    assert api.delete(url).status_code == 404
    other.refresh_from_db()
    assert other.title == "Fremd"
