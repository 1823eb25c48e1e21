"""A deliberately small Markdown subset for assistant answers, sanitized with nh3.

Model output is untrusted: it is HTML-escaped first, the subset is applied, and nh3 removes
anything outside the allowed tags as a second line of defence.
"""

from __future__ import annotations

import html
import re

import nh3

ALLOWED_TAGS = {"p", "br", "strong", "em", "code", "pre", "ul", "ol", "li", "h3", "h4", "a", "blockquote"}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}}
# Links only to the web or mail: never javascript:, data:, vbscript: … (nh3 drops other hrefs).
URL_SCHEMES = {"http", "https", "mailto"}

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\*\w])\*(?!\s)(.+?)(?<!\s)\*(?![\*\w])")
_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^\s)]+)\)")
_BULLET = re.compile(r"^\s*[-*] +(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)] +(.*)$")
_HEADING = re.compile(r"^(#{1,4}) +(.*)$")


def _inline(text: str) -> str:
    text = _CODE.sub(r"<code>\1</code>", text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    text = _ITALIC.sub(r"<em>\1</em>", text)
    return _LINK.sub(r'<a href="\2">\1</a>', text)


def render(source: str) -> str:
    out: list[str] = []
    lines = html.escape(source or "", quote=False).split("\n")
    para: list[str] = []
    list_tag: str | None = None
    in_code = False

    def close_para() -> None:
        if para:
            out.append("<p>" + "<br>".join(_inline(p) for p in para) + "</p>")
            para.clear()

    def close_list() -> None:
        nonlocal list_tag
        if list_tag:
            out.append(f"</{list_tag}>")
            list_tag = None

    for line in lines:
        if line.strip().startswith("```"):
            close_para()
            close_list()
            out.append("</code></pre>" if in_code else "<pre><code>")
            in_code = not in_code
            continue
        if in_code:
            out.append(line + "\n")
            continue
        bullet, numbered, heading = _BULLET.match(line), _NUMBERED.match(line), _HEADING.match(line)
        if bullet or numbered:
            close_para()
            tag = "ul" if bullet else "ol"
            if list_tag != tag:
                close_list()
                out.append(f"<{tag}>")
                list_tag = tag
            out.append(f"<li>{_inline((bullet or numbered).group(1))}</li>")
        elif heading:
            close_para()
            close_list()
            level = 3 if len(heading.group(1)) <= 2 else 4
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif not line.strip():
            close_para()
            close_list()
        else:
            close_list()
            para.append(line)
    close_para()
    close_list()
    if in_code:
        out.append("</code></pre>")
    return nh3.clean(
        "".join(out),
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )
