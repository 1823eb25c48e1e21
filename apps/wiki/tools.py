"""Agent tools of the wiki (family `wiki`, always installed). Reading is direct; writing only ever
creates a proposal for a person to review (`wiki_propose_change`, this project's name: the seed
names no wiki write tool and says wiki output stays proposal-only).

Thin on purpose: the arguments are the operations' input models (`contracts.py`), the handler
calls the service and answers with the output models' records.
"""

from __future__ import annotations

from apps.core.surfaces.api import listed
from apps.tools.context import ToolContext
from apps.tools.registry import WITH_LIVE, tool
from apps.wiki import contracts as c
from apps.wiki import proposals, services


@tool(
    name="wiki_search",
    output=c.WikiSearchPage,
    surfaces=WITH_LIVE,
    reads_foreign_content=True,
    read_only=True,
)
def wiki_search(ctx: ToolContext, args: c.WikiSearch) -> dict:
    """Search the office wiki (handbook) by words; returns the best-matching pages with a snippet each
    (matches in **bold**). Open a page with wiki_get_page."""
    return listed("results", c.WikiSearchHitOut.record, services.search_pages(ctx.principal, args), args)


@tool(
    name="wiki_get_page",
    output=c.WikiPageResult,
    surfaces=WITH_LIVE,
    reads_foreign_content=True,
    read_only=True,
)
def wiki_get_page(ctx: ToolContext, args: c.WikiPageRef) -> dict:
    """Read one wiki page (Markdown text, current revision) by slug or page_id."""
    page = services.get_page(ctx.principal, slug=args.slug, page_id=args.page_id)
    return {"page": c.WikiPageOut.record(page)}


@tool(name="wiki_propose_change", output=c.WikiProposalResult, read_only=False)
def wiki_propose_change(ctx: ToolContext, args: c.WikiProposalCreate) -> dict:
    """Propose a new wiki page or a change to one. Nothing changes until a person accepts the proposal in
    the review queue; send the complete new text, not a diff."""
    proposal, created = proposals.propose_change(
        ctx.principal,
        **args.model_dump(exclude={"comment"}),
        comment=args.comment or "",
        surface=ctx.surface,
        run_id=ctx.run_id,
        session_id=ctx.session_id,
    )
    return {"proposal": c.WikiProposalOut.record(proposal), "created": created}
