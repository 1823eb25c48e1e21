"""Agent tools of the Mandanten (family `mandanten`, core: never install-gated) and of the Akten
(family `cases`, the optional module `cases`: when it is not installed the dispatcher answers
`module_not_installed:cases`, never a fallback to other tools).

Thin on purpose: parse arguments, call the service, shape the output. Live UI actions come from
the mutation events the services record."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from apps.clients import services
from apps.clients.models import NAME_MAX, NOTES_MAX, SUBJECT_MAX
from apps.clients.records import case_record, client_record
from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool
from apps.tools.results import page_output

FAMILY = "mandanten"
CASES_FAMILY = "cases"
Kind = Literal["person", "company"]
ClientStatus = Literal["active", "inactive"]
CaseStatus = Literal["open", "closed"]


class ListClientsArgs(Args):
    query: str | None = Field(default=None, max_length=200, description="Words in name, number, city …")
    status: ClientStatus | None = Field(default=None, description="Only active or inactive clients.")
    limit: int = Field(default=50, ge=1, le=services.MAX_PAGE, description="Page size.")
    offset: int = Field(default=0, ge=0, description="Skip this many clients (pagination).")


@tool(
    name="mandanten_list",
    family=FAMILY,
    read_only=True,
    description="List the office's clients (Mandanten) by name, optionally filtered; returns full "
    "records and the total.",
)
def list_clients(ctx: ToolContext, args: ListClientsArgs) -> dict:
    found, total = services.list_clients(ctx.principal, **args.model_dump())
    return page_output(
        "clients", [client_record(c) for c in found], total, limit=args.limit, offset=args.offset
    )


class ClientIdArgs(Args):
    client_id: int = Field(description="The client's id.")


@tool(name="mandanten_get", family=FAMILY, read_only=True, description="Get one client (Mandant).")
def get_client(ctx: ToolContext, args: ClientIdArgs) -> dict:
    return {"client": client_record(services.get_client(ctx.principal, args.client_id))}


class SearchClientsArgs(Args):
    query: str = Field(min_length=1, max_length=200, description="Name words or a client number.")
    limit: int = Field(default=20, ge=1, le=services.MAX_PAGE)


@tool(
    name="mandanten_search",
    family=FAMILY,
    read_only=True,
    description="Find clients by name words (prefixes, German stemming) or client number.",
)
def search_clients(ctx: ToolContext, args: SearchClientsArgs) -> dict:
    found = services.search_clients(ctx.principal, args.query, limit=args.limit)
    return {"clients": [client_record(c) for c in found]}


class ClientFields(Args):
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


class CreateClientArgs(ClientFields):
    name: str = Field(min_length=1, max_length=NAME_MAX)
    client_number: str = Field(min_length=1, max_length=40, description="Unique Mandantennummer.")


@tool(
    name="mandanten_create",
    family=FAMILY,
    read_only=False,
    description="Create a client (Mandant). Search first to avoid duplicates; the client number "
    "must be unique.",
)
def create_client(ctx: ToolContext, args: CreateClientArgs) -> dict:
    values = {k: v for k, v in args.model_dump().items() if v is not None}
    return {"client": client_record(services.create_client(ctx.principal, **values))}


class UpdateClientArgs(ClientFields):
    client_id: int
    name: str | None = Field(default=None, min_length=1, max_length=NAME_MAX)
    client_number: str | None = Field(default=None, min_length=1, max_length=40)
    expected_version: int | None = Field(
        default=None, ge=1, description="The version you read; refuse the change if it differs."
    )


@tool(
    name="mandanten_update",
    family=FAMILY,
    read_only=False,
    description="Change some fields of a client; fields you leave out stay as they are. Pass "
    "expected_version (from mandanten_get) to refuse the change if someone changed the client meanwhile.",
)
def update_client(ctx: ToolContext, args: UpdateClientArgs) -> dict:
    changes = {
        k: v for k, v in args.model_dump(exclude={"client_id", "expected_version"}).items() if v is not None
    }
    client = services.update_client(
        ctx.principal, args.client_id, changes, expected_version=args.expected_version
    )
    return {"client": client_record(client)}


# --- cases (optional module) ------------------------------------------------------------------
class ListCasesArgs(Args):
    client_id: int | None = Field(default=None, description="Only this client's cases.")
    query: str | None = Field(default=None, max_length=200, description="Words in reference or subject.")
    status: CaseStatus | None = None
    limit: int = Field(default=50, ge=1, le=services.MAX_PAGE)
    offset: int = Field(default=0, ge=0)


@tool(
    name="cases_list",
    family=CASES_FAMILY,
    read_only=True,
    description="List cases (Akten), newest first, optionally of one client; returns the total.",
)
def list_cases(ctx: ToolContext, args: ListCasesArgs) -> dict:
    found, total = services.list_cases(ctx.principal, **args.model_dump())
    return page_output("cases", [case_record(c) for c in found], total, limit=args.limit, offset=args.offset)


class CaseIdArgs(Args):
    case_id: int = Field(description="The case's id.")


@tool(name="cases_get", family=CASES_FAMILY, read_only=True, description="Get one case.")
def get_case(ctx: ToolContext, args: CaseIdArgs) -> dict:
    return {"case": case_record(services.get_case(ctx.principal, args.case_id))}


class CreateCaseArgs(Args):
    client_id: int = Field(description="The client the case belongs to.")
    reference: str = Field(min_length=1, max_length=60, description="Unique Aktenzeichen.")
    subject: str = Field(min_length=1, max_length=SUBJECT_MAX)
    status: CaseStatus | None = None
    responsible_id: int | None = None


@tool(
    name="cases_create",
    family=CASES_FAMILY,
    read_only=False,
    description="Open a case (Akte) for a client; the reference must be unique.",
)
def create_case(ctx: ToolContext, args: CreateCaseArgs) -> dict:
    values = {k: v for k, v in args.model_dump().items() if v is not None}
    return {"case": case_record(services.create_case(ctx.principal, **values))}


class UpdateCaseArgs(Args):
    case_id: int
    client_id: int | None = None
    reference: str | None = Field(default=None, min_length=1, max_length=60)
    subject: str | None = Field(default=None, min_length=1, max_length=SUBJECT_MAX)
    status: CaseStatus | None = None
    responsible_id: int | None = None
    expected_version: int | None = Field(
        default=None, ge=1, description="The version you read; refuse the change if it differs."
    )


@tool(
    name="cases_update",
    family=CASES_FAMILY,
    read_only=False,
    description="Change some fields of a case; fields you leave out stay as they are. Pass "
    "expected_version (from cases_get) to refuse the change if someone changed the case meanwhile.",
)
def update_case(ctx: ToolContext, args: UpdateCaseArgs) -> dict:
    changes = {
        k: v for k, v in args.model_dump(exclude={"case_id", "expected_version"}).items() if v is not None
    }
    case = services.update_case(ctx.principal, args.case_id, changes, expected_version=args.expected_version)
    return {"case": case_record(case)}
