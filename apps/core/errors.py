"""Domain errors: a stable `code` and an HTTP status, mapped to page, API and tool answers in
one place each (`apps.core.surfaces.web`, `apps.core.surfaces.api`, the tool dispatcher).

Each app's `errors.py` is its table of codes: subclasses of the bases below that name their code
once. Codes are snake_case and unique across the project (`tests/core/test_error_codes.py`);
`manage.py error_codes` prints the catalog, `/api/v1/error-codes` serves it.
"""

from __future__ import annotations

from typing import Any, ClassVar

# code → the classes declaring it, filled as the errors modules are imported.
DECLARED: dict[str, list[type[DomainError]]] = {}


class DomainError(Exception):
    """A failure the caller can act on. `message` is shown to the person or the model as is, so it
    must be localized by the raiser (gettext) and must never contain raw database text."""

    code: ClassVar[str] = "domain_error"
    http_status: ClassVar[int] = 400

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            DECLARED.setdefault(cls.code, []).append(cls)

    def __init__(self, message: str = "", *, details: Any = None) -> None:
        super().__init__(message)
        self.message = str(message)
        self.details = details

    @classmethod
    def field(cls, field: str, message: str, **more: Any) -> DomainError:
        """The error for one bad field: `details.field_errors` is what forms and models fix."""
        return cls(f"{field}: {message}", details={"field_errors": {field: str(message)}, **more})

    @property
    def field_errors(self) -> dict[str, str]:
        details = self.details if isinstance(self.details, dict) else {}
        return dict(details.get("field_errors") or {})


class NotFound(DomainError):
    """Missing, or invisible to the caller: both answer alike so ids cannot be probed."""

    code = "not_found"
    http_status = 404


class Forbidden(DomainError):
    code = "forbidden"
    http_status = 403


class InvalidInput(DomainError):
    """Bad values; `details.field_errors` maps field → message."""

    code = "invalid_input"


class InvalidUrl(InvalidInput):
    """A link that is not http(s), mailto or a path on this server (javascript:, data: … are refused)."""

    code = "invalid_url"


class DateOutOfRange(InvalidInput):
    """A date or moment with a year outside 1900–2200 (`apps.core.validation.YEAR_MIN`/`YEAR_MAX`):
    no office plans that far, and year 9999 overflows every time zone conversion."""

    code = "date_out_of_range"


class NulCharacter(InvalidInput):
    """Text with a NUL character (\\0): PostgreSQL cannot store it, so it is refused at the door."""

    code = "nul_character"


class JsonTooDeep(InvalidInput):
    """A JSON body nested deeper than the server accepts (`apps.core.jsontext.MAX_DEPTH`)."""

    code = "json_too_deep"


class JsonNumberInvalid(InvalidInput):
    """A JSON number that is too long (over 4,300 digits) or not finite (1e999, NaN, Infinity)."""

    code = "json_number_invalid"


class InvalidTimeZone(InvalidInput):
    """An `X-User-Timezone` header that cannot be a time zone name (too long, control characters)."""

    code = "invalid_time_zone"


class ReservedName(InvalidInput):
    """A name that would pass for one the product gives special rows (each person's "Persönlich"
    folder) or carries the 🔒 the pages draw for private rows (`apps.core.names`)."""

    code = "reserved_name"


class Conflict(DomainError):
    code = "conflict"
    http_status = 409


class VersionConflict(Conflict):
    """The row changed since the caller read it; `details.current` carries the current record."""

    code = "version_conflict"


class TooLarge(DomainError):
    code = "too_large"
    http_status = 413


class PayloadTooLarge(TooLarge):
    """A request body over its endpoint's limit, counted in bytes received (also when chunked):
    DATA_UPLOAD_MAX_MEMORY_SIZE, the tool execute endpoint's CLAPILOT_TOOL_PAYLOAD_MAX_BYTES."""

    code = "payload_too_large"


class ShareTargetNotFound(InvalidInput):
    """A share names a person who does not exist or is deactivated, or an unknown group: nothing is granted."""

    code = "share_target_not_found"


class ShareNotAllowed(Forbidden):
    """Only the owner of a record (or an administrator in the admin) decides who else sees it."""

    code = "share_not_allowed"


class ShareLastOwner(Conflict):
    """The owner's own access cannot be revoked: a shared record always keeps its owner."""

    code = "share_last_owner"


class Unavailable(DomainError):
    """A peer (model provider, embeddings service …) failed; the request itself was fine."""

    code = "unavailable"
    http_status = 502


def catalog() -> list[dict[str, Any]]:
    """Every declared code with its status, owning app and meaning, sorted by code."""
    rows = []
    for code, classes in DECLARED.items():
        cls = classes[0]
        rows.append(
            {
                "code": code,
                "http_status": cls.http_status,
                "app": cls.__module__.split(".")[1] if cls.__module__.startswith("apps.") else cls.__module__,
                "error": cls.__name__,
                "description": (cls.__doc__ or "").strip().split("\n")[0],
            }
        )
    # Codes produced without an exception class (the tool dispatcher's envelope), per app.
    from apps.core.plugins import contributions

    for table in contributions("core.error_codes"):
        for code, (app, text) in table.items():
            rows.append({"code": code, "http_status": None, "app": app, "error": None, "description": text})
    return sorted(rows, key=lambda r: r["code"])


def load_all() -> None:
    """Import every app's errors module, so the catalog is complete."""
    from django.apps import apps
    from django.utils.module_loading import module_has_submodule

    for config in apps.get_app_configs():
        if config.name.startswith("apps.") and module_has_submodule(config.module, "errors"):
            __import__(f"{config.name}.errors")
