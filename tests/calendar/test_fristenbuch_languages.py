"""The Fristenbuch stores field and status as codes; each viewer reads them in their own language
(issue 14, item 10: a German text must not appear on an English or Italian page)."""

import datetime as dt

import pytest
from django.utils import translation

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.models import DeadlineChange

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def language_restored():
    """The middleware activates the viewer's language in this thread; later tests expect German."""
    with translation.override("de"):
        yield


@pytest.mark.parametrize(
    ("language", "field", "old", "new"),
    [
        ("de", "Status", "offen", "erledigt"),
        ("en", "Status", "open", "done"),
        ("it", "Stato", "aperta", "evasa"),
    ],
)
def test_a_status_change_reads_in_the_viewers_language(client, anna, language, field, old, new):
    day = dt.date.today() + dt.timedelta(days=20)
    event = services.create_event(
        Principal.for_user(anna), title="Frist", kind="deadline", start=day.isoformat()
    )
    DeadlineChange.objects.create(event=event, field="status", old="open", new="done")
    anna.language = language
    anna.save(update_fields=["language"])
    client.force_login(anna)
    page = client.get(f"/kalender/fristen/{event.pk}/verlauf/").content.decode()
    assert f"<td>{field}</td><td>{old}</td><td>{new}</td>" in page
