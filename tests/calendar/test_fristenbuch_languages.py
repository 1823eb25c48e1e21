"""The Fristenbuch stores field and status as codes; each viewer reads them in their own language
(issue 14, item 10: a German text must not appear on an English or Italian page)."""

import datetime as dt

import pytest
from django.utils import translation

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.contracts import EventCreate, FiledEventUpdate
from apps.calendar.models import DeadlineChange
from apps.calendar.reasons import CodedReason
from apps.core.inputs import build

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
        Principal.for_user(anna), build(EventCreate, title="Frist", kind="deadline", start=day.isoformat())
    )
    DeadlineChange.objects.create(event=event, field="status", old="open", new="done")
    anna.language = language
    anna.save(update_fields=["language"])
    client.force_login(anna)
    page = client.get(f"/kalender/fristen/{event.pk}/verlauf/").content.decode()
    assert f"<td>{field}</td><td>{old}</td><td>{new}</td>" in page


@pytest.mark.parametrize(
    ("language", "reason"),
    [
        ("de", "Das Dokument „Bescheid 2024“ nennt ein neues Datum."),
        ("en", "The document “Bescheid 2024” names a new date."),
        ("it", "Il documento «Bescheid 2024» indica una nuova data."),
    ],
)
def test_a_reason_the_system_wrote_reads_in_the_viewers_language(client, anna, language, reason):
    """The document workflow moves a Frist with a coded reason (written while German was active);
    each reader sees it in their own language, a person's typed reason stays as typed."""
    principal = Principal.for_user(anna)
    day = dt.date.today() + dt.timedelta(days=20)
    event = services.create_event(
        principal, build(EventCreate, title="Frist", kind="deadline", start=day.isoformat())
    )
    moved = (day + dt.timedelta(days=7)).isoformat()
    services.update_event(
        principal,
        event.pk,
        build(
            FiledEventUpdate,
            start=moved,
            reason_code="document_names_new_date",
            reason_params={"title": "Bescheid 2024"},
        ),
    )
    line = DeadlineChange.objects.filter(event=event, field="due").order_by("at", "id").last()
    assert line.reason_code == "document_names_new_date" and line.reason.startswith("Das Dokument")
    anna.language = language
    anna.save(update_fields=["language"])
    client.force_login(anna)
    page = client.get(f"/kalender/fristen/{event.pk}/verlauf/").content.decode()
    assert f"<td>{reason}</td>" in page


def test_an_unknown_reason_code_is_refused_and_old_rows_keep_their_text():
    with pytest.raises(ValueError):
        CodedReason("no_such_reason")
    line = DeadlineChange(reason="Vom Mandanten telefonisch bestätigt", reason_code="", reason_params={})
    assert line.reason_shown == "Vom Mandanten telefonisch bestätigt"
    stale = DeadlineChange(reason="alt", reason_code="document_names_new_date", reason_params={})
    assert stale.reason_shown == "alt"  # values missing: the stored wording
