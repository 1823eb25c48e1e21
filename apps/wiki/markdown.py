"""Wiki pages render with the copilot's safe Markdown subset (`apps.llm.markdown`: the source is
HTML-escaped first, then nh3 removes anything outside the allowed tags), so a page can never carry
scripts, event handlers or `javascript:` links."""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe

from apps.llm import markdown as base


def render(source: str) -> SafeString:
    return mark_safe(base.render(source or ""))  # noqa: S308 (escaped and nh3-cleaned by base.render)
