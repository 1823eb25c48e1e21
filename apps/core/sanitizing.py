"""The house rules of every rich-text sanitizer (nh3): note pages (`apps.notes.html`), wiki pages
(`apps.wiki.markdown`). An app names the tags, attributes, URL schemes and its attribute filter;
the rules it shares with the others are here: a script's or style's content goes with its tag,
and every kept link opens with `rel="noopener noreferrer"`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import nh3


def cleaner(
    *,
    tags: Iterable[str],
    attributes: Mapping[str, Iterable[str]],
    attribute_filter: Callable[[str, str, str], str | None],
    url_schemes: Iterable[str],
    **options: Any,
) -> nh3.Cleaner:
    """A reusable nh3 cleaner keeping `tags`, `attributes` (per tag, `*` for any) and links with
    `url_schemes`; `attribute_filter` rewrites or drops a kept attribute's value (None drops it).
    `options` are further nh3 options (`filter_style_properties` …)."""
    return nh3.Cleaner(
        tags=set(tags),
        clean_content_tags={"script", "style"},
        attributes={tag: set(names) for tag, names in attributes.items()},
        attribute_filter=attribute_filter,
        url_schemes=set(url_schemes),
        link_rel="noopener noreferrer",
        **options,
    )
