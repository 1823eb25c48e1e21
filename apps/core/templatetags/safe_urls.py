"""`{{ value|safe_href }}`: a stored link as an href only when it is safe (http(s), mailto or a
path on this server, `apps.core.validation.is_safe_url`), else "" — so a row stored before links
were checked, or by a path that skipped the check, never renders as a `javascript:` link.

    {% with href=task.source_url|safe_href %}{% if href %}<a href="{{ href }}">…</a>{% endif %}{% endwith %}
"""

from __future__ import annotations

from django import template

from apps.core import validation

register = template.Library()


@register.filter
def safe_href(value) -> str:
    value = "" if value is None else str(value)
    return value if validation.is_safe_url(value) else ""
