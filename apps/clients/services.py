"""The only place that changes Mandanten and Akten state. Tools, REST API, pages, admin and demo
call these functions with a `Principal` and the operation's validated input model
(`apps.clients.contracts`; internal callers build it with `apps.core.inputs.build`); visibility,
the checks the contract cannot make (choices sent as text over REST, clashes, people) and live
events are enforced here once. Unknown ids answer `client_not_found` / `case_not_found`.

Other domains read Mandanten through the functions "for other domains" below (links, pickers,
name matches), which all go through `apps.clients.visibility.visible_clients`."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Func, Q, QuerySet, Value
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.accounts.services import active_person_id
from apps.clients import events, numbering, visibility
from apps.clients.contracts import (
    CaseCreate,
    CaseFilter,
    CaseOut,
    CaseUpdate,
    ClientCreate,
    ClientFilter,
    ClientOut,
    ClientUpdate,
)
from apps.clients.errors import CaseClientMismatch, CaseNotFound, ClientNotFound
from apps.clients.models import NAME_MAX, NOTES_MAX, SUBJECT_MAX, Case, Client
from apps.clients.records import case_relations, client_relations
from apps.core import validation
from apps.core.db.lookup import get_by_id
from apps.core.db.paging import total_of
from apps.core.db.saving import save_unique
from apps.core.db.search import search
from apps.core.db.versioning import Versioned
from apps.core.inputs import build

MAX_PAGE = 200
CLIENT_TEXT_FIELDS = {
    "tax_number": 40,
    "phone": 60,
    "street": 200,
    "postal_code": 20,
    "city": 120,
    "country": 80,
    "notes": NOTES_MAX,
}
CLIENT_FIELDS = frozenset(
    {
        "kind",
        "name",
        "client_number",
        "email",
        "responsible_id",
        "status",
        "neutralize_always",
        *CLIENT_TEXT_FIELDS,
    }
)
CASE_FIELDS = frozenset(
    {"reference", "subject", "client_id", "status", "responsible_id", "neutralize_always"}
)
CLIENT_VERSION = Versioned(
    "client", ClientOut.record, gettext_lazy("The client was changed by someone else in the meantime.")
)
CASE_VERSION = Versioned(
    "case", CaseOut.record, gettext_lazy("The case was changed by someone else in the meantime.")
)


# --- validation helpers -----------------------------------------------------------------------
def _email(value: str) -> str:
    value = validation.text(value, "email", max_length=254)
    if value:
        try:
            validate_email(value)
        except ValidationError:
            raise validation.invalid("email", _("must be an e-mail address like name@example.com")) from None
    return value


# --- clients: reading -------------------------------------------------------------------------
# A client the caller has just read through `get_client` (so: visible to this principal), which
# reads of the same id by the same principal reuse inside `shown(...)`: the client page's
# sections each name their client by id, and each would otherwise read it again.
_shown: ContextVar[tuple[Principal, Client] | None] = ContextVar("clients_shown", default=None)


@contextlib.contextmanager
def shown(principal: Principal, client: Client) -> Iterator[None]:
    """Within: `get_client` and `resolve_client` of `client`'s id by `principal` answer `client`
    without a query. Only for a client `get_client(principal, …)` returned in the same request."""
    token = _shown.set((principal, client))
    try:
        yield
    finally:
        _shown.reset(token)


def _already_shown(principal: Principal, client_id: Any) -> Client | None:
    known = _shown.get()
    if known is None or known[0] is not principal:
        return None
    try:
        return known[1] if int(client_id) == known[1].pk else None
    except (TypeError, ValueError):
        return None


def get_client(principal: Principal, client_id: int, *, for_update: bool = False) -> Client:
    if not for_update and (client := _already_shown(principal, client_id)) is not None:
        return client
    qs = client_relations(visibility.visible_clients(principal))
    if for_update:
        qs = visibility.visible_clients(principal).select_for_update(of=("self",))
    return get_by_id(qs, client_id, ClientNotFound, _("There is no client with id %(id)s."))


# --- for other domains: their reads of Mandanten, all through the visibility rule -------------
def resolve_client(
    principal: Principal, client_id: int | str | None, *, field: str = "client_id"
) -> Client | None:
    """The client a task, calendar entry or document links to: None when no id is given, else a
    client the principal can see. Unknown and invisible ids answer alike (`client_not_found`,
    naming the field), so other domains never link to, or leak, a client the caller cannot see."""
    if client_id in (None, ""):
        return None
    if (client := _already_shown(principal, client_id)) is not None:
        return client
    try:
        return (
            visibility.visible_clients(principal).only("id", "name", "client_number").get(pk=int(client_id))
        )
    except (Client.DoesNotExist, TypeError, ValueError):
        message = _("There is no client with id %(id)s.") % {"id": client_id}
        raise ClientNotFound(message, details={"field_errors": {field: message}}) from None


def resolve_case(
    principal: Principal,
    case_id: int | str | None,
    *,
    client_id: int | str | None = None,
    field: str = "case_id",
) -> Case | None:
    """The case (Akte) a task, note, calendar entry or document links to: None when no id is
    given, else a case the principal can see, with its client loaded. Unknown and invisible ids
    answer alike (`case_not_found`, naming the field). With `client_id` (the client the record
    names), a case of another client is refused (`case_client_mismatch`); a record without a
    client takes the case's."""
    if case_id in (None, ""):
        return None
    try:
        case = visibility.visible_cases(principal).select_related("client").get(pk=int(case_id))
    except (Case.DoesNotExist, TypeError, ValueError):
        message = _("There is no case with id %(id)s.") % {"id": case_id}
        raise CaseNotFound(message, details={"field_errors": {field: message}}) from None
    if client_id not in (None, "") and str(client_id) != str(case.client_id):
        message = _("Case %(reference)s belongs to another client (%(client)s).") % {
            "reference": case.reference,
            "client": case.client.name,
        }
        raise CaseClientMismatch(message, details={"field_errors": {field: message}})
    return case


def case_choices(principal: Principal) -> list[tuple[int, str]]:
    """(id, "reference subject (client)") of every visible open case, for the pickers of other
    domains' forms: one query."""
    rows = (
        visibility.visible_cases(principal)
        .filter(status=Case.Status.OPEN)
        .order_by("reference", "id")
        .values_list("id", "reference", "subject", "client__name")
    )
    return [(pk, f"{reference} {subject} ({client})") for pk, reference, subject, client in rows]


def client_choices(principal: Principal) -> list[tuple[int, str]]:
    """(id, "Name (number)") of every visible client by name, for the pickers of other domains'
    forms: one query whatever the office's size."""
    rows = (
        visibility.visible_clients(principal)
        .order_by("name", "id")
        .values_list("id", "name", "client_number")
    )
    return [(pk, f"{name} ({number})") for pk, name, number in rows]


def resolve_clients(principal: Principal, client_ids: Iterable[int]) -> list[Client]:
    """The clients among `client_ids` the principal can see, by id (one query). Unknown and
    invisible ids are left out alike; the caller decides how to answer for them."""
    ids = sorted(set(client_ids))
    if not ids:
        return []
    return list(visibility.visible_clients(principal).filter(pk__in=ids).order_by("pk"))


def visible_client_ids(principal: Principal) -> QuerySet:
    """The ids of the clients the principal can see, as a subquery (`client_id__in=…`)."""
    return visibility.visible_clients(principal).order_by().values("id")


def client_ids_matching(principal: Principal, words: str) -> QuerySet:
    """The ids of the visible clients whose name, number, city … match `words` (full text), as a
    subquery: how other domains let a search for "meier" find what is linked to Meier GmbH."""
    return search(visibility.visible_clients(principal), words).order_by().values("id")


# --- clients: listing -------------------------------------------------------------------------
def _filtered_clients(principal: Principal, query: str | None, status: str | None) -> QuerySet[Client]:
    qs = visibility.visible_clients(principal)
    if status is not None:  # "" (REST `?status=`) is no status: refused, not "any"
        qs = qs.filter(status=validation.choice(status, "status", Client.Status.values))
    if query:
        text = validation.text(query, "query", max_length=200)
        # Numbers are not German words: the client number and the Steuernummer also match by
        # their digits and letters alone, so "21/815/08150" and "2181508150" find the same client.
        qs = search(qs, text) | qs.filter(client_number__iexact=text) | _number_matches(qs, text)
    return qs


NUMBER_NOISE = r"[^0-9a-z]"
MIN_NUMBER_CHARS = 3


def _compact(value: str) -> Func:
    return Func(Lower(value), Value(NUMBER_NOISE), Value(""), Value("g"), function="regexp_replace")


def _number_matches(qs: QuerySet[Client], text: str) -> QuerySet[Client]:
    """Clients whose number or Steuernummer contains the query's digits and letters (separators
    such as "/", " " and "-" ignored); only for queries with a digit, so words stay full text."""
    compact = re.sub(NUMBER_NOISE, "", text.lower())
    if len(compact) < MIN_NUMBER_CHARS or not any(c.isdigit() for c in compact):
        return qs.none()
    numbers = Client.objects.alias(
        number_compact=_compact("client_number"), tax_compact=_compact("tax_number")
    ).filter(Q(number_compact__contains=compact) | Q(tax_compact__contains=compact))
    return qs.filter(id__in=numbers.values("id"))


def list_clients(principal: Principal, filters: ClientFilter | None = None) -> tuple[list[Client], int]:
    """A page of clients by name and their total: two queries whatever the page holds."""
    filters = filters or ClientFilter()
    qs = _filtered_clients(principal, filters.query, filters.status)
    total = qs.count()
    rows = list(client_relations(qs.order_by("name", "id"))[filters.offset : filters.offset + filters.limit])
    return rows, total


def search_clients(principal: Principal, query: str, *, limit: int = 20) -> list[Client]:
    text = validation.text(query, "query", max_length=200, required=True)
    rows, _total = list_clients(principal, build(ClientFilter, query=text, limit=limit))
    return rows


# --- clients: writing -------------------------------------------------------------------------
def _number_free(client_number: str, exclude_id: int | None = None) -> None:
    clash = Client.objects.filter(client_number__iexact=client_number)
    if exclude_id is not None:
        clash = clash.exclude(pk=exclude_id)
    if clash.exists():
        raise validation.invalid("client_number", _("another client already has this number"))


def _set_client_fields(client: Client, values: dict[str, Any]) -> None:
    if "name" in values:
        client.name = validation.text(values["name"], "name", max_length=NAME_MAX, required=True)
    if "client_number" in values:
        client.client_number = validation.text(
            values["client_number"], "client_number", max_length=40, required=True
        )
    if "kind" in values:
        client.kind = validation.choice(values["kind"], "kind", Client.Kind.values)
    if "status" in values:
        client.status = validation.choice(values["status"], "status", Client.Status.values)
    if "email" in values:
        client.email = _email(values["email"])
    for name, max_length in CLIENT_TEXT_FIELDS.items():
        if name in values:
            setattr(client, name, validation.text(values[name], name, max_length=max_length))
    if "responsible_id" in values:
        client.responsible_id = active_person_id(values["responsible_id"], "responsible_id")
    if "neutralize_always" in values:
        client.neutralize_always = _flag(values["neutralize_always"], "neutralize_always")


def _save_client(principal: Principal, client: Client, announce_key: str) -> Client:
    """The end of every client write: save, read it back as the record shows it, announce it."""
    save_unique(
        client, lambda: validation.invalid("client_number", _("another client already has this number"))
    )
    client = get_client(principal, client.pk)
    events.client_changed(client, announce_key)
    return client


@transaction.atomic
def create_client(principal: Principal, data: ClientCreate) -> Client:
    """A new client. Without a number (None or blank) it gets the next free number of the office's
    scheme (`apps.clients.numbering`)."""
    values = data.service_kwargs()
    client_number = values.pop("client_number", None)
    client = Client()
    _set_client_fields(client, values)
    if client_number is None or not client_number.strip():
        client.client_number = numbering.next_free_number()
    else:
        _set_client_fields(client, {"client_number": client_number})
        _number_free(client.client_number)
    return _save_client(principal, client, "mandanten.client.created")


@transaction.atomic
def update_client(principal: Principal, client_id: int, data: ClientUpdate) -> Client:
    """Partial update: only the fields the caller changed (`data.changes()`); the others stay as
    they are. With `expected_version` (the version the caller read), a stale write is refused with
    `version_conflict` instead."""
    changes = data.changes()
    validation.only_fields(changes, CLIENT_FIELDS)
    client = get_client(principal, client_id, for_update=True)
    CLIENT_VERSION.check(client, data.expected_version, lambda: get_client(principal, client.pk))
    _set_client_fields(client, changes)
    if "client_number" in changes:
        _number_free(client.client_number, exclude_id=client.pk)
    client.version += 1
    return _save_client(principal, client, "mandanten.client.updated")


# --- cases ------------------------------------------------------------------------------------
def get_case(principal: Principal, case_id: int, *, for_update: bool = False) -> Case:
    qs = case_relations(visibility.visible_cases(principal))
    if for_update:
        qs = visibility.visible_cases(principal).select_for_update(of=("self",))
    return get_by_id(qs, case_id, CaseNotFound, _("There is no case with id %(id)s."))


def list_cases(principal: Principal, filters: CaseFilter | None = None) -> tuple[list[Case], int]:
    """A page of cases, newest first, and their total: two queries (three with a client)."""
    filters = filters or CaseFilter()
    qs = visibility.visible_cases(principal)
    if filters.client_id is not None:
        qs = qs.filter(client=get_client(principal, filters.client_id))
    if filters.status is not None:  # REST sends it as text: checked here
        qs = qs.filter(status=validation.choice(filters.status, "status", Case.Status.values))
    if filters.query:
        qs = qs.filter(Q(reference__icontains=filters.query) | Q(subject__icontains=filters.query))
    start, end = filters.offset, filters.offset + filters.limit
    cases = list(case_relations(qs.order_by("-created_at", "-id"))[start:end])
    return cases, total_of(qs, cases, offset=filters.offset, limit=filters.limit)


def _set_case_fields(principal: Principal, case: Case, values: dict[str, Any]) -> None:
    if "reference" in values:
        case.reference = validation.text(values["reference"], "reference", max_length=60, required=True)
    if "subject" in values:
        case.subject = validation.text(values["subject"], "subject", max_length=SUBJECT_MAX, required=True)
    if "status" in values:
        case.status = validation.choice(values["status"], "status", Case.Status.values)
    if "responsible_id" in values:
        case.responsible_id = active_person_id(values["responsible_id"], "responsible_id")
    if "client_id" in values:
        case.client = get_client(principal, values["client_id"])
    if "neutralize_always" in values:
        case.neutralize_always = _flag(values["neutralize_always"], "neutralize_always")


def _flag(value: bool | str | None, field: str) -> bool:
    """A yes/no field ("neutralize always"): booleans, or what a form posts."""
    if isinstance(value, bool):
        return value
    if value in (None, "", "off", "false", "0"):
        return False
    if value in ("on", "true", "1"):
        return True
    raise validation.invalid(field, _("must be true or false"))


def _reference_taken() -> Exception:
    """A taken Aktenzeichen, naming the next free one of the office's scheme."""
    return validation.invalid(
        "reference",
        _("another case already has this reference; the next free one is %(free)s")
        % {"free": numbering.next_free_reference(reserve=False)},
    )


def _save_case(principal: Principal, case: Case, announce_key: str) -> Case:
    """The end of every case write: save (a reference is unique), read it back, announce it."""
    clash = Case.objects.filter(reference__iexact=case.reference).exclude(pk=case.pk)
    if clash.exists():
        raise _reference_taken()
    save_unique(case, _reference_taken)
    case = get_case(principal, case.pk)
    events.case_changed(case, announce_key)
    return case


@transaction.atomic
def create_case(principal: Principal, data: CaseCreate) -> Case:
    """A new case (Akte). Without a reference (None or blank) it gets the next free Aktenzeichen
    of the office's scheme (`apps.clients.numbering`)."""
    values = data.service_kwargs()
    reference = values.pop("reference", None)
    case = Case()
    _set_case_fields(principal, case, values)
    if reference is None or not reference.strip():
        case.reference = numbering.next_free_reference()
    else:
        _set_case_fields(principal, case, {"reference": reference})
    _status_stamp(principal, case)
    return _save_case(principal, case, "cases.case.created")


@transaction.atomic
def update_case(principal: Principal, case_id: int, data: CaseUpdate) -> Case:
    """Partial update of the fields the caller changed (`data.changes()`); with
    `expected_version` a stale write is refused (`version_conflict`)."""
    changes = data.changes()
    validation.only_fields(changes, CASE_FIELDS)
    case = get_case(principal, case_id, for_update=True)
    CASE_VERSION.check(case, data.expected_version, lambda: get_case(principal, case.pk))
    was_open = case.status == Case.Status.OPEN
    _set_case_fields(principal, case, changes)
    if was_open != (case.status == Case.Status.OPEN):
        _status_stamp(principal, case)
    case.version += 1
    return _save_case(principal, case, "cases.case.updated")


def _status_stamp(principal: Principal, case: Case) -> None:
    """When and by whom a case was closed (the case page says so); reopening clears it."""
    closed = case.status == Case.Status.CLOSED
    case.closed_at = timezone.now() if closed else None
    case.closed_by = principal.audit_actor if closed else None
