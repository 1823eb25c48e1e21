"""Names that would pass for something they are not in a tree or list (spoofing).

Pages mark private rows themselves, from the row's kind (a 🔒 in front of a personal folder or a
private note folder), never from its name. So no name may carry such a mark, and a name the
product gives special rows (each person's "Persönlich" documents folder) is reserved for them:
compared without case, spaces, punctuation, emoji or other symbols ("🔒 persönlich", "PERSÖNLICH!"
and "Persönlich" are one name), after Unicode compatibility folding (NFKC).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from django.utils.translation import gettext as _

from apps.core.errors import ReservedName

# What the pages draw in front of private rows, and its look-alikes.
LOCK_MARKS = frozenset("🔒🔐🔏🔓🗝🔑")


def folded(name: str) -> str:
    """`name` reduced to its letters and digits, case-folded: the key two names look alike by."""
    text = unicodedata.normalize("NFKC", name)
    return "".join(ch for ch in text if unicodedata.category(ch)[0] in "LN").casefold()


def has_lock_mark(name: str) -> bool:
    return any(ch in LOCK_MARKS for ch in name)


def is_reserved(name: str, reserved: Iterable[str]) -> bool:
    key = folded(name)
    return bool(key) and key in {folded(r) for r in reserved}


def check(name: str, *, field: str = "name", reserved: Iterable[str] = ()) -> None:
    """Raise `ReservedName` for a name with a lock mark or one that looks like a reserved one."""
    if has_lock_mark(name):
        raise ReservedName.field(
            field, _("must not contain a lock symbol: pages mark private folders themselves")
        )
    if is_reserved(name, reserved):
        raise ReservedName.field(field, _("is reserved for each person's private “Persönlich” folder"))
