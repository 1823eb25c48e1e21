"""Validation messages in the person's language. pydantic's own messages are English only; the
REST API and the page forms show these instead (the tools keep pydantic's, for the model)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _


def validation_message(error: dict[str, Any]) -> str:
    """The localized message of one pydantic error (`ValidationError.errors()` item)."""
    ctx = error.get("ctx") or {}
    kind = error.get("type", "")
    table = {
        "missing": lambda: _("This field is required."),
        "extra_forbidden": lambda: _("This field is not known here."),
        "string_too_short": lambda: (
            _("Ensure this field has at least %(n)s characters.") % {"n": ctx.get("min_length")}
        ),
        "string_too_long": lambda: (
            _("Ensure this field has no more than %(n)s characters.") % {"n": ctx.get("max_length")}
        ),
        "string_type": lambda: _("Not a valid string."),
        "int_parsing": lambda: _("A valid integer is required."),
        "int_type": lambda: _("A valid integer is required."),
        "int_from_float": lambda: _("A valid integer is required."),
        "int_parsing_size": lambda: _("A valid integer is required."),
        "float_parsing": lambda: _("A valid number is required."),
        "float_type": lambda: _("A valid number is required."),
        "bool_parsing": lambda: _("Must be a valid boolean."),
        "bool_type": lambda: _("Must be a valid boolean."),
        "date_parsing": lambda: _("Enter a valid date (YYYY-MM-DD)."),
        "date_from_datetime_parsing": lambda: _("Enter a valid date (YYYY-MM-DD)."),
        "date_type": lambda: _("Enter a valid date (YYYY-MM-DD)."),
        "datetime_parsing": lambda: _("Enter a valid date and time (ISO 8601)."),
        "datetime_from_date_parsing": lambda: _("Enter a valid date and time (ISO 8601)."),
        "datetime_type": lambda: _("Enter a valid date and time (ISO 8601)."),
        "literal_error": lambda: _("Must be one of: %(choices)s.") % {"choices": ctx.get("expected", "")},
        "enum": lambda: _("Must be one of: %(choices)s.") % {"choices": ctx.get("expected", "")},
        "greater_than_equal": lambda: (
            _("Ensure this value is greater than or equal to %(n)s.") % {"n": ctx.get("ge")}
        ),
        "greater_than": lambda: _("Ensure this value is greater than %(n)s.") % {"n": ctx.get("gt")},
        "less_than_equal": lambda: (
            _("Ensure this value is less than or equal to %(n)s.") % {"n": ctx.get("le")}
        ),
        "less_than": lambda: _("Ensure this value is less than %(n)s.") % {"n": ctx.get("lt")},
        "too_long": lambda: (
            _("Ensure this list has no more than %(n)s items.") % {"n": ctx.get("max_length")}
        ),
        "too_short": lambda: _("Ensure this list has at least %(n)s items.") % {"n": ctx.get("min_length")},
        "list_type": lambda: _("Expected a list of items."),
        "dict_type": lambda: _("Expected an object."),
        "model_type": lambda: _("Expected an object."),
        "model_attributes_type": lambda: _("Expected an object."),
        "string_nul": lambda: _("Text must not contain NUL characters (\\0)."),
        "too_deep": lambda: _("Nested too deeply (at most %(n)s levels).") % {"n": ctx.get("n")},
        "finite_number": lambda: _("A finite number is required."),
    }
    make = table.get(kind)
    return make() if make is not None else error.get("msg", "")
