"""The only place that changes wiki state. People edit pages directly (each edit is a numbered
revision); agents never edit: `apps.wiki.proposals` stages their changes for a person's review.

The handbook is office-wide: every person and every internal service principal reads it; public
website embeds (anonymous visitors) never do.
"""

from __future__ import annotations

import re

from django.contrib.postgres.search import SearchHeadline, SearchQuery, SearchRank
from django.db import transaction
from django.db.models import F, Max, QuerySet
from django.utils.text import slugify
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.db.saving import save_unique
from apps.core.db.versioning import check_version
from apps.core.errors import Forbidden
from apps.wiki import events
from apps.wiki.contracts import WikiPageCreate, WikiPageOut, WikiPageUpdate, WikiSearch
from apps.wiki.errors import PageNotFound, SlugTaken
from apps.wiki.models import BODY_MAX, COMMENT_MAX, SLUG_MAX, WikiPage, WikiProposal, WikiRevision
from apps.wiki.records import MARK_START, MARK_STOP, with_relations

MAX_PAGE = 100
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Path segments of the wiki's own pages: a page with such a slug could never be opened.
RESERVED_SLUGS = frozenset({"neu", "vorschlaege", "vorschau", "suche"})
_WORD = re.compile(r"[\w-]+", re.UNICODE)
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


# --- checks -----------------------------------------------------------------------------------
def body_text(value: str | None, field: str = "body") -> str:
    """Markdown keeps its leading indentation and line breaks; only the ends are trimmed."""
    value = (value or "").replace("\r\n", "\n").strip("\n").rstrip()
    if len(value) > BODY_MAX:
        raise validation.invalid(field, _("may have at most %(n)d characters") % {"n": BODY_MAX})
    return value


def slug_from(value: str, field: str = "slug") -> str:
    value = validation.text(value, field, max_length=SLUG_MAX * 2, required=True)
    slug = slugify(value.translate(_GERMAN))[:SLUG_MAX].strip("-")
    if not slug or not SLUG_RE.match(slug):
        raise validation.invalid(field, _("needs letters or digits"))
    if slug in RESERVED_SLUGS:
        raise validation.invalid(field, _("“%(slug)s” is reserved, please choose another") % {"slug": slug})
    return slug


def require_reader(principal: Principal) -> None:
    service = principal.service
    if service is not None and service.kind == service.Kind.PUBLIC_EMBED:
        raise Forbidden(_("The office wiki is not available here."))


def require_person(principal: Principal, message: str | None = None) -> None:
    if principal.user is None:
        raise Forbidden(message or _("Only a person can edit the wiki; propose a change instead."))


# --- reading ----------------------------------------------------------------------------------
def ts_query(words_text: str) -> SearchQuery | None:
    """Every word must prefix a (German-stemmed) word of the page: "frist post" finds both."""
    words = [w.strip("-") for w in _WORD.findall(words_text.lower()) if w.strip("-")]
    if not words:
        return None
    return SearchQuery(" & ".join(f"{w}:*" for w in words[:10]), search_type="raw", config="german")


def visible_pages(principal: Principal) -> QuerySet[WikiPage]:
    require_reader(principal)
    return WikiPage.objects.all()


def get_page(
    principal: Principal,
    *,
    slug: str | None = None,
    page_id: int | str | None = None,
    for_update: bool = False,
) -> WikiPage:
    """By address or by id (`page_id` may be the text of one, as a `context_get` reference is)."""
    qs = with_relations(visible_pages(principal))
    if for_update:
        qs = qs.select_for_update(of=("self",))
    try:
        if page_id is not None:
            return qs.get(pk=int(page_id))
        return qs.get(slug=str(slug).strip().strip("/").removeprefix("wiki/").lower())
    except (WikiPage.DoesNotExist, TypeError, ValueError):
        ref = page_id if page_id is not None else slug
        raise PageNotFound(_("There is no wiki page “%(ref)s”.") % {"ref": ref}) from None


def search_pages(principal: Principal, search: WikiSearch) -> tuple[list, int]:
    """Ranked matches with a snippet each (`page.snippet` has MARK_START/STOP around hits; `rank`)
    and the total count: two queries whatever the number of hits."""
    qs = visible_pages(principal)
    tsq = ts_query(search.query)
    if tsq is None:
        raise validation.invalid("query", _("needs at least one word"))
    matches = qs.filter(search=tsq)
    limit, offset = search.limit, search.offset
    ranked = (
        with_relations(matches)
        .annotate(
            rank=SearchRank(F("search"), tsq),
            snippet=SearchHeadline(
                "body",
                tsq,
                config="german",
                start_sel=MARK_START,
                stop_sel=MARK_STOP,
                max_words=35,
                min_words=12,
                max_fragments=2,
                fragment_delimiter=" … ",
            ),
        )
        .order_by("-rank", "title", "id")[offset : offset + limit]
    )
    return list(ranked), matches.count()


def list_pages(principal: Principal, *, limit: int = 25, offset: int = 0) -> tuple[list[WikiPage], int]:
    qs = visible_pages(principal)
    limit, offset = validation.page(limit, offset, MAX_PAGE)
    return list(with_relations(qs).order_by("title", "id")[offset : offset + limit]), qs.count()


def list_revisions(principal: Principal, page: WikiPage) -> list[WikiRevision]:
    require_reader(principal)
    return list(page.revisions.select_related("author").order_by("-number"))


def get_revision(principal: Principal, page: WikiPage, number: int) -> WikiRevision:
    require_reader(principal)
    try:
        return page.revisions.select_related("author").get(number=int(number))
    except (WikiRevision.DoesNotExist, TypeError, ValueError):
        raise PageNotFound(
            _("Page “%(slug)s” has no revision %(n)s.") % {"slug": page.slug, "n": number}
        ) from None


# --- writing ----------------------------------------------------------------------------------
def add_revision(
    page: WikiPage, *, author, comment: str = "", proposal: WikiProposal | None = None
) -> WikiRevision:
    """Snapshot the page's current title and body as its next revision (page row is locked)."""
    last = page.revisions.aggregate(n=Max("number"))["n"] or 0
    revision = WikiRevision.objects.create(
        page=page,
        number=last + 1,
        title=page.title,
        body=page.body,
        author=author,
        comment=comment[:COMMENT_MAX],
        proposal=proposal,
    )
    page.current_revision = revision
    WikiPage.objects.filter(pk=page.pk).update(current_revision=revision)
    return revision


def insert_page(*, slug: str, title: str, body: str, author) -> WikiPage:
    if WikiPage.objects.filter(slug=slug).exists():
        raise slug_taken(slug)
    page = WikiPage(slug=slug, title=title, body=body, created_by=author, updated_by=author)
    save_unique(page, lambda: slug_taken(slug))  # a concurrent create may win
    return page


def slug_taken(slug: str) -> SlugTaken:
    message = _("A wiki page with the address “%(slug)s” already exists.") % {"slug": slug}
    return SlugTaken(message, details={"field_errors": {"slug": message}, "slug": slug})


@transaction.atomic
def create_page(principal: Principal, data: WikiPageCreate) -> WikiPage:
    require_reader(principal)
    require_person(principal)
    slug = slug_from(data.slug, "slug") if data.slug else slug_from(data.title, "title")
    page = insert_page(slug=slug, title=data.title, body=body_text(data.body), author=principal.user)
    add_revision(page, author=principal.user, comment=data.comment)
    page = get_page(principal, page_id=page.pk)
    events.page_changed(page, "wiki.page.created")
    return page


@transaction.atomic
def update_page(principal: Principal, page_ref: int | str, data: WikiPageUpdate) -> WikiPage:
    """A direct edit by a person of the page with this id (or address, given as text). With
    `base_revision` a stale save is refused instead of silently overwriting someone else's edit."""
    require_reader(principal)
    require_person(principal)
    if isinstance(page_ref, int):
        page = get_page(principal, page_id=page_ref, for_update=True)
    else:
        page = get_page(principal, slug=page_ref, for_update=True)
    check_version(
        page,
        data.base_revision,
        _("The page was changed by someone else in the meantime (now revision %(n)d).")
        % {"n": page.revision_number},
        lambda: {"page": WikiPageOut.record(page)},
    )
    new_title = data.title if data.title is not None else page.title
    new_body = body_text(data.body) if data.body is not None else page.body
    if (new_title, new_body) == (page.title, page.body):
        return page
    page.title, page.body, page.updated_by = new_title, new_body, principal.user
    page.save(update_fields=["title", "body", "updated_by", "updated_at"])
    add_revision(page, author=principal.user, comment=data.comment)
    page = get_page(principal, page_id=page.pk)
    events.page_changed(page, "wiki.page.updated")
    return page


@transaction.atomic
def delete_page(principal: Principal, *, page_id: int) -> int:
    """Removing handbook pages is an administrator's decision (revisions and proposals go too)."""
    require_person(principal)
    if not principal.user.is_admin:
        raise Forbidden(_("Only administrators can delete wiki pages."))
    page = get_page(principal, page_id=page_id, for_update=True)
    pk = page.pk
    page.delete()
    events.page_deleted(pk)
    return pk
