"""`{{ person|initials }}`: the two letters an avatar shows, from first and last name."""

from __future__ import annotations

import re

from django import template

register = template.Library()
_SEPARATORS = re.compile(r"[\s._\-+]+")


def initials_of(full_name: str, username: str = "") -> str:
    """First letter of the first and of the last name ("Anna Maria von Berg" → "AB"); one name:
    its first letter; no name: the user name (an e-mail's local part, split at . _ - +)."""
    words = [w for w in (full_name or "").split() if w[:1].isalpha()]
    if not words:
        words = [w for w in _SEPARATORS.split((username or "").split("@")[0]) if w]
    if not words:
        return "?"
    if len(words) == 1:
        return words[0][:1].upper()
    return (words[0][:1] + words[-1][:1]).upper()


@register.filter
def initials(person) -> str:
    if person is None:
        return ""
    first = getattr(person, "first_name", "") or ""
    last = getattr(person, "last_name", "") or ""
    full = f"{first} {last}".strip() or getattr(person, "full_name", "") or ""
    username = getattr(person, "email", "") or getattr(person, "username", "") or ""
    return initials_of(full, username)
