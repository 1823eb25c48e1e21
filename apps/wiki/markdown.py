"""Wiki Markdown: CommonMark with tables, strikethrough, fenced code and `[[Page]]` /
`[[Page|label]]` links, rendered by markdown-it-py and sanitized by nh3.

Raw HTML in the source is never passed through (markdown-it escapes it), markdown-it refuses
`javascript:`/`vbscript:`/`data:` link targets, and nh3 keeps only the tags, attributes and URL
schemes below as a second line of defence — a page can never carry scripts, event handlers or
script links. Relative links name wiki pages (`[Fristen](fristenkontrolle)` → /wiki/fristenkontrolle/).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Q
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from apps.core import sanitizing

TAGS = frozenset(
    {
        "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "code", "pre",
        "blockquote", "ul", "ol", "li", "a", "img", "table", "thead", "tbody", "tr", "th", "td",
    }
)  # fmt: skip
ATTRIBUTES = {
    "a": {"href", "title", "class"},
    "img": {"src", "alt", "title"},
    "code": {"class"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto", "tel"})
_CLASSES = {"a": {"wikilink", "wikilink-missing"}}
_ALIGN = re.compile(r"^text-align:\s*(left|right|center)$")
_LANGUAGE = re.compile(r"^language-[\w+-]{1,30}$")
_WIKILINK = re.compile(r"\[\[([^\[\]|\n]{1,200})(?:\|([^\[\]\n]{1,200}))?\]\]")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def slug_of(title: str) -> str:
    """The address a title gets (the same rule as `services.slug_from`, without its checks)."""
    return slugify(title.translate(_GERMAN)).strip("-")


@dataclass(frozen=True)
class Target:
    href: str
    exists: bool


Resolver = Callable[[Iterable[str]], dict[str, Target]]


def resolve_pages(names: Iterable[str]) -> dict[str, Target]:
    """`[[name]]` → the page whose title (any case) or address matches, in one query; a name
    without a page links to the new-page form with the title filled in."""
    from apps.wiki.models import WikiPage

    wanted = {name: (name.strip().lower(), slug_of(name)) for name in names}
    if not wanted:
        return {}
    rows = (
        WikiPage.objects.annotate(low=Lower("title"))
        .filter(Q(low__in=[t for t, _ in wanted.values()]) | Q(slug__in=[s for _, s in wanted.values() if s]))
        .values_list("low", "slug")
    )
    by_title, by_slug = {}, {}
    for low, slug in rows:
        by_title[low], by_slug[slug] = slug, slug
    targets = {}
    for name, (title, slug) in wanted.items():
        page_slug = by_title.get(title) or by_slug.get(slug)
        if page_slug:
            targets[name] = Target(reverse("wiki:page", args=[page_slug]), True)
        else:
            query = urlencode({"title": name.strip()})
            targets[name] = Target(f"{reverse('wiki:create')}?{query}", False)
    return targets


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    if not state.src.startswith("[[", state.pos):
        return False
    match = _WIKILINK.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.meta = {"target": match.group(1).strip(), "label": (match.group(2) or match.group(1)).strip()}
    state.pos = match.end()
    return True


def _page_href(href: str) -> str:
    """A relative link names a wiki page by its address, wherever the page is shown."""
    if not href or href.startswith(("/", "#", "?")) or _SCHEME.match(href):
        return href
    path, sep, fragment = href.partition("#")
    while path.startswith(("./", "../")):
        path = path.split("/", 1)[1]
    slug = path.strip("/")
    if not slug:
        return href
    return reverse("wiki:index") + slug + "/" + (sep + fragment if sep else "")


def _parser(targets: dict[str, Target]) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)

    def render_wikilink(renderer, tokens, idx, options, env) -> str:
        meta = tokens[idx].meta
        target = targets.get(meta["target"])
        if target is None:
            return escape(meta["label"])
        css = "wikilink" if target.exists else "wikilink-missing"
        return f'<a href="{escape(target.href)}" class="{css}">{escape(meta["label"])}</a>'

    def render_link_open(renderer, tokens, idx, options, env) -> str:
        token = tokens[idx]
        token.attrSet("href", _page_href(str(token.attrGet("href") or "")))
        return renderer.renderToken(tokens, idx, options, env)

    def render_heading(renderer, tokens, idx, options, env) -> str:
        # The page title is the h1: "# Abschnitt" in the text is the page's h2, and so on.
        token = tokens[idx]
        token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"
        return renderer.renderToken(tokens, idx, options, env)

    md.add_render_rule("wikilink", render_wikilink)
    md.add_render_rule("heading_open", render_heading)
    md.add_render_rule("heading_close", render_heading)
    md.add_render_rule("link_open", render_link_open)
    return md


def _attribute(element: str, attribute: str, value: str) -> str | None:
    if attribute == "class":
        if element == "code":
            return value if _LANGUAGE.match(value) else None
        kept = [c for c in value.split() if c in _CLASSES.get(element, ())]
        return " ".join(kept) or None
    if attribute == "style":
        return value if _ALIGN.match(value.strip().rstrip(";")) else None
    return value


_cleaner = sanitizing.cleaner(
    tags=TAGS, attributes=ATTRIBUTES, attribute_filter=_attribute, url_schemes=URL_SCHEMES
)


def wikilink_names(source: str) -> set[str]:
    return {m.group(1).strip() for m in _WIKILINK.finditer(source)}


def to_html(source: str, resolve: Resolver = resolve_pages) -> str:
    """Sanitized HTML of `source`; `[[links]]` are looked up in one query for the whole text."""
    source = source or ""
    targets = resolve(wikilink_names(source))
    return _cleaner.clean(_parser(targets).render(source)).strip()


def render(source: str) -> SafeString:
    return mark_safe(to_html(source))  # noqa: S308 (markdown-it without raw HTML, then nh3-cleaned)
