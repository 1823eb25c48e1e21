"""Loading memory rows with what their wire record (`contracts.MemoryOut`) reads, so a list costs
the same queries whatever its length (`with_relations`, and the search's hand-written SQL), and the
snapshot an audit revision keeps."""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS
from django.db.models import QuerySet

from apps.core.records import attrs, iso
from apps.memory.models import Memory

RELATIONS = ("subject_client", "subject_case", "subject_person", "created_by", "reviewed_by")


def with_relations(qs: QuerySet[Memory]) -> QuerySet[Memory]:
    return qs.select_related(*RELATIONS).defer("embedding")


# --- the same rows from hand-written SQL (the search loads them in the statement that ranks) --
# The memory's columns a record reads (not the vector, the search vector, or the JSON of a
# conflict, which would come back unconverted: reading them later loads them), and of each
# relation the fields its part of the record reads.
_LOADED = [f for f in Memory._meta.concrete_fields if f.name not in ("embedding", "search", "conflict")]
_JOINED = (
    ("subject_client", ("id", "name", "client_number")),
    ("subject_case", ("id", "reference", "subject")),
    ("subject_person", ("id", "email", "full_name")),
    ("created_by", ("id", "email", "full_name")),
)


def joined_select(alias: str = "m") -> tuple[str, str]:
    """The SELECT list and LEFT JOINs that load `alias` (a memory_memory row) with what
    `MemoryOut` reads; `from_joined_row` turns such a row into a `Memory`."""
    columns = [f'{alias}."{f.column}"' for f in _LOADED]
    joins = []
    for n, (name, fields) in enumerate(_JOINED):
        fk = Memory._meta.get_field(name)
        model, table = fk.related_model, f"rel{n}"
        joins.append(f'LEFT JOIN "{model._meta.db_table}" {table} ON {table}.id = {alias}."{fk.column}"')
        columns += [f'{table}."{model._meta.get_field(f).column}"' for f in fields]
    return ", ".join(columns), "\n".join(joins)


def from_joined_row(row: tuple) -> tuple[Memory, tuple]:
    """(the memory with its relations cached, the row's remaining columns)."""
    end = len(_LOADED)
    memory = Memory.from_db(DEFAULT_DB_ALIAS, [f.attname for f in _LOADED], row[:end])
    for name, fields in _JOINED:
        start, end = end, end + len(fields)
        fk = Memory._meta.get_field(name)
        related = (
            None
            if row[start] is None
            else fk.related_model.from_db(DEFAULT_DB_ALIAS, list(fields), row[start:end])
        )
        fk.set_cached_value(memory, related)
    return memory, row[end:]


def snapshot(memory: Memory) -> dict:
    """What an audit revision keeps of the memory before and after a change."""
    return {
        **attrs(memory, "text", "kind", "assertion", "review"),
        "valid_from": iso(memory.valid_from),
        "valid_until": iso(memory.valid_until),
    }
