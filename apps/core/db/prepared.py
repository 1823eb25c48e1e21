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

A slot is declared with its kind:

* `int`, `str`: a value bound as a parameter of the one compiled statement;
* `list` (of ints, e.g. `pk__in=`): its items are bound as parameters; one statement is
  compiled per length (an empty list answers `[]` without a query, as the queryset does);
* `SHAPE`: a hashable value the builder may use freely (a page's limit and offset, which Django
  writes into the SQL); one statement is compiled per value.

The statement must take the values as plain parameters: the builder runs twice with different
placeholders, and the two statements must differ in exactly the placeholders' parameters, else
`Unpreparable`. Everything else the builder reads (model metadata, constants) is fixed when the
statement is compiled, for the life of the process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet

SHAPE = object()  # the kind of a slot that selects the statement instead of being bound
MAX_PLANS = 256  # statements kept per Prepared (lengths × shapes); more: start again


class Unpreparable(TypeError):
    """The builder's statement does not take the slots' values as plain parameters."""


class _Plan:
    __slots__ = ("compiler", "params", "positions", "queryset", "sql")

    def __init__(
        self, queryset: QuerySet[Any] | None, compiler: Any, sql: str, params: list[Any], positions: list[Any]
    ):
        self.queryset, self.compiler, self.sql = queryset, compiler, sql
        self.params, self.positions = params, positions


class Prepared:
    """A queryset compiled once per database alias and shape (see the module docstring)."""

    def __init__(self, build: Callable[..., QuerySet[Any]], **slots: Any) -> None:
        for name, kind in slots.items():
            if kind not in (int, str, list, SHAPE):
                raise Unpreparable(f"slot {name!r}: kind must be int, str, list or SHAPE, not {kind!r}")
        self.build = build
        self.slots = slots
        self._plans: dict[tuple[Any, ...], _Plan] = {}
        self._lock = threading.Lock()

    def __call__(self, *, using: str = DEFAULT_DB_ALIAS, **values: Any) -> list[Any]:
        """The rows for these values, as `list(queryset)` would give them."""
        if values.keys() != self.slots.keys():
            raise TypeError(f"pass exactly {sorted(self.slots)}")
        for name, kind in self.slots.items():
            value = values[name]
            items = value if kind is list else () if kind is SHAPE else (value,)
            want = str if kind is str else int
            if (kind is list and not isinstance(value, list | tuple)) or any(
                not isinstance(v, want) or isinstance(v, bool) for v in items
            ):
                raise TypeError(f"{name}: wrong kind of value {value!r}")
        key = (using, *(self._key_of(name, values[name]) for name in self.slots))
        plan = self._plans.get(key)
        if plan is None:
            with self._lock:
                plan = self._plans.get(key) or self._compile(using, values)
                if len(self._plans) >= MAX_PLANS:
                    self._plans.clear()
                self._plans[key] = plan
        if plan.queryset is None:  # a statement Django knows to be empty: no query
            return []
        params = list(plan.params)
        for i, name, item in plan.positions:
            params[i] = values[name] if item is None else values[name][item]
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

    def first(self, **values: Any) -> Any:
        """The first row for these values, or None (for a builder that slices `[:1]`)."""
        rows = self(**values)
        return rows[0] if rows else None

    def _key_of(self, name: str, value: Any) -> Any:
        kind = self.slots[name]
        return len(value) if kind is list else value if kind is SHAPE else None

    def _placeholders(self, values: dict[str, Any], variant: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for i, (name, kind) in enumerate(self.slots.items()):
            # Inside the range of a 32-bit column: Django drops an out-of-range comparison.
            base = -1_700_000_000 - 100_000_000 * variant - 10_000 * i
            if kind is int:
                out[name] = base
            elif kind is str:
                out[name] = f"\ue000prepared-{variant}-{i}\ue000"
            elif kind is list:
                out[name] = [base - j for j in range(len(values[name]))]
            else:
                out[name] = values[name]
        return out

    def _placeholder_names(self, values: dict[str, Any]) -> dict[Any, tuple[str, int | None]]:
        names: dict[Any, tuple[str, int | None]] = {}
        for name, kind in self.slots.items():
            if kind is list:
                names.update({v: (name, j) for j, v in enumerate(values[name])})
            elif kind is not SHAPE:
                names[values[name]] = (name, None)
        return names

    def _compile(self, using: str, values: dict[str, Any]) -> _Plan:
        first, second = self._placeholders(values, 1), self._placeholders(values, 2)
        queryset = self.build(**first).using(using)
        compiler = queryset.query.get_compiler(using=using)
        try:
            sql, params = compiler.as_sql()
            other_sql, other_params = (
                self.build(**second).using(using).query.get_compiler(using=using).as_sql()
            )
        except EmptyResultSet:
            if not any(kind is list and not values[name] for name, kind in self.slots.items()):
                raise Unpreparable("the statement is empty whatever the values") from None
            return _Plan(None, None, "", [], [])  # `IN ()`: Django answers [] without a query
        if sql != other_sql or len(params) != len(other_params):
            raise Unpreparable(f"the statement's shape depends on the values: {sql!r}")
        names, other_names = self._placeholder_names(first), self._placeholder_names(second)
        positions = []
        for i, (one, other) in enumerate(zip(params, other_params, strict=True)):
            if one == other:
                continue
            slot = names.get(one)
            if slot is None or other_names.get(other) != slot:
                raise Unpreparable(f"parameter {i} is derived from a value, not the value: {one!r}")
            positions.append((i, *slot))
        if {(name, item) for _, name, item in positions} != set(names.values()) or any(
            str(v) in sql for v in names
        ):
            raise Unpreparable(f"some values are not plain parameters of {sql!r}")
        return _Plan(queryset, compiler, sql, list(params), positions)


def _shallow(obj: Any) -> Any:
    """A copy sharing every attribute (copy.copy would pickle a queryset: evaluate it)."""
    clone = object.__new__(type(obj))
    clone.__dict__ = obj.__dict__.copy()
    return clone
