import pytest
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.mutations.models import MutationEvent
from apps.notifications.models import Notification
from apps.notifications.services import notify
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/v1/notifications"


def key_client(user, scopes):
    _, plaintext = keys.create_api_key(Principal.for_user(user), name="watch", scopes=scopes)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return client


def queries_for(client, params):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        response = client.get(URL, params)
    return response.json(), len(ctx.captured_queries)


def test_cursor_listing_is_read_only_and_private():
    admin = UserFactory(role="admin", is_superuser=True)
    other = UserFactory()
    for i in range(5):
        notify(admin, kind="reminder", title=f"Frist {i}")
    notify(other, kind="reminder", title="not yours")
    client = key_client(admin, ["notifications:read"])
    client.get(URL)  # warm-up: the key's last-used stamp is written at most once a minute
    first, few = queries_for(client, {"limit": 3})
    assert [n["title"] for n in first["notifications"]] == ["Frist 0", "Frist 1", "Frist 2"]
    rest = client.get(URL, {"after": first["next_after"]}).json()
    assert [n["title"] for n in rest["notifications"]] == ["Frist 3", "Frist 4"]
    assert not Notification.objects.filter(read_at__isnull=False).exists()  # polling marks nothing read
    assert MutationEvent.objects.filter(topic="notifications.created", user=admin).count() == 5
    for i in range(40):
        notify(admin, kind="reminder", title=f"more {i}")
    _, many = queries_for(client, {"limit": 45})
    assert many == few  # constant in the number of notifications


def test_bad_cursor_and_wrong_scope():
    admin = UserFactory(role="admin", is_superuser=True)
    assert key_client(admin, ["notifications:read"]).get(URL, {"after": "x"}).status_code == 400
    assert key_client(admin, ["tools:execute"]).get(URL).status_code == 403
    assert APIClient().get(URL).status_code in (401, 403)
