"""Linking existing rows to a case from its page: the extension point `clients.case_links`.

The case page offers, per app that links rows to cases, the rows of the case's client that the
viewer may see and that belong to no case yet ("Frist verknüpfen …"). The clients app knows none
of those apps: each declares a `CaseLinker` on its AppConfig, living in that app,

    extends = {"clients.case_links": ["apps.<app>.case_links.LINKER"]}

`candidates(principal, case)` answers (id, label) pairs in one query through the app's own
visibility rule; `link(principal, case, item_id)` sets the row's case through the app's own
service (permissions, live events and audit as for any other change)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.clients.models import Case
from apps.core import validation
from apps.core.plugins import contributions

POINT = "clients.case_links"
# A picker lists at most this many rows; the newest come first.
MAX_CANDIDATES = 100


@dataclass(frozen=True)
class CaseLinker:
    key: str  # unique among the linkers, e.g. "deadlines"; the posted value is "<key>:<id>"
    label: Any  # the group's localized name, e.g. "Fristen"
    candidates: Callable[[Principal, Case], list[tuple[int, str]]]
    link: Callable[[Principal, Case, int], None]
    order: int = 100


@dataclass(frozen=True)
class LinkGroup:
    key: str
    label: str
    options: list[tuple[str, str]]  # ("<key>:<id>", label)


def newest(rows: QuerySet, label: str) -> list[tuple[int, str]]:
    """A linker's candidates from `rows` (its app's visible rows without a case): (id, `label`
    field) pairs, the most recently changed first, at most MAX_CANDIDATES."""
    return list(rows.order_by("-updated_at", "-id").values_list("id", label)[:MAX_CANDIDATES])


def linkers() -> list[CaseLinker]:
    return sorted(contributions(POINT), key=lambda linker: (linker.order, linker.key))


def groups(principal: Principal, case: Case) -> list[LinkGroup]:
    """The picker's groups for this case and viewer (one query per app); none for a closed case."""
    if case.status != Case.Status.OPEN:
        return []
    found = []
    for linker in linkers():
        options = [(f"{linker.key}:{pk}", label) for pk, label in linker.candidates(principal, case)]
        if options:
            found.append(LinkGroup(linker.key, str(linker.label), options))
    return found


def link(principal: Principal, case: Case, item: str) -> None:
    """Link the picked row ("<key>:<id>") to the case; an unknown pick is `invalid_input`."""
    key, _sep, raw_id = (item or "").partition(":")
    chosen = next((linker for linker in linkers() if linker.key == key), None)
    if chosen is None or not raw_id.isdigit():
        raise validation.invalid("item", _("Pick an entry to link."))
    if case.status != Case.Status.OPEN:
        raise validation.invalid(
            "item", _("Case %(reference)s is closed; reopen it to link more.") % {"reference": case.reference}
        )
    chosen.link(principal, case, int(raw_id))
