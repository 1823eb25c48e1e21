"""The typed contract of an operation: one pydantic input model and one output model, from which
the tool, the REST endpoint and the page form are derived (DESIGN §3a).

    class TaskCreate(Input):            # what the caller sends: validated once, everywhere
        title: str = Field(min_length=1, max_length=TITLE_MAX)

    class TaskOut(Output):              # what every surface answers with
        id: int
        title: str

Input models refuse unknown fields (the model or the client can fix a typo) and trim strings.
Output models refuse unknown fields too, so a record that drifts from its declared shape fails
in the tests instead of reaching a client undocumented.
"""

from __future__ import annotations

import datetime as dt
import types
import typing
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Self, cast

from django.db.models import TextChoices
from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from apps.core import jsontext, validation


def _number_types(annotation: Any) -> set[Any]:
    """The scalar types a field's annotation admits, through Annotated, unions and Optional (a
    list's items are the list's own business: see `_bool_refusal`)."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _number_types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_number_types(arg) for arg in typing.get_args(annotation)))
    return {annotation}


_NOT_A_BOOL = {
    int: ("int_type", "Input should be a valid integer"),
    float: ("float_type", "Input should be a valid number"),
    Decimal: ("decimal_type", "Decimal input should be an integer, float, string or Decimal object"),
}


def _bool_refusal(annotation: Any) -> tuple[str, str] | None:
    """The error for a boolean sent for a number (pydantic's lax mode would take `true` as 1), or
    None when the field takes booleans (or anything)."""
    admitted = _number_types(annotation)
    if admitted & {bool, Any, object}:
        return None
    return next((_NOT_A_BOOL[t] for t in (int, float, Decimal) if t in admitted), None)


class Input(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    _BOOL_REFUSALS: ClassVar[dict[tuple[type, str], Any]] = {}

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_number(cls, value: Any, info: ValidationInfo) -> Any:
        """A boolean is no id, count or amount: `true` for an integer or number field (or among a
        list of them) is refused as the wrong type, in every field of every operation."""
        if isinstance(value, bool) or (isinstance(value, list) and any(isinstance(v, bool) for v in value)):
            key = (cls, info.field_name or "")
            if key not in cls._BOOL_REFUSALS:
                annotation = cls.model_fields[key[1]].annotation if key[1] in cls.model_fields else Any
                items = [
                    typing.get_args(a)[0]
                    for a in _number_types(annotation)
                    if typing.get_origin(a) is list and typing.get_args(a)
                ]
                cls._BOOL_REFUSALS[key] = (
                    _bool_refusal(annotation),
                    _bool_refusal(items[0]) if items else None,
                )
            scalar, item = cls._BOOL_REFUSALS[key]
            refusal = scalar if isinstance(value, bool) else item
            if refusal:
                raise PydanticCustomError(*refusal)
        return value

    # Fields taken exactly as sent, because their consumer checks them (the tool envelope's name
    # and arguments); every other field refuses what PostgreSQL cannot store (`_storable`).
    UNCHECKED: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="after")
    @classmethod
    def _storable(cls, value: Any, info: ValidationInfo) -> Any:
        """No NUL character in any text, no integer outside PostgreSQL's bigint (ids, offsets),
        nothing nested deeper than `jsontext.MAX_DEPTH`, no infinite number: in every field of
        every operation, so a bad value is a 400 / `ok: false`, never a database error."""
        if info.field_name not in cls.UNCHECKED:
            jsontext.storable(value)
        return value


class Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RestBody(Input):
    """A REST write body: a field may be left out; only the `NULLABLE` ones may be sent as null
    (to empty them). The tools' strict schemas send null for "unchanged", so they never use it."""

    NULLABLE: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _not_null(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name not in cls.NULLABLE:
            raise ValueError("This field may not be null.")
        return value


class NullIsUnchanged(Input):
    """Mixed in first by a tool's form of a change: its strict schema sends every field, null
    meaning "unchanged", so the nulls leave the fields set (a `changes()` reads only what was set)."""

    @model_validator(mode="after")
    def _null_is_unchanged(self) -> Self:
        self.__pydantic_fields_set__.difference_update(
            name for name in list(self.__pydantic_fields_set__) if getattr(self, name) is None
        )
        return self


def legacy_alias(name: str, legacy: str) -> AliasChoices:
    """Accept a field under its older REST query name too (`?q=`, `?board=` …); documented and
    sent by the tools under `name`."""
    return AliasChoices(name, legacy)


def query_field(description: str, *, max_length: int = 200) -> Any:
    """The free-text search filter of a list operation (`query`, on REST also `?q=`)."""
    return Field(
        default=None,
        max_length=max_length,
        validation_alias=legacy_alias("query", "q"),
        description=description,
    )


def _safe_url(value: str) -> str:
    problem = validation.url_problem(value)
    if problem is not None:
        raise PydanticCustomError("invalid_url", "{problem}", {"problem": problem})
    return value


def safe_url(max_length: int = validation.URL_MAX) -> Any:
    """The type of a link that is stored and rendered as an href: "" (none), http(s)://…,
    mailto:… or a path on this server; javascript:, data:, //host … are refused with the error
    type `invalid_url`. Every contract field that stores a link uses it (`SafeUrl`, or
    `safe_url(500)` for a shorter column: the length is checked first, as a string's)."""
    return Annotated[str, Field(max_length=max_length), AfterValidator(_safe_url)]


SafeUrl = safe_url()


# Dates and moments a caller sends: a year outside validation.YEAR_MIN–YEAR_MAX is refused with
# the error type `date_out_of_range` (a field error on every surface). The schema says so too (a
# pattern on the year), so clients and the model see the bound before they send.
_YEAR_PATTERN = r"^(19[0-9]{2}|2[01][0-9]{2}|2200)-"


def _in_range(value: Any) -> Any:
    if isinstance(value, dt.date) and not validation.year_in_range(value):
        raise PydanticCustomError(
            "date_out_of_range", "{message}", {"message": validation.date_out_of_range_message()}
        )
    return value


def _moment_text_in_range(value: str) -> str:
    """A moment sent as text (the Kalender parses it with the entry's zone): refused here only when
    it names a date outside the bound; any other problem is the service's to report."""
    moment = validation.parsed_moment(value) if value else None
    if moment is not None:
        _in_range(moment)
    return value


Date = Annotated[
    dt.date,
    AfterValidator(_in_range),
    WithJsonSchema({"type": "string", "format": "date", "pattern": _YEAR_PATTERN}),
]
DateTime = Annotated[
    dt.datetime,
    AfterValidator(_in_range),
    WithJsonSchema({"type": "string", "format": "date-time", "pattern": _YEAR_PATTERN}),
]
# ISO 8601 text that a service parses itself (a Kalender start: a date, a naive time in the
# entry's zone, or a time with offset); only its year is checked here.
MomentText = Annotated[str, AfterValidator(_moment_text_in_range)]


# Bounded integers for contract fields. `Input` refuses any int beyond PostgreSQL's bigint, and a
# boolean, in every field (ids, cursors …), so an id needs no type of its own; a field stored in an
# IntegerField (a position) must say so, and these document their bounds (OpenAPI, tool schemas).
BIGINT_MAX = jsontext.BIGINT_MAX
INTEGER_MAX = 2**31 - 1
Offset = Annotated[int, Field(ge=0, le=BIGINT_MAX)]
Position = Annotated[int, Field(ge=0, le=INTEGER_MAX)]


class PageInput(Input):
    """Pagination every list operation accepts."""

    MAX_LIMIT: ClassVar[int] = 200

    limit: int = Field(default=50, ge=1, le=200, description="Page size.")
    offset: Offset = Field(default=0, description="Skip this many items (pagination).")


def choices_enum(name: str, choices: type[TextChoices]) -> type[StrEnum]:
    """A model's choices as a named enum, declared once on the model: one OpenAPI component
    (`EventKind`, `MemoryKindEnum` …) instead of an enum inlined per field, which drf-spectacular
    names by field and which then collides with other domains' `kind` or `visibility` (no central
    `ENUM_NAME_OVERRIDES`). Tools get it inlined, as before."""
    return cast("type[StrEnum]", StrEnum(name, {member.name: member.value for member in choices}))


def page(key: str, records: list, total: int, *, limit: int, offset: int) -> dict[str, Any]:
    """The one paginated shape of every list tool and list endpoint: the items under the
    resource's name, `total` matching items, the page asked for, and `has_more`."""
    return {
        key: records,
        "total": total,
        "limit": limit,
        "offset": offset,
        "has_more": offset + len(records) < total,
    }


def paged(item: type[BaseModel], key: str, *, name: str | None = None) -> type[Output]:
    """The output model of `page(key, …)` for items of type `item`."""
    return create_model(
        name or f"{item.__name__.removesuffix('Out')}Page",
        __base__=Output,
        **{
            key: (list[item], ...),
            "total": (int, Field(description="How many items match, over all pages.")),
            "limit": (int, ...),
            "offset": (int, ...),
            "has_more": (bool, Field(description="Whether a further page exists.")),
        },
    )


def wrapped(item: type[BaseModel], key: str, *, name: str | None = None, **extra: Any) -> type[Output]:
    """An output model `{key: item, **extra}` (e.g. `{"task": TaskOut}`)."""
    return create_model(
        name or f"{item.__name__.removesuffix('Out')}Result", __base__=Output, **{key: (item, ...)}, **extra
    )


class ErrorOut(Output):
    """The body of every refused REST call (`apps.core.surfaces.api.exception_handler`, documented on each
    operation by `apps.core.surfaces.api.document_error_responses`): the stable `code` (`manage.py
    error_codes` lists them), a message to show, and details or null. Bad input (400
    `invalid_request`) also names each bad field with its messages (`details.field_codes`: the
    catalog code of a field's error, e.g. `date_out_of_range`); DRF's own refusals (401, 403,
    429 …) also carry its `detail` (the message again)."""

    model_config = ConfigDict(extra="allow")

    code: str
    message: str
    details: Any = None


class InstanceSettingSave(Input):
    """An instance setting as an admin adds or changes it (key → JSON value); the value of a key
    an app declares (`core.instance_settings`) is checked by that app."""

    key: str = Field(min_length=1, max_length=100)
    value: Any = None
