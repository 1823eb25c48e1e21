"""Agent tools of the Mandanten (family `mandanten`, core: never install-gated) and of the Akten
(family `cases`, the optional module `cases`: when it is not installed the dispatcher answers
`module_not_installed:cases`, never a fallback to other tools).

Thin on purpose: the arguments are the operations' input models (`contracts.py`), the handler
calls the service and answers with the records. Live UI actions come from the mutation events
the services record."""

from __future__ import annotations

from apps.clients import contracts as c
from apps.clients import services
from apps.core.surfaces.api import listed
from apps.tools.context import ToolContext
from apps.tools.registry import WITH_LIVE, tool

FAMILY = "mandanten"
CASES_FAMILY = "cases"


@tool(name="mandanten_list", output=c.ClientPage, surfaces=WITH_LIVE, family=FAMILY, read_only=True)
def list_clients(ctx: ToolContext, args: c.ClientFilter) -> dict:
    """List the office's clients (Mandanten) by name, optionally filtered; returns full records and the
    total."""
    return listed("clients", c.ClientOut.record, services.list_clients(ctx.principal, args), args)


@tool(name="mandanten_get", output=c.ClientResult, surfaces=WITH_LIVE, family=FAMILY, read_only=True)
def get_client(ctx: ToolContext, args: c.ClientId) -> dict:
    """Get one client (Mandant)."""
    return {"client": c.ClientOut.record(services.get_client(ctx.principal, args.client_id))}


@tool(name="mandanten_search", output=c.ClientList, surfaces=WITH_LIVE, family=FAMILY, read_only=True)
def search_clients(ctx: ToolContext, args: c.ClientSearch) -> dict:
    """Find clients by name words (prefixes, German stemming) or client number."""
    found = services.search_clients(ctx.principal, args.query, limit=args.limit)
    return {"clients": [c.ClientOut.record(x) for x in found]}


@tool(name="mandanten_create", output=c.ClientResult, family=FAMILY, read_only=False)
def create_client(ctx: ToolContext, args: c.ClientCreate) -> dict:
    """Create a client (Mandant). Search first to avoid duplicates; the client number must be unique."""
    return {"client": c.ClientOut.record(services.create_client(ctx.principal, args))}


@tool(name="mandanten_update", output=c.ClientResult, family=FAMILY, read_only=False)
def update_client(ctx: ToolContext, args: c.ClientUpdateById) -> dict:
    """Change some fields of a client; fields you leave out stay as they are. Pass expected_version (from
    mandanten_get) to refuse the change if someone changed the client meanwhile."""
    return {"client": c.ClientOut.record(services.update_client(ctx.principal, args.client_id, args))}


# --- cases (optional module) ------------------------------------------------------------------
@tool(name="cases_list", output=c.CasePage, surfaces=WITH_LIVE, family=CASES_FAMILY, read_only=True)
def list_cases(ctx: ToolContext, args: c.CaseFilter) -> dict:
    """List cases (Akten), newest first, optionally of one client; returns the total."""
    return listed("cases", c.CaseOut.record, services.list_cases(ctx.principal, args), args)


@tool(name="cases_get", output=c.CaseResult, surfaces=WITH_LIVE, family=CASES_FAMILY, read_only=True)
def get_case(ctx: ToolContext, args: c.CaseId) -> dict:
    """Get one case."""
    return {"case": c.CaseOut.record(services.get_case(ctx.principal, args.case_id))}


@tool(name="cases_create", output=c.CaseResult, family=CASES_FAMILY, read_only=False)
def create_case(ctx: ToolContext, args: c.CaseCreate) -> dict:
    """Open a case (Akte) for a client. Leave the reference out to get the next free one of the
    office's scheme; a given reference must be unique."""
    return {"case": c.CaseOut.record(services.create_case(ctx.principal, args))}


@tool(name="cases_update", output=c.CaseResult, family=CASES_FAMILY, read_only=False)
def update_case(ctx: ToolContext, args: c.CaseUpdateById) -> dict:
    """Change some fields of a case; fields you leave out stay as they are. Pass expected_version (from
    cases_get) to refuse the change if someone changed the case meanwhile."""
    return {"case": c.CaseOut.record(services.update_case(ctx.principal, args.case_id, args))}
