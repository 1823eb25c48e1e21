"""The typed contract of the Mandanten and Akten operations: what callers send (input models, shared
by the tools and the REST API) and what every surface answers with (output models; the builders in
`records.py` produce exactly these shapes, checked at the API boundary and in the tests).

Choice fields (`kind`, `status`) are literals for the tools. The REST surface has always let the
service check them, answering 400 `invalid_input` naming the field like every other value the
service refuses: its body and query models (`…Body`, `…Query`) are the same operations with those
fields as text documented with their choices. REST bodies may leave any field out but send null
only to empty `responsible_id` (as they always could).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field

from apps.accounts.contracts import AsPerson
from apps.clients.models import NAME_MAX, NOTES_MAX, SUBJECT_MAX, Case, Client
from apps.clients.records import case_ref, client_ref
from apps.core.contracts import Input, Output, PageInput, RestBody, paged, query_field, wrapped
from apps.core.outputs import RowOutput

Kind = Literal["person", "company"]
ClientStatus = Literal["active", "inactive"]
CaseStatus = Literal["open", "closed"]
NUMBER_MAX = 40
REFERENCE_MAX = 60


def _checked_by_service(choices: list[str], description: str | None = None) -> Any:
    """A choice field the service validates (REST): text, documented with its choices."""
    text = Annotated[str, Field(json_schema_extra={"enum": choices})]
    return Annotated[text | None, Field(description=description)]


KindText = _checked_by_service(Client.Kind.values, "person or company.")
ClientStatusText = _checked_by_service(Client.Status.values, "active or inactive.")
CaseStatusText = _checked_by_service(Case.Status.values, "open or closed.")


class _ToolChanges:
    """A tool sends every field, null meaning "unchanged": the changes are the non-null fields,
    but for the version read and the id naming the record (`NOT_CHANGES`)."""

    NOT_CHANGES: ClassVar[frozenset[str]] = frozenset({"expected_version"})

    def changes(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump(exclude=set(self.NOT_CHANGES)).items() if v is not None}


class _RestBody(RestBody):
    NULLABLE: ClassVar[frozenset[str]] = frozenset({"responsible_id"})

    # What the service gets: the fields the caller sent (a null empties the field).
    def service_kwargs(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True)

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True, exclude={"expected_version"})


# --- output -----------------------------------------------------------------------------------
class ClientRef(Output):
    """How a task, calendar entry, case or document names its Mandant (enough to show and link it)."""

    id: int
    name: str
    client_number: str
    url: str


class CaseRef(Output):
    """How a task, note, calendar entry or document names its Akte (enough to show and link it)."""

    id: int
    reference: str
    subject: str
    url: str


def _as_client(value: Any) -> Any:
    return client_ref(value) if isinstance(value, Client) else value


def _as_case(value: Any) -> Any:
    return case_ref(value) if isinstance(value, Case) else value


# Output fields that build themselves from a row (RowOutput): a client or case row validates into
# its reference.
AsClient = Annotated[ClientRef, BeforeValidator(_as_client)]
AsCase = Annotated[CaseRef, BeforeValidator(_as_case)]


class ClientOut(RowOutput):
    """A client as every surface sends it; built from the row (`ClientOut.record(client)`)."""

    id: int
    kind: Kind
    name: str
    client_number: str
    tax_number: str
    email: str
    phone: str
    street: str
    postal_code: str
    city: str
    country: str
    responsible: AsPerson | None
    status: ClientStatus
    notes: str
    version: int
    created_at: dt.datetime
    updated_at: dt.datetime
    url: str = Field(description="The client page.")


class CaseOut(RowOutput):
    """A case as every surface sends it; built from the row (`CaseOut.record(case)`)."""

    id: int
    reference: str
    subject: str
    client: AsClient
    status: CaseStatus
    responsible: AsPerson | None
    version: int
    created_at: dt.datetime
    updated_at: dt.datetime
    url: str = Field(description="The case page.")


class ClientList(Output):
    clients: list[ClientOut]


ClientPage = paged(ClientOut, "clients")
ClientResult = wrapped(ClientOut, "client")
CasePage = paged(CaseOut, "cases")
CaseResult = wrapped(CaseOut, "case")


# --- input: clients ---------------------------------------------------------------------------
class ClientFilter(PageInput):
    query: str | None = query_field("Words in name, number, city …")
    status: ClientStatus | None = Field(default=None, description="Only active or inactive clients.")


class ClientFilterQuery(ClientFilter):
    status: ClientStatusText = None


class ClientId(Input):
    client_id: int = Field(description="The client's id.")


class ClientSearch(Input):
    query: str = Field(min_length=1, max_length=200, description="Name words or a client number.")
    limit: int = Field(default=20, ge=1, le=PageInput.MAX_LIMIT)


class ClientFields(Input):
    """The optional fields of a client (`None`: not given)."""

    kind: Kind | None = Field(default=None, description="person or company.")
    tax_number: str | None = Field(default=None, max_length=40, description="Steuernummer.")
    email: str | None = Field(default=None, max_length=254)
    phone: str | None = Field(default=None, max_length=60)
    street: str | None = Field(default=None, max_length=200)
    postal_code: str | None = Field(default=None, max_length=20)
    city: str | None = Field(default=None, max_length=120)
    country: str | None = Field(default=None, max_length=80)
    responsible_id: int | None = Field(default=None, description="Staff id responsible for the client.")
    status: ClientStatus | None = None
    notes: str | None = Field(default=None, max_length=NOTES_MAX)


class ClientCreate(ClientFields):
    name: str = Field(min_length=1, max_length=NAME_MAX)
    client_number: str | None = Field(
        default=None,
        max_length=NUMBER_MAX,
        description="Unique Mandantennummer. Leave it out: the client gets the next free number of the office's scheme.",
    )

    def service_kwargs(self) -> dict[str, Any]:
        """The values given (a tool sends null for "not given")."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


class ClientCreateBody(_RestBody, ClientCreate):
    kind: KindText = None
    status: ClientStatusText = None


class ClientUpdate(_ToolChanges, ClientFields):
    """A partial change: fields left out stay as they are."""

    name: str | None = Field(default=None, min_length=1, max_length=NAME_MAX)
    client_number: str | None = Field(default=None, min_length=1, max_length=NUMBER_MAX)
    expected_version: int | None = Field(
        default=None, ge=1, description="The version you read; refuse the change if it differs."
    )


class ClientUpdateBody(_RestBody, ClientUpdate):
    kind: KindText = None
    status: ClientStatusText = None


class ClientUpdateById(ClientUpdate):
    client_id: int

    NOT_CHANGES: ClassVar[frozenset[str]] = frozenset({"expected_version", "client_id"})


# --- input: cases -----------------------------------------------------------------------------
class CaseFilter(PageInput):
    client_id: int | None = Field(default=None, description="Only this client's cases.")
    query: str | None = query_field("Words in reference or subject.")
    status: CaseStatus | None = None


class CaseFilterQuery(CaseFilter):
    status: CaseStatusText = None


class CaseId(Input):
    case_id: int = Field(description="The case's id.")


class CaseCreate(Input):
    client_id: int = Field(description="The client the case belongs to.")
    reference: str | None = Field(
        default=None,
        max_length=REFERENCE_MAX,
        description="Unique Aktenzeichen. Leave it out: the case gets the next free one of the office's scheme.",
    )
    subject: str = Field(min_length=1, max_length=SUBJECT_MAX)
    status: CaseStatus | None = None
    responsible_id: int | None = None

    def service_kwargs(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class CaseCreateBody(_RestBody, CaseCreate):
    status: CaseStatusText = None


class CaseUpdate(_ToolChanges, Input):
    """A partial change: fields left out stay as they are."""

    client_id: int | None = None
    reference: str | None = Field(default=None, min_length=1, max_length=REFERENCE_MAX)
    subject: str | None = Field(default=None, min_length=1, max_length=SUBJECT_MAX)
    status: CaseStatus | None = None
    responsible_id: int | None = None
    expected_version: int | None = Field(
        default=None, ge=1, description="The version you read; refuse the change if it differs."
    )


class CaseUpdateBody(_RestBody, CaseUpdate):
    status: CaseStatusText = None


class CaseUpdateById(CaseUpdate):
    case_id: int

    NOT_CHANGES: ClassVar[frozenset[str]] = frozenset({"expected_version", "case_id"})


# --- input: the pages' own forms (what no tool sends) --------------------------------------------
class _PageChanges:
    """A page editor sends the fields the person changed: those set, a None empties the field."""

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True, exclude={"expected_version"})  # type: ignore[attr-defined]


class ClientPageCreate(ClientCreate):
    """The page's "Neuer Mandant": also the "always neutralize" switch."""

    neutralize_always: bool | None = None


class ClientEdit(_PageChanges, ClientUpdate):
    """The client page's editor: the changed fields, also the "always neutralize" switch."""

    neutralize_always: bool | None = None


class CaseEdit(_PageChanges, CaseUpdate):
    """The case pages' small forms: close or reopen, the "always neutralize" switch."""

    neutralize_always: bool | None = None


class CaseLinkPick(Input):
    """The case page's picker: the row to link, "<kind>:<id>" (`apps.clients.case_links`)."""

    item: str = Field(min_length=3, max_length=60)
