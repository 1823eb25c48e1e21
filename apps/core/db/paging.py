"""The total beside a page of rows, counted only when the page cannot tell it.

A list answers a page and the number of all matching rows. A page that is not full holds the last
rows there are, so the total is its offset plus its length: the COUNT query is needed only for a
full page, or an empty one past the start (the total may then be anything below the offset). Most
lists people open (a client's tasks, cases, documents) fit on their first page. A list that picks
its page on narrow rows first (`ids_and_total`) gets the total with the ids instead."""

from __future__ import annotations

from collections.abc import Sequence, Sized
from typing import Any

from django.db.models import Count, QuerySet, Window


def total_of(qs: QuerySet[Any], page: Sized, *, offset: int, limit: int) -> int:
    """How many rows `qs` holds, given `page`: the rows it answered for `offset` and `limit`."""
    shown = len(page)
    if shown < limit and (shown or not offset):
        return offset + shown
    return qs.count()


def ids_and_total(
    qs: QuerySet[Any], order: Sequence[str], *, offset: int, limit: int
) -> tuple[list[Any], int]:
    """A page of `qs`'s primary keys in `order` and the number of all its rows, in one query: the
    total is a window over every match, computed before the LIMIT (the sort reads them all
    anyway). Only an empty page past the start needs a COUNT of its own."""
    return page_and_total(list(page_query(qs, order, offset=offset, limit=limit)), qs, offset=offset)


def page_query(qs: QuerySet[Any], order: Sequence[str], *, offset: int, limit: int) -> QuerySet[Any]:
    """The one query of `ids_and_total`: `(pk, total of all matches)` of the page's rows."""
    page: QuerySet[Any] = (
        qs.order_by(*order)
        .annotate(page_total=Window(Count("pk")))
        .values_list("pk", "page_total")[offset : offset + limit]
    )
    return page


def page_and_total(rows: list[tuple[Any, int]], qs: QuerySet[Any], *, offset: int) -> tuple[list[Any], int]:
    """`ids_and_total`'s answer from the rows of `page_query` (e.g. run as a prepared statement)."""
    if rows:
        return [pk for pk, _ in rows], rows[0][1]
    return [], qs.count() if offset else 0
