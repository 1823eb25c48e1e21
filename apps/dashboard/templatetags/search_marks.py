"""`{{ text|marked:query }}`: the search words marked in a hit's title or line. The text is split
at the matches and every piece escaped on its own, so neither the stored text nor the query can
inject markup; only our own <mark> tags are raw."""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from apps.core.db.search import WORD

register = template.Library()

MIN_WORD = 2


def pattern(query: str) -> re.Pattern | None:
    """Each word where a word of the text begins with it (the search matches prefixes)."""
    words = sorted({w.strip("-") for w in WORD.findall(query or "")}, key=len, reverse=True)
    words = [w for w in words if len(w) >= MIN_WORD][:10]
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")\w*", re.IGNORECASE)


@register.filter
def marked(text: object, query: str) -> SafeString:
    text = "" if text is None else str(text)
    found = pattern(query)
    if found is None:
        return escape(text)
    out: list[str] = []
    at = 0
    for match in found.finditer(text):
        out.append(escape(text[at : match.start()]))
        out.append(f"<mark>{escape(match.group(0))}</mark>")
        at = match.end()
    out.append(escape(text[at:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece above is escaped
