"""Pages load the live-update module for signed-in users, starting at the current cursor."""

from __future__ import annotations

import pytest

from apps.mutations.services import record_mutation


@pytest.mark.django_db
def test_signed_in_pages_start_the_live_connection_at_the_head(web, layer):
    event = record_mutation(audience="all", topic="a.b")
    html = web.get("/").content.decode()
    assert 'type="module" src="/static/js/mutations.js"' in html
    assert f"connectMutations({{ after: {event.id} }})" in html


@pytest.mark.django_db
def test_admin_lists_events_read_only(client, admin_user, layer):
    event = record_mutation(audience="all", topic="aufgaben.task.updated")
    client.force_login(admin_user)
    assert client.get("/admin/mutations/mutationevent/").status_code == 200
    assert client.get(f"/admin/mutations/mutationevent/{event.pk}/change/").status_code == 200
    assert client.get("/admin/mutations/mutationevent/add/").status_code == 403
