"""Agent tools of the wiki (family `wiki`, always installed). Reading is direct; writing only ever
creates a proposal for a person to review (`wiki_propose_change`, this project's name: the seed
names no wiki write tool and says wiki output stays proposal-only)."""

from __future__ import annotations

from pydantic import Field, model_validator

from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool
from apps.wiki import proposals, services
from apps.wiki.models import BODY_MAX, COMMENT_MAX, SLUG_MAX, TITLE_MAX
from apps.wiki.records import page_record, page_summary, proposal_record, snippet_text

FAMILY = "wiki"


class SearchArgs(Args):
    query: str = Field(min_length=1, max_length=200, description="Words to find (German full-text search).")
    limit: int = Field(default=10, ge=1, le=50, description="Maximum number of pages.")


@tool(
    name="wiki_search",
    family=FAMILY,
    read_only=True,
    description="Search the office wiki (handbook) by words; returns the best-matching pages with a "
    "snippet each (matches in **bold**). Open a page with wiki_get_page.",
)
def wiki_search(ctx: ToolContext, args: SearchArgs) -> dict:
    pages, total = services.search_pages(ctx.principal, args.query, limit=args.limit)
    results = [
        page_summary(p) | {"snippet": snippet_text(p.snippet), "rank": round(float(p.rank), 4)} for p in pages
    ]
    return {"results": results, "total": total}


class PageRefArgs(Args):
    slug: str | None = Field(
        default=None, max_length=SLUG_MAX, description="The page's slug, e.g. posteingang."
    )
    page_id: int | None = Field(default=None, description="The page's id.")

    @model_validator(mode="after")
    def _one_reference(self):
        if (self.slug is None) == (self.page_id is None):
            raise ValueError("give either slug or page_id")
        return self


@tool(
    name="wiki_get_page",
    family=FAMILY,
    read_only=True,
    description="Read one wiki page (Markdown text, current revision) by slug or page_id.",
)
def wiki_get_page(ctx: ToolContext, args: PageRefArgs) -> dict:
    page = services.get_page(ctx.principal, slug=args.slug, page_id=args.page_id)
    return {"page": page_record(page)}


class ProposeArgs(Args):
    slug: str | None = Field(
        default=None,
        max_length=SLUG_MAX,
        description="Existing page to change, or the address of a new page (derived from title if omitted).",
    )
    page_id: int | None = Field(default=None, description="Existing page to change.")
    title: str | None = Field(
        default=None, max_length=TITLE_MAX, description="New title; required for a new page."
    )
    body: str = Field(
        min_length=1, max_length=BODY_MAX, description="The complete new page text in Markdown."
    )
    comment: str | None = Field(default=None, max_length=COMMENT_MAX, description="Why, for the reviewer.")


@tool(
    name="wiki_propose_change",
    family=FAMILY,
    read_only=False,
    description="Propose a new wiki page or a change to one. Nothing changes until a person accepts "
    "the proposal in the review queue; send the complete new text, not a diff.",
)
def wiki_propose_change(ctx: ToolContext, args: ProposeArgs) -> dict:
    proposal, created = proposals.propose_change(
        ctx.principal,
        slug=args.slug,
        page_id=args.page_id,
        title=args.title,
        body=args.body,
        comment=args.comment or "",
        surface=ctx.surface,
        run_id=ctx.run_id,
        session_id=ctx.session_id,
    )
    return {"proposal": proposal_record(proposal), "created": created}
