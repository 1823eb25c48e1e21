"""Rich text of note pages: one sanitizer for every write path (tools, API, page editor, admin).

Formatting survives (bold, italic, underline, headings, lists, links, tables, font size, family
and colour as tags or inline styles); scripts, event handlers, `javascript:` URLs, iframes and
CSS tricks never do. Sanitizing replaces rejecting: the caller gets back what was stored.
"""

from __future__ import annotations

import html as htmllib
import re

from apps.core import sanitizing

TAGS = frozenset(
    {
        "p", "br", "div", "span", "b", "strong", "i", "em", "u", "s", "strike", "del", "ins", "sub", "sup",
        "mark", "small", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre",
        "code", "hr", "a", "img", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "font",
    }
)  # fmt: skip
ATTRIBUTES = {
    "*": {"style"},
    "a": {"href", "title"},
    "img": {"src", "alt", "width", "height"},
    "font": {"size", "face", "color"},
    "ol": {"start"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
}
STYLE_PROPERTIES = frozenset(
    {
        "font-size", "font-family", "font-weight", "font-style", "text-decoration", "text-decoration-line",
        "color", "background-color", "text-align", "line-height",
    }
)  # fmt: skip
URL_SCHEMES = frozenset({"http", "https", "mailto", "tel"})
# Values that could smuggle a URL, an expression or an escape into CSS.
_UNSAFE_CSS = re.compile(r"url\s*\(|expression|javascript:|@import|[\\<>{}]", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_BLOCK_END = re.compile(
    r"</(p|div|h[1-6]|li|blockquote|pre|tr|td|th|table|ul|ol)>|<br\s*/?>|<hr\s*/?>", re.IGNORECASE
)
_SPACES = re.compile(r"[ \t\r\f\v]+")
_NEWLINES = re.compile(r"\n\s*\n+")


def _safe_style(value: str) -> str | None:
    """Keep the allowed declarations with harmless values, drop the rest (not the whole style)."""
    kept = []
    for declaration in value.split(";"):
        name, sep, val = declaration.partition(":")
        name, val = name.strip().lower(), val.strip()
        if sep and name in STYLE_PROPERTIES and val and not _UNSAFE_CSS.search(val):
            kept.append(f"{name}: {val}")
    return "; ".join(kept) or None


def _filter_attribute(element: str, attribute: str, value: str) -> str | None:
    if attribute == "style":
        return _safe_style(value)
    if element == "font" and attribute == "face" and _UNSAFE_CSS.search(value):
        return None
    return value


_cleaner = sanitizing.cleaner(
    tags=TAGS,
    attributes=ATTRIBUTES,
    attribute_filter=_filter_attribute,
    url_schemes=URL_SCHEMES,
    filter_style_properties=set(STYLE_PROPERTIES),
)


def sanitize(value: str) -> str:
    return _cleaner.clean(value).strip()


def plain_text(sanitized_html: str) -> str:
    """The words of sanitized HTML, blocks on their own lines (search index and agent reading)."""
    text = _BLOCK_END.sub("\n", sanitized_html)
    text = htmllib.unescape(_TAG.sub("", text))
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _NEWLINES.sub("\n\n", "\n".join(line for line in lines if line)).strip()


def from_text(text: str) -> str:
    """Plain text → safe HTML paragraphs (agents and mobile clients that send words, not markup)."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if p.strip()]
    return "".join(
        "<p>" + "<br>".join(htmllib.escape(line) for line in p.split("\n")) + "</p>" for p in paragraphs
    )
