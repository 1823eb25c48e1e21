"""Start-up check of the declared queues: each key names one queue (it is the page's `kind`)."""

from __future__ import annotations

from typing import Any

from django.core.checks import Error, register


@register()
def queue_keys(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    from apps.review.services import queues

    errors: list[Error] = []
    seen: dict[str, object] = {}
    for kind in queues():
        if kind.key in seen:
            errors.append(
                Error(
                    f"review queue key {kind.key!r} is declared twice ({type(seen[kind.key]).__module__}, "
                    f"{type(kind).__module__})",
                    id="clapilot.E010",
                )
            )
        seen[kind.key] = kind
    return errors
