"""An operation's input model built by an internal caller (a job, the demo loader, another app's
service, a test), with the refusal every service raises: a bad value is the domain error of its
field (`InvalidInput`, or the catalog's subclass for the error type, e.g. `InvalidUrl`), never a
pydantic `ValidationError` escaping into a page or a worker.

    services.create_task(principal, build(TaskCreate, title=title, board_id=board.pk))

Surfaces validate their own way first (the tool dispatcher, `apps.core.surfaces.api.endpoint`,
`InputModelForm`); what reaches the service is the validated model either way.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from apps.core.errors import DECLARED, DomainError, InvalidInput
from apps.core.messages import validation_message

M = TypeVar("M", bound=BaseModel)


def build(model: type[M], /, **values: Any) -> M:
    """`model(**values)`, or the domain error of its first bad field."""
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise refusal(exc) from None


def refusal(exc: ValidationError) -> DomainError:
    """The domain error for an input model's errors: every bad field with its message; the class
    is the catalog's for the first error's type when that is an `InvalidInput` (e.g. `InvalidUrl`
    for `invalid_url`), else `InvalidInput`."""
    errors = exc.errors(include_url=False)
    fields: dict[str, str] = {}
    for error in errors:
        name = ".".join(str(part) for part in error["loc"]) or "__all__"
        fields.setdefault(name, validation_message(dict(error)))
    declared = (
        [c for c in DECLARED.get(errors[0]["type"], []) if issubclass(c, InvalidInput)] if errors else []
    )
    error_class: type[InvalidInput] = declared[0] if declared else InvalidInput
    first, message = next(iter(fields.items()))
    return error_class(f"{first}: {message}", details={"field_errors": fields})
