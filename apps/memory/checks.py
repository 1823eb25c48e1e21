"""The domain's checks on top of the contract's (which has typed and bounded every field already):
a memory's text against the documented limit (refused as `memory_too_large`, the contract bounds
text only loosely), its validity window, and its subject (client, case, person: unknown ids
answer with the owning app's code, naming the field)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.clients import services as clients
from apps.clients.errors import CaseNotFound
from apps.core import validation
from apps.memory.errors import MemoryTooLarge, PersonNotFound
from apps.memory.models import TEXT_MAX

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.clients.models import Case, Client


def clean_text(value: str, field: str = "text") -> str:
    value = value.strip()
    if not value:
        raise validation.invalid(field, _("must not be empty"))
    if len(value) > TEXT_MAX:
        message = _("A memory may have at most %(n)d characters; this one has %(got)d.") % {
            "n": TEXT_MAX,
            "got": len(value),
        }
        raise MemoryTooLarge(message, details={"field_errors": {field: message}, "limit": TEXT_MAX})
    return value


def _aware(value: dt.datetime | None) -> dt.datetime | None:
    """A moment without a zone (the contract accepts one) is the office's local time."""
    return timezone.make_aware(value) if value is not None and timezone.is_naive(value) else value


def validity(
    valid_from: dt.datetime | None, valid_until: dt.datetime | None
) -> tuple[dt.datetime | None, dt.datetime | None]:
    start, end = _aware(valid_from), _aware(valid_until)
    if end is not None and start is not None and end <= start:
        raise validation.invalid("valid_until", _("must be after valid_from"))
    if end is not None and end <= timezone.now():
        raise validation.invalid("valid_until", _("lies in the past; the memory would never be used"))
    return start, end


@dataclass(frozen=True)
class Subject:
    client: Client | None = None
    case: Case | None = None
    person: User | None = None

    @property
    def key(self) -> tuple:
        return (
            self.client.pk if self.client else None,
            self.case.pk if self.case else None,
            self.person.pk if self.person else None,
        )


def resolve_subject(
    principal: Principal, client_id: int | None, case_id: int | None, person_id: int | None
) -> Subject:
    """The client, case and person a memory is about; unknown ids answer with the owning app's
    code (`client_not_found`, `case_not_found`) or `person_not_found`, naming the field."""
    client = clients.resolve_client(principal, client_id, field="subject_client_id")
    case = None
    if case_id is not None:
        try:
            case = clients.get_case(principal, case_id)
        except CaseNotFound as exc:
            raise CaseNotFound(
                exc.message, details={"field_errors": {"subject_case_id": exc.message}}
            ) from None
        if client is not None and case.client_id != client.pk:
            raise validation.invalid("subject_case_id", _("belongs to another client"))
        client = client or case.client
    person = None
    if person_id is not None:
        from apps.accounts.models import User

        try:
            person = User.objects.get(pk=person_id, is_active=True)
        except User.DoesNotExist:
            message = _("There is no person with id %(id)s.") % {"id": person_id}
            raise PersonNotFound(message, details={"field_errors": {"subject_person_id": message}}) from None
    return Subject(client, case, person)
