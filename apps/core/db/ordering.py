"""Rows kept in a caller-chosen order by an integer column (task cards in a column, a note's
pages, the dashboard's widgets): where a new row goes, and making room to insert one."""

from __future__ import annotations

from django.db.models import F, Max, QuerySet


def next_position(qs: QuerySet, field: str = "position", *, first: int = 0) -> int:
    """The place after the last row of `qs` (`first` when it has none)."""
    last = qs.aggregate(last=Max(field))["last"]
    return first if last is None else last + 1


def make_room(qs: QuerySet, at: int, field: str = "position") -> None:
    """Move the rows of `qs` at place `at` or later one down, so a row can go to `at`."""
    qs.filter(**{f"{field}__gte": at}).update(**{field: F(field) + 1})
