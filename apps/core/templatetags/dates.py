"""`{{ value|shown_date:"d.m.Y" }}`: a stored date or moment as `|date` shows it (in the current
time zone), or marked as broken when it cannot be shown. A row written before dates were bounded
(`apps.core.validation.YEAR_MIN`–`YEAR_MAX`) may hold year 9999: converting its UTC moment to the
viewer's zone overflows, and `|date` would answer the whole page with a 500. Pages use this filter
for dates a person or the model chose (validity, due days), so one broken row stays one row.

    {% load dates %}{% if m.valid_until %}{{ m.valid_until|shown_date:"d.m.Y" }}{% endif %}
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import template
from django.template.defaultfilters import date as date_filter
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _

from apps.core import validation

register = template.Library()


def broken(value: dt.date) -> str:
    """The marker a page shows instead of a date it cannot show (the stored value as its title)."""
    return format_html('<span class="date-broken" title="{}">{}</span>', value.isoformat(), _("invalid date"))


# `expects_localtime=False`: the conversion happens here, where an overflow can be caught.
@register.filter(expects_localtime=False)
def shown_date(value: Any, arg: str | None = None) -> str:
    if not isinstance(value, dt.date):
        return date_filter(value, arg)
    if not validation.year_in_range(value):
        return broken(value)
    try:
        if isinstance(value, dt.datetime) and timezone.is_aware(value):
            value = timezone.localtime(value)
        return date_filter(value, arg)
    except (OverflowError, ValueError):
        return broken(value)
