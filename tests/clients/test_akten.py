"""Akten (cases) people open and fill from pages: "Neue Akte" with the office's Aktenzeichen
scheme, a taken Aktenzeichen answered with the next free one, existing Fristen, tasks, documents
and notes linked from the case page, closing and reopening."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar.models import CalendarEvent
from apps.clients import case_links, numbering, services
from apps.clients.contracts import CaseCreate
from apps.clients.models import Case
from apps.core.inputs import build
from apps.core.services import set_setting
from apps.documents.models import Document
from apps.notes.models import Note
from apps.tasks.models import Board, Task
from apps.tools.dispatcher import dispatch
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
YEAR = timezone.localdate().year


@pytest.fixture
def board(db):
    return Board.objects.create(name="Steuern")


# --- the Aktenzeichen scheme -------------------------------------------------------------------
def test_a_case_without_reference_gets_the_next_of_the_year(as_anna, make_client, make_case):
    meier = make_client("Meier GmbH")
    make_case(meier, reference=f"{YEAR}-0041")
    make_case(meier, reference="ALT-99")  # another form: ignored
    case = services.create_case(as_anna, build(CaseCreate, client_id=meier.pk, subject="Einspruch KSt 2023"))
    assert case.reference == f"{YEAR}-0042"
    blank = services.create_case(
        as_anna, build(CaseCreate, client_id=meier.pk, subject="Lohn", reference="  ")
    )
    assert blank.reference == f"{YEAR}-0043"


def test_the_case_scheme_is_an_instance_setting(as_anna, make_client):
    set_setting(numbering.CASES.setting_key, {"prefix": "AZ/", "start": 500, "width": 3})
    meier = make_client("Meier GmbH")
    assert (
        services.create_case(as_anna, build(CaseCreate, client_id=meier.pk, subject="A")).reference
        == "AZ/500"
    )
    assert (
        services.create_case(as_anna, build(CaseCreate, client_id=meier.pk, subject="B")).reference
        == "AZ/501"
    )


def test_a_taken_reference_names_the_next_free_one(as_anna, make_client, make_case):
    meier = make_client("Meier GmbH")
    make_case(meier, reference=f"{YEAR}-0007")
    with pytest.raises(Exception) as refused:
        services.create_case(
            as_anna, build(CaseCreate, client_id=meier.pk, subject="Doppelt", reference=f"{YEAR}-0007")
        )
    assert refused.value.code == "invalid_input"
    assert f"{YEAR}-0008" in refused.value.field_errors["reference"]
    assert Case.objects.count() == 1


@pytest.mark.parametrize("value", [{"prefix": "{JJJJ}<"}, {"width": 0}, {"start": -1}, "2026-"])
def test_bad_case_schemes_are_refused(value):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        numbering.check_case_scheme(value)


def test_the_copilot_opens_a_case_without_reference(anna_ctx, make_client):
    meier = make_client("Meier GmbH")
    result = dispatch("cases_create", {"client_id": meier.pk, "subject": "Betriebsprüfung"}, anna_ctx)
    assert result.ok, result.message
    assert result.output["case"]["reference"] == f"{YEAR}-0001"


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_creates_get_twenty_distinct_references(anna, make_client):
    """Twenty sessions open cases at once: each gets its own Aktenzeichen, none fails."""
    principal = Principal.for_user(anna)
    meier = make_client("Meier GmbH")
    references, failures = [], []
    start = threading.Barrier(20)

    def create(i: int) -> None:
        try:
            start.wait(10)
            case = services.create_case(
                principal, build(CaseCreate, client_id=meier.pk, subject=f"Parallel {i}")
            )
            references.append(case.reference)
        except Exception as exc:  # pragma: no cover - reported below
            failures.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=create, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    assert sorted(references) == [f"{YEAR}-{i:04d}" for i in range(1, 21)]


# --- "Neue Akte" pages -------------------------------------------------------------------------
def test_new_case_from_the_client_page(web, make_client, anna):
    meier = make_client("Meier GmbH", responsible=anna)
    detail = web.get(reverse("clients:detail", args=[meier.pk])).content.decode()
    url = reverse("clients:client-case-create", args=[meier.pk])
    assert f'href="{url}"' in detail
    form = web.get(url).content.decode()
    assert f'<option value="{meier.pk}" selected>' in form and f'placeholder="{YEAR}-0001"' in form
    response = web.post(url, {"client": meier.pk, "subject": "Einspruch KSt 2023", "responsible": anna.pk})
    case = Case.objects.get()
    assert response.status_code == 302 and response.url == reverse("clients:case", args=[case.pk])
    assert (case.reference, case.client_id, case.responsible_id) == (f"{YEAR}-0001", meier.pk, anna.pk)


def test_new_case_with_a_taken_reference_shows_the_next_free_one(web, make_client, make_case):
    meier = make_client("Meier GmbH")
    make_case(meier, reference=f"{YEAR}-0003")
    url = reverse("clients:case-create")
    response = web.post(url, {"client": meier.pk, "subject": "Doppelt", "reference": f"{YEAR}-0003"})
    body = response.content.decode()
    assert response.status_code == 200 and Case.objects.count() == 1
    assert f"{YEAR}-0004" in body and 'class="error"' in body


def test_new_case_refuses_missing_subject_and_unknown_client(web):
    response = web.post(reverse("clients:case-create"), {"client": "999999", "subject": ""})
    form = response.context["form"]
    assert response.status_code == 200 and {"client", "subject"} <= set(form.errors)
    assert Case.objects.count() == 0


def test_case_list_filters_and_keeps_its_query_count(web, make_client, make_case, anna):
    meier = make_client("Meier GmbH")
    make_case(meier, subject="Einspruch KSt", responsible=anna)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert web.get(reverse("clients:cases")).status_code == 200
        return len(queries)

    few = count()
    for i in range(12):
        make_case(make_client(f"Mandant {i}"), subject=f"Akte {i}", responsible=anna, status="closed")
    assert count() == few
    page = web.get(reverse("clients:cases"), {"status": "open", "q": "Einspruch"}).content.decode()
    assert "Einspruch KSt" in page and "Akte 3" not in page
    bad = web.get(reverse("clients:cases"), {"status": "maybe"})
    assert bad.status_code == 200  # a bad filter is a message, not an error page


# --- linking existing rows ---------------------------------------------------------------------
def _frist(client, title="Einspruchsfrist", **fields):
    start = timezone.now() + dt.timedelta(days=5)
    return CalendarEvent.objects.create(
        title=title, start=start, end=start, kind="deadline", client=client, **fields
    )


def test_the_case_page_links_existing_rows(web, anna, board, statuses, make_client, make_case):
    meier, other = make_client("Meier GmbH"), make_client("Schulz")
    akte = make_case(meier, subject="Einspruch")
    frist = _frist(meier)
    task = Task.objects.create(title="Belege anfordern", board=board, status=statuses["offen"], client=meier)
    Task.objects.create(title="Fremder Mandant", board=board, status=statuses["offen"], client=other)
    note = Note.objects.create(name="Aktenvermerk", visibility="shared")
    page = web.get(reverse("clients:case", args=[akte.pk])).content.decode()
    picker = page.split('id="case-link"', 1)[1].split("</form>", 1)[0]
    assert f'value="deadlines:{frist.pk}"' in picker and f'value="tasks:{task.pk}"' in picker
    assert f'value="notes:{note.pk}"' in picker and "Fremder Mandant" not in picker
    url = reverse("clients:case-link", args=[akte.pk])
    for item in (f"deadlines:{frist.pk}", f"tasks:{task.pk}", f"notes:{note.pk}"):
        assert web.post(url, {"item": item}).status_code == 302
    frist.refresh_from_db()
    task.refresh_from_db()
    note.refresh_from_db()
    assert frist.case_id == task.case_id == note.case_id == akte.pk
    linked = web.get(reverse("clients:case", args=[akte.pk])).content.decode()
    region = linked.split('id="case-linked"', 1)[1]
    assert "Einspruchsfrist" in region and "Belege anfordern" in region and "Aktenvermerk" in region


def test_a_document_of_the_client_is_linked(anna_ctx, as_anna, make_client, make_case):
    meier = make_client("Meier GmbH")
    akte = make_case(meier)
    created = dispatch(
        "documents_create",
        {"title": "Bescheid KSt 2023", "content": "# Bescheid", "client_ids": [meier.pk]},
        anna_ctx,
    )
    assert created.ok, created.message
    document_id = created.output["document"]["id"]
    options = {group.key: group.options for group in case_links.groups(as_anna, akte)}
    assert (f"documents:{document_id}", "Bescheid KSt 2023") in options["documents"]
    case_links.link(as_anna, akte, f"documents:{document_id}")
    assert Document.objects.get(pk=document_id).case_id == akte.pk


def test_rows_the_person_may_not_see_are_neither_offered_nor_linked(web, statuses, make_client, make_case):
    meier = make_client("Meier GmbH")
    akte = make_case(meier)
    ben = UserFactory(email="ben@kanzlei.example")
    private = Board.objects.create(name="Bens Board", visibility="private", owner=ben)
    hidden = Task.objects.create(title="Bens Aufgabe", board=private, status=statuses["offen"], client=meier)
    page = web.get(reverse("clients:case", args=[akte.pk])).content.decode()
    assert "Bens Aufgabe" not in page
    response = web.post(
        reverse("clients:case-link", args=[akte.pk]), {"item": f"tasks:{hidden.pk}"}, follow=True
    )
    hidden.refresh_from_db()
    assert hidden.case_id is None and response.status_code == 200
    bogus = web.post(reverse("clients:case-link", args=[akte.pk]), {"item": "weather:1"}, follow=True)
    assert bogus.status_code == 200 and list(bogus.context["messages"])


def test_a_row_of_another_client_cannot_be_linked(as_anna, board, statuses, make_client, make_case):
    meier, schulz = make_client("Meier GmbH"), make_client("Schulz")
    akte = make_case(meier)
    task = Task.objects.create(title="Schulz", board=board, status=statuses["offen"], client=schulz)
    with pytest.raises(Exception) as refused:
        case_links.link(as_anna, akte, f"tasks:{task.pk}")
    assert refused.value.code == "case_client_mismatch"


def test_the_picker_takes_a_constant_number_of_queries(as_anna, board, statuses, make_client, make_case):
    meier = make_client("Meier GmbH")
    akte = make_case(meier)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            case_links.groups(as_anna, akte)
        return len(queries)

    few = count()
    for i in range(10):
        Task.objects.create(title=f"T{i}", board=board, status=statuses["offen"], client=meier)
        _frist(meier, title=f"F{i}")
        Note.objects.create(name=f"N{i}", visibility="shared")
    assert count() == few


# --- closing and reopening -----------------------------------------------------------------------
def test_close_and_reopen_from_the_case_page(web, anna, make_client, make_case):
    akte = make_case(make_client("Meier GmbH"))
    url = reverse("clients:case-status", args=[akte.pk])
    assert web.post(url, {"status": "closed", "version": akte.version}).status_code == 302
    akte.refresh_from_db()
    assert akte.status == "closed" and akte.closed_by == anna and akte.closed_at is not None
    page = web.get(reverse("clients:case", args=[akte.pk])).content.decode()
    assert 'id="case-closed"' in page and "Anna Berger" in page and 'id="case-link"' not in page
    with pytest.raises(Exception) as refused:
        case_links.link(Principal.for_user(anna), akte, "tasks:1")
    assert refused.value.code == "invalid_input"
    assert web.post(url, {"status": "open", "version": akte.version}).status_code == 302
    akte.refresh_from_db()
    assert akte.status == "open" and akte.closed_at is None and akte.closed_by is None


def test_rest_opens_a_case_and_names_the_next_free_reference(anna, make_client, make_case):
    from django.core.cache import cache
    from rest_framework.test import APIClient

    from apps.apikeys import services as keys

    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    meier = make_client("Meier GmbH")
    created = api.post("/api/v1/cases/", {"client_id": meier.pk, "subject": "Einspruch"}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["case"]["reference"] == f"{YEAR}-0001"
    taken = api.post(
        "/api/v1/cases/",
        {"client_id": meier.pk, "subject": "Doppelt", "reference": f"{YEAR}-0001"},
        format="json",
    )
    assert taken.status_code == 400
    assert f"{YEAR}-0002" in taken.json()["details"]["field_errors"]["reference"]
