"""Stable failure codes of the widgets domain. Invalid input and version conflicts use the shared
bases of `apps.core.errors` as they are."""

from apps.core.errors import Conflict, Forbidden, InvalidInput, NotFound


class WidgetNotFound(NotFound):
    """Missing, or another person's widget: both answer alike."""

    code = "widget_not_found"


class InvalidWidgetType(InvalidInput):
    """`widget_definition.type` names no widget type."""

    code = "invalid_widget_type"


class InvalidWidgetDefinition(InvalidInput):
    """The layout does not fit its type (`details.field_errors` names the settings)."""

    code = "invalid_widget_definition"


class InvalidWidgetData(InvalidInput):
    """`latest_data` is not plain JSON, too large, or fits no widget type."""

    code = "invalid_widget_data"


class SlugTaken(Conflict):
    """The person already has a widget with this slug."""

    code = "widget_slug_taken"


class NoUserContext(Forbidden):
    """Widgets belong to a person; a service principal has no dashboard. The tools answer with
    the dispatcher's envelope code `CLAPILOT_NO_USER_CONTEXT` instead (see `tools.py`)."""

    code = "widget_needs_person"
