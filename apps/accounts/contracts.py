"""Output shapes of people, as every domain names them (assignee, author, responsible …), and the
inputs of inviting a colleague and of a person's own preferences."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db.models import Model
from django.utils.translation import gettext as _
from pydantic import BeforeValidator, Field, StrictBool, field_validator
from pydantic_core import PydanticCustomError

from apps.accounts.models import ServicePrincipal, User, validate_time_zone
from apps.core.contracts import Input, Output, choices_enum
from apps.core.outputs import RowOutput

# The languages are the model's choices; a type checker sees them themselves (it cannot follow an
# enum built by a call).
if TYPE_CHECKING:
    Language = User.Language
else:
    Language = choices_enum("UserLanguage", User.Language)


class PersonRef(Output):
    id: int
    name: str
    email: str


def person_ref(user) -> dict | None:
    return {"id": user.pk, "name": user.get_full_name(), "email": user.email} if user else None


def _as_person(value: Any) -> Any:
    return person_ref(value) if isinstance(value, Model) else value


def _as_service_name(value: Any) -> Any:
    return value.name if isinstance(value, ServicePrincipal) else value


# Output fields that build themselves from a row (RowOutput): a user validates into its PersonRef,
# the service principal that made a row into its name.
AsPerson = Annotated[PersonRef, BeforeValidator(_as_person)]
AsServiceName = Annotated[str, BeforeValidator(_as_service_name)]


class ColleagueInvite(Input):
    """An office admin invites a colleague: an account without a password, and a link to set one."""

    full_name: str = Field(min_length=1, max_length=150)
    email: str = Field(min_length=3, max_length=254)
    role: Literal["staff", "admin"] = "staff"

    @field_validator("email")
    @classmethod
    def _an_address(cls, value: str) -> str:
        try:
            validate_email(value)
        except ValidationError:
            raise PydanticCustomError(
                "invalid_email", str(_("must be an e-mail address like name@example.com"))
            ) from None
        return value.lower()


# ServicePrincipal.Kind's values (tests/core/test_admin_services.py keeps them equal).
ServicePrincipalKind = Literal["automation", "team_room", "public_embed"]


class ServicePrincipalSave(Input):
    """A service principal (automation, team room, public embed) as an admin adds or changes it."""

    name: str = Field(min_length=1, max_length=150)
    kind: ServicePrincipalKind = "automation"
    is_active: bool = True
    description: str = Field(default="", max_length=2000)


class PreferencesUpdate(Input):
    """A person's own preferences (the settings page; the header's language switch sends the
    language with the zone kept). The two switches change only when sent, and only as yes/no."""

    language: Language = Field(description="The language of the pages.")
    time_zone: str = Field(max_length=64, description="IANA time zone, e.g. Europe/Berlin.")
    mute_toasts: StrictBool | None = Field(default=None, description="No pop-up notices of others' changes.")
    morning_digest: StrictBool | None = Field(
        default=None, description="The 07:00 overview of today's Fristen and overdue tasks."
    )

    @field_validator("time_zone")
    @classmethod
    def _a_known_zone(cls, value: str) -> str:
        try:
            validate_time_zone(value)
        except ValidationError as exc:
            raise PydanticCustomError("invalid_time_zone", exc.messages[0].replace("{", "(")) from None
        return value


class PreferencesOut(RowOutput):
    """A person's own preferences as `PreferencesUpdate` sets them (REST: the apps' settings)."""

    language: Language
    time_zone: str
    mute_toasts: bool
    morning_digest: bool


class PreferencesResult(Output):
    preferences: PreferencesOut


class LanguageSwitch(Input):
    """The header's language switch (a code Django's `set_language` also takes when not ours)."""

    language: str = ""
