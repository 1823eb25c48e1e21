"""Server-rendered wiki pages: list and search, page, history with diffs, editor, and the review
queue for proposals. Every write goes through the services; views parse input and render."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.core.errors import DomainError, VersionConflict
from apps.core.inputs import build
from apps.core.surfaces import web
from apps.core.surfaces.web import domain_errors, form_errors, querystring_without_page, reported
from apps.wiki import proposals, services
from apps.wiki.contracts import (
    WikiHistoryRange,
    WikiPageCreate,
    WikiPageFilter,
    WikiPageStart,
    WikiPageUpdate,
    WikiPreview,
    WikiSearch,
)
from apps.wiki.diff import diff_lines, proposal_review
from apps.wiki.forms import PageEditForm, PageForm, RejectForm
from apps.wiki.markdown import render as render_markdown
from apps.wiki.markdown import to_html
from apps.wiki.models import WikiPage
from apps.wiki.records import snippet_html

PAGE_SIZE = 25


def index(request):
    principal = request.principal
    query = web.query(request, WikiPageFilter).query or ""
    paging = web.paged(request, PAGE_SIZE)
    pages: list[WikiPage] = []
    total = 0
    with reported(request):
        if query and services.ts_query(query) is not None:
            search = build(WikiSearch, query=query, **paging.window)
            pages, total = services.search_pages(principal, search)
            for p in pages:
                p.snippet_html = snippet_html(p.snippet)
        else:
            pages, total = services.list_pages(principal, **paging.window)
    context = {
        "pages": pages,
        "total": total,
        "query": query,
        "page_obj": paging.page(total),
        "querystring": querystring_without_page(request),
        "pending": proposals.pending_count(),
    }
    partial = request.htmx and request.htmx.target == "wiki-results"
    return render(request, "wiki/_results.html" if partial else "wiki/index.html", context)


@domain_errors
def page(request, slug: str):
    wiki_page = services.get_page(request.principal, slug=slug)
    context = {
        "page": wiki_page,
        "html": render_markdown(wiki_page.body),
        "pending": wiki_page.proposals.filter(status="pending").count(),
    }
    return render(request, "wiki/page.html", context)


@require_POST
@domain_errors(json=True)
def preview(request):
    """The editor's preview (and the note editor's Markdown formatting): the text rendered exactly
    as the page will show it, as an HTML fragment."""
    services.require_reader(request.principal)
    source = web.posted(request, WikiPreview).body
    return HttpResponse(to_html(source), content_type="text/html; charset=utf-8")


def create(request):
    start = web.query(request, WikiPageStart) if request.method == "GET" else WikiPageStart()
    form = PageForm(web.submitted(request), initial={"title": start.title or ""})
    if request.method == "POST" and form.is_valid():
        data = form.validated
        assert isinstance(data, WikiPageCreate)
        if not data.comment:
            data = data.model_copy(update={"comment": _("Created")})
        try:
            created = services.create_page(request.principal, data)
        except DomainError as exc:  # a taken or reserved address: shown on the form
            form_errors(form, exc)
        else:
            messages.success(request, _("The page was created."))
            return redirect("wiki:page", slug=created.slug)
    return render(request, "wiki/edit.html", {"form": form, "page": None})


@domain_errors
def edit(request, slug: str):
    wiki_page = services.get_page(request.principal, slug=slug)
    initial = {"title": wiki_page.title, "body": wiki_page.body, "base_revision": wiki_page.revision_number}
    form = PageEditForm(web.submitted(request), initial=initial)
    conflict = None
    if request.method == "POST" and form.is_valid():
        data = form.validated
        assert isinstance(data, WikiPageUpdate)
        try:
            services.update_page(request.principal, wiki_page.pk, data)
        except VersionConflict as exc:
            form.add_error(None, exc.message)
            current = services.get_page(request.principal, page_id=wiki_page.pk)
            conflict = diff_lines(current.body, data.body or "")
            # Saving again, after looking at the differences, deliberately replaces the new version.
            form.data = form.data.copy()
            form.data["base_revision"] = str(current.revision_number)
        except DomainError as exc:
            form_errors(form, exc)
        else:
            messages.success(request, _("Saved."))
            return redirect("wiki:page", slug=wiki_page.slug)
    return render(request, "wiki/edit.html", {"form": form, "page": wiki_page, "conflict": conflict})


@domain_errors
def history(request, slug: str):
    principal = request.principal
    wiki_page = services.get_page(principal, slug=slug)
    revisions = services.list_revisions(principal, wiki_page)
    by_number = {r.number: r for r in revisions}
    newest = revisions[0].number if revisions else 0
    wanted = web.query(request, WikiHistoryRange)
    to_n = wanted.b if wanted.b is not None else newest
    from_n = wanted.a if wanted.a is not None else max(to_n - 1, 0)
    old, new = by_number.get(from_n), by_number.get(to_n)
    if (from_n and old is None) or (to_n and new is None):
        raise Http404(_("This revision does not exist."))
    context = {
        "page": wiki_page,
        "revisions": revisions,
        "old": old,
        "new": new,
        "diff": diff_lines(old.body if old else "", new.body if new else ""),
        "title_changed": old is not None and new is not None and old.title != new.title,
    }
    return render(request, "wiki/history.html", context)


@domain_errors
def revision(request, slug: str, number: int):
    wiki_page = services.get_page(request.principal, slug=slug)
    rev = services.get_revision(request.principal, wiki_page, number)
    context = {"page": wiki_page, "revision": rev, "html": render_markdown(rev.body)}
    return render(request, "wiki/revision.html", context)


def proposal_queue(request):
    rows, total = proposals.list_proposals(request.principal, limit=proposals.MAX_PAGE)
    context = {"items": [proposal_review(p) for p in rows], "total": total, "reject_form": RejectForm()}
    partial = request.htmx and request.htmx.target == "wiki-proposals"
    return render(request, "wiki/_proposals.html" if partial else "wiki/proposals.html", context)


@require_POST
def accept(request, proposal_id: int):
    with reported(request) as outcome:
        accepted_page = proposals.accept_proposal(request.principal, proposal_id)[1]
    if not outcome.failed:
        messages.success(
            request, _("Accepted: “%(title)s” has a new revision.") % {"title": accepted_page.title}
        )
    return redirect("wiki:proposals")


@require_POST
def reject(request, proposal_id: int):
    form = RejectForm(web.submitted(request))
    if not form.is_valid():
        messages.error(request, _("Please give a reason for the rejection."))
        return redirect("wiki:proposals")
    with reported(request) as outcome:
        proposals.reject_proposal(request.principal, proposal_id, form.validated)
    if not outcome.failed:
        messages.success(request, _("The proposal was rejected."))
    return redirect("wiki:proposals")
