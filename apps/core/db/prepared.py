"""Querysets built and compiled once per process, then run with new values.

Building a queryset and compiling it to SQL costs Django 0.5–2 ms of CPU per query (filters,
joins, select_related, ordering), often more than the database needs to answer it. On the paths
every API request takes (the credential lookup, the boards a person sees) that is most of the
request. `Prepared` builds its queryset once with placeholder values, compiles it, and afterwards
only puts the call's values into the compiled statement and runs it; the rows are built by
Django's own iterable of that queryset (same converters, same select_related population), so a
prepared query answers exactly what the queryset would.

    _KEY = Prepared(lambda prefix: ApiKey.objects.select_related("created_by").filter(prefix=prefix)[:1],
                    prefix=str)
    rows = _KEY(prefix="clp_abc")          # a list: model instances, or what values_list() gives

Only scalar values (`int`, `str`) can vary, and the queryset's shape must not depend on them
(no `if value:` in the builder; a different shape is another `Prepared`). Both are checked when
the statement is compiled: the builder runs twice with different placeholders, and the two
statements must differ in exactly the placeholders' parameters. Everything else the builder reads
(model metadata, constants) is fixed at that moment, for the life of the process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet

_KINDS = (int, str)


class Unpreparable(TypeError):
    """The builder's statement does not take the slots' values as plain parameters."""


def _placeholders(slots: dict[str, type], variant: int) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for i, (name, kind) in enumerate(slots.items()):
        if kind is int:
            values[name] = -7_240_000_000_000 - 1000 * variant - i
        elif kind is str:
            values[name] = f"\ue000prepared-{variant}-{i}\ue000"
        else:
            raise Unpreparable(f"slot {name!r}: only {_KINDS} values can vary, not {kind!r}")
    return values


class _Plan:
    __slots__ = ("compiler", "params", "positions", "queryset", "sql")

    def __init__(self, queryset: QuerySet, compiler: Any, sql: str, params: list, positions: list) -> None:
        self.queryset, self.compiler, self.sql, self.params, self.positions = (
            queryset,
            compiler,
            sql,
            params,
            positions,
        )


class Prepared:
    """A queryset compiled once per database alias (see the module docstring)."""

    def __init__(self, build: Callable[..., QuerySet], **slots: type) -> None:
        self.build = build
        self.slots = slots
        self._plans: dict[str, _Plan] = {}
        self._lock = threading.Lock()

    def plan(self, using: str = DEFAULT_DB_ALIAS) -> _Plan:
        found = self._plans.get(using)
        if found is None:
            with self._lock:
                found = self._plans.get(using) or self._compile(using)
                self._plans[using] = found
        return found

    def _compile(self, using: str) -> _Plan:
        first, second = _placeholders(self.slots, 1), _placeholders(self.slots, 2)
        queryset = self.build(**first).using(using)
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        other_sql, other_params = self.build(**second).using(using).query.get_compiler(using=using).as_sql()
        if sql != other_sql or len(params) != len(other_params):
            raise Unpreparable(f"the statement's shape depends on the values: {sql!r}")
        by_value = {(first[name], second[name]): name for name in self.slots}
        positions = []
        for i, pair in enumerate(zip(params, other_params, strict=True)):
            if pair[0] == pair[1]:
                continue
            name = by_value.get(pair)
            if name is None:
                raise Unpreparable(f"parameter {i} is derived from a value, not the value: {pair!r}")
            positions.append((i, name))
        unused = set(self.slots) - {name for _, name in positions}
        if unused or any(str(value) in sql for value in first.values()):
            raise Unpreparable(f"slots {sorted(unused)} are not plain parameters of {sql!r}")
        return _Plan(queryset, compiler, sql, list(params), positions)

    def __call__(self, *, using: str = DEFAULT_DB_ALIAS, **values: Any) -> list[Any]:
        """The rows for these values, as `list(queryset)` would give them."""
        if values.keys() != self.slots.keys():
            raise TypeError(f"pass exactly {sorted(self.slots)}")
        plan = self.plan(using)
        params = list(plan.params)
        for i, name in plan.positions:
            value = values[name]
            if not isinstance(value, self.slots[name]) or isinstance(value, bool):
                raise TypeError(f"{name} must be {self.slots[name].__name__}, not {type(value).__name__}")
            params[i] = value
        sql = plan.sql
        # A fresh compiler per call, on this thread's connection, answering the compiled statement.
        compiler = _shallow(plan.compiler)
        compiler.connection = connections[using]
        compiler.as_sql = lambda *args, **kwargs: (sql, params)
        query = _shallow(plan.queryset.query)
        query.get_compiler = lambda *args, **kwargs: compiler
        queryset = _shallow(plan.queryset)
        queryset._query = query  # not the setter: it would reset a values_list() iterable
        queryset._result_cache = None
        return list(queryset)


def _shallow(obj: Any) -> Any:
    """A copy sharing every attribute (copy.copy would pickle a queryset: evaluate it)."""
    clone = object.__new__(type(obj))
    clone.__dict__ = obj.__dict__.copy()
    return clone
