"""Stable failure codes of the widgets domain."""

from apps.core.errors import DomainError, NotFound


class WidgetNotFound(NotFound):
    code = "widget_not_found"


class InvalidWidgetInput(DomainError):
    code = "invalid_input"


class InvalidWidgetType(DomainError):
    code = "invalid_widget_type"


class InvalidWidgetDefinition(DomainError):
    code = "invalid_widget_definition"


class InvalidWidgetData(DomainError):
    code = "invalid_widget_data"


class SlugTaken(DomainError):
    code = "slug_taken"
    http_status = 409


class NoUserContext(DomainError):
    """Widgets belong to a person; a service principal has no dashboard."""

    code = "CLAPILOT_NO_USER_CONTEXT"
    http_status = 403


class VersionConflict(DomainError):
    code = "version_conflict"
    http_status = 409
