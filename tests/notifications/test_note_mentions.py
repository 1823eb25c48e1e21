"""@-mentions in notes: "@Vorname Nachname" or "@email" in a page's text tells the colleague with
a bell notification linking the note — only if they may see the note (a private note never leaks),
never the author, never an inactive person, and once per page however often it is saved."""

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.mutations.origin import operation
from apps.notes import sharing as note_sharing
from apps.notes.models import Note, NotePage
from apps.notifications.models import Notification
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def mentions(user):
    return list(Notification.objects.filter(user=user, kind="mention").values_list("title", "url"))


def api_for(user):
    _, token = keys.issue_device_token(user, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def new_note(user, name, text, visibility):
    response = api_for(user).post(
        "/api/v1/notes/", {"name": name, "text": text, "visibility": visibility}, format="json"
    )
    assert response.status_code == 201, response.content
    return Note.objects.get(pk=response.json()["note"]["id"]), response.json()["page"]["id"]


def save_in_editor(client, page_id, html):
    """The note page's editor save (JSON POST), as the browser sends it."""
    version = NotePage.objects.get(pk=page_id).version
    response = client.post(
        reverse("notes:save-page", args=[page_id]),
        json.dumps({"html": html, "expected_version": version}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content


def test_a_mention_in_a_shared_note_tells_the_colleague_once(client, anna, ben):
    carla = UserFactory(email="carla@kanzlei.example", full_name="Carla Conrad", language="it")
    note, page_id = new_note(
        anna, "Telefonat Meier", "Rückruf: @Ben Braun übernimmt, cc @Anna Berger", "shared"
    )
    assert mentions(ben) == [("Anna Berger hat Sie erwähnt: Telefonat Meier", note.url)]
    assert "Rückruf" in Notification.objects.get(user=ben).body
    assert mentions(anna) == []  # never the author

    client.force_login(anna)
    # saved again with the same mention, then without it and with it again: still once
    save_in_editor(client, page_id, "<p>Rückruf: @Ben Braun übernimmt. Nachtrag.</p>")
    save_in_editor(client, page_id, "<p>Rückruf erledigt.</p>")
    save_in_editor(client, page_id, "<p>Rückruf: @ben braun noch einmal</p>")
    assert len(mentions(ben)) == 1
    # a colleague newly named in an edit hears of it, in their language; by e-mail address too
    save_in_editor(client, page_id, "<p>@Ben Braun und @carla@kanzlei.example bitte prüfen</p>")
    assert mentions(carla) == [("Anna Berger ti ha menzionato: Telefonat Meier", note.url)]
    assert len(mentions(ben)) == 1


def test_a_private_note_tells_only_who_may_see_it(client, anna, ben):
    carla = UserFactory(email="carla@kanzlei.example", full_name="Carla Conrad")
    note, page_id = new_note(anna, "Gesprächsnotiz", "Entwurf", "private")
    with operation(anna.pk):
        note_sharing.grant_note(Principal.for_user(anna), note.pk, f"user:{carla.pk}", "view")
    client.force_login(anna)
    save_in_editor(client, page_id, "<p>Frage an @Ben Braun und @Carla Conrad</p>")
    assert mentions(ben) == []  # no leak of a private note
    assert mentions(carla) == [("Anna Berger hat Sie erwähnt: Gesprächsnotiz", note.url)]


def test_inactive_and_unknown_people_are_not_told(anna, ben):
    ben.is_active = False
    ben.save(update_fields=["is_active"])
    new_note(anna, "Übergabe", "@Ben Braun, @Niemand Hier und @wer@nirgends.example", "shared")
    assert Notification.objects.filter(kind="mention").count() == 0
