"""The bell and the notifications page: idempotent notify(), counts, mark read, privacy, query
counts constant in rows, and the live events that keep every open tab's bell current."""

import threading

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from apps.mutations.models import MutationEvent
from apps.notifications import services
from apps.notifications.models import Notification
from apps.notifications.services import notify

pytestmark = pytest.mark.django_db


def test_a_key_sends_once_per_person(anna, ben):
    first = notify(anna, kind="deadline.due", title="Frist heute", key="deadline.due:1")
    assert first is not None
    assert notify(anna, kind="deadline.due", title="Frist heute", key="deadline.due:1") is None
    assert notify(ben, kind="deadline.due", title="Frist heute", key="deadline.due:1") is not None
    assert notify(anna, kind="x", title="no key") and notify(anna, kind="x", title="no key")
    assert Notification.objects.filter(user=anna).count() == 3
    # the repeat published nothing: one created event per notification actually sent
    assert MutationEvent.objects.filter(topic="notifications.created").count() == 4
    asked = [(anna.pk, "deadline.due:1"), (anna.pk, "deadline.due:2"), (ben.pk, "x")]
    assert services.sent_keys(asked) == {(anna.pk, "deadline.due:1")}


def test_the_unique_index_refuses_a_repeat_the_pre_check_missed(anna, monkeypatch):
    notify(anna, kind="k", title="t", key="same")
    real_filter = Notification.objects.filter

    def no_pre_check(*args, **kwargs):
        return real_filter(pk=-1) if kwargs.get("key") == "same" else real_filter(*args, **kwargs)

    monkeypatch.setattr(Notification.objects, "filter", no_pre_check)
    with transaction.atomic():
        assert notify(anna, kind="k", title="t", key="same") is None
        notify(anna, kind="k", title="still works after the refused insert")
    monkeypatch.undo()
    assert Notification.objects.filter(user=anna).count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_senders_deliver_one(anna):
    """Two workers running the same reminder at the same moment: the unique index lets one win."""
    barrier = threading.Barrier(2)
    results = []

    def send():
        from django.db import connection as conn

        try:
            with transaction.atomic():
                barrier.wait(timeout=5)
                results.append(notify(anna, kind="k", title="t", key="race"))
        finally:
            conn.close()

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert len(results) == 2 and sum(r is not None for r in results) == 1
    assert Notification.objects.filter(user=anna, key="race").count() == 1


def test_bell_on_every_page_shows_the_unread_count(client, anna, ben):
    for i in range(3):
        notify(anna, kind="reminder", title=f"Erinnerung {i}")
    notify(ben, kind="reminder", title="Bens Geheimnis")
    client.force_login(anna)
    html = client.get("/kalender/").content.decode()
    assert 'id="notification-bell"' in html
    assert '<span class="bell-count" id="notification-count" aria-live="polite">3</span>' in html
    assert "Erinnerung 2" in html and "Bens Geheimnis" not in html
    assert "js/notifications-bell.js" in html


def test_mark_read_and_mark_all_read(client, anna, ben):
    mine = [notify(anna, kind="reminder", title=f"N{i}") for i in range(3)]
    theirs = notify(ben, kind="reminder", title="Ben")
    client.force_login(anna)
    before = MutationEvent.objects.filter(topic="notifications.read").count()
    panel = client.post(f"/benachrichtigungen/{mine[0].pk}/gelesen/", HTTP_HX_REQUEST="true")
    assert panel.status_code == 200 and 'data-unread="2"' in panel.content.decode()
    client.post(f"/benachrichtigungen/{theirs.pk}/gelesen/")  # someone else's: ignored
    assert Notification.objects.get(pk=theirs.pk).read_at is None
    response = client.post("/benachrichtigungen/alle-gelesen/", HTTP_REFERER="http://testserver/kalender/")
    assert response.status_code == 302 and response["Location"] == "http://testserver/kalender/"
    assert services.unread_count(services_principal(anna)) == 0
    # every other open tab of Anna hears about it (one event per action that changed something)
    assert MutationEvent.objects.filter(topic="notifications.read", user=anna).count() == before + 2
    client.post("/benachrichtigungen/alle-gelesen/")
    assert MutationEvent.objects.filter(topic="notifications.read", user=anna).count() == before + 2


def test_open_marks_read_and_follows_only_local_links(client, anna, ben):
    local = notify(anna, kind="reminder", title="Frist", url="/kalender/")
    external = notify(anna, kind="reminder", title="Extern", url="https://example.com/x")
    client.force_login(anna)
    assert client.get(f"/benachrichtigungen/{local.pk}/oeffnen/")["Location"] == "/kalender/"
    assert Notification.objects.get(pk=local.pk).read_at is not None
    assert client.get(f"/benachrichtigungen/{external.pk}/oeffnen/")["Location"] == "/benachrichtigungen/"
    bens = notify(ben, kind="reminder", title="Ben")
    assert client.get(f"/benachrichtigungen/{bens.pk}/oeffnen/").status_code == 404
    assert Notification.objects.get(pk=bens.pk).read_at is None


def test_page_is_paginated_filters_unread_and_has_empty_states(client, anna):
    client.force_login(anna)
    assert "Noch keine Benachrichtigungen" in rows(client.get("/benachrichtigungen/"))
    for i in range(30):
        notify(anna, kind="reminder", title=f"Nachricht {i:02d}")
    services.mark_read(services_principal(anna), list(Notification.objects.values_list("id", flat=True)[:28]))
    first = rows(client.get("/benachrichtigungen/"))
    assert "Nachricht 29" in first and "Nachricht 04" not in first and "page=2" in first
    second = rows(client.get("/benachrichtigungen/?page=2"))
    assert "Nachricht 04" in second and "Nachricht 29" not in second
    unread = rows(client.get("/benachrichtigungen/?filter=unread"))
    assert "Nachricht 29" in unread and "Nachricht 28" in unread and "Nachricht 27" not in unread
    services.mark_all_read(services_principal(anna))
    assert "Sie haben alles gelesen" in rows(client.get("/benachrichtigungen/?filter=unread"))


def test_queries_are_constant_in_rows(client, anna):
    client.force_login(anna)
    notify(anna, kind="reminder", title="one")
    client.get("/benachrichtigungen/")
    with CaptureQueriesContext(connection) as few:
        client.get("/benachrichtigungen/")
    with CaptureQueriesContext(connection) as few_bell:
        client.get("/benachrichtigungen/glocke/")
    for i in range(40):
        notify(anna, kind="reminder", title=f"more {i}")
    with CaptureQueriesContext(connection) as many:
        client.get("/benachrichtigungen/")
    with CaptureQueriesContext(connection) as many_bell:
        client.get("/benachrichtigungen/glocke/")
    assert len(many) == len(few)
    assert len(many_bell) == len(few_bell)


def test_anonymous_gets_the_login_page(client):
    assert client.get("/benachrichtigungen/")["Location"].startswith("/accounts/login/")
    assert client.post("/benachrichtigungen/alle-gelesen/")["Location"].startswith("/accounts/login/")


def rows(response) -> str:
    """The page's own list (the header bell repeats the newest notifications)."""
    html = response.content.decode()
    return html[html.index('id="notification-rows"') :]


def services_principal(user):
    from apps.accounts.principal import Principal

    return Principal.for_user(user)
