"""Field, index and constraint factories the domain tables share, so that each convention (the
German full-text column, "private rows have an owner") is written once.

Each factory returns exactly the field the tables declared by hand before: migrations see no
difference."""

from __future__ import annotations

from functools import reduce
from operator import add

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q

SEARCH_CONFIG = "german"
# Ranking weights by position when a search column is `weighted` (Postgres knows four).
SEARCH_WEIGHTS = ("A", "B", "C", "D")


def german_search(*columns, weighted: bool = False) -> models.GeneratedField:
    """A stored German `tsvector` over `columns` (names or expressions), kept by the database.

    `weighted`: the first column ranks highest (weight A), the next B, and so on."""
    if weighted:
        vector = reduce(
            add,
            (
                SearchVector(column, weight=weight, config=SEARCH_CONFIG)
                for column, weight in zip(columns, SEARCH_WEIGHTS[: len(columns)], strict=True)
            ),
        )
    else:
        vector = SearchVector(*columns, config=SEARCH_CONFIG)
    return models.GeneratedField(expression=vector, output_field=SearchVectorField(), db_persist=True)


def self_link(verbose_name, *, related_name: str = "+", on_delete=models.SET_NULL) -> models.ForeignKey:
    """An optional link to another row of the same table: a folder's parent, the row this one
    contradicts or was merged into."""
    return models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=on_delete,
        related_name=related_name,
        verbose_name=verbose_name,
    )


def search_index(name: str) -> GinIndex:
    """The GIN index over a table's `search` column (see `german_search`)."""
    return GinIndex(fields=["search"], name=name)


def shared_or_owned(name: str) -> models.CheckConstraint:
    """Rows with a `visibility` other than "shared" (private, restricted) must have an `owner`."""
    return models.CheckConstraint(condition=Q(visibility="shared") | Q(owner__isnull=False), name=name)
