"""The office's own settings ("Kanzlei-Einstellungen"), typed and checked, for the office admin's
page: the Bundesland (read by `apps.deadlines.office`), the numbering schemes of clients and cases
(`apps.clients.numbering`), the office's name and address (setting keys `office_name` and
`office_address`, read by the Fristenbuch reports) and the default chat model (read by
`apps.llm.selection`). Each is stored where its reader looks, as the plain value it expects.

The page lives in the clients app because it is the lowest app that sees every owner of these
settings (deadlines, llm and the numbering schemes; layers in pyproject.toml)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from pydantic import Field, field_validator

from apps.accounts.principal import Principal
from apps.accounts.services import require_office_admin
from apps.clients import numbering
from apps.core.contracts import Input
from apps.core.errors import InvalidInput
from apps.core.services import get_setting, set_setting
from apps.deadlines import office
from apps.llm import selection

OFFICE_NAME = "office_name"
OFFICE_ADDRESS = "office_address"
NAME_MAX = 200
ADDRESS_MAX = 500


def lands() -> dict[str, str]:
    """The 16 Länder by code."""
    return dict(office.BUNDESLAENDER)


class OfficeSettings(Input):
    """Every setting of the page; a bad value is an error on its own field."""

    office_name: str = Field(default="", max_length=NAME_MAX)
    office_address: str = Field(default="", max_length=ADDRESS_MAX)
    bundesland: str
    client_prefix: str = Field(default="", max_length=numbering.PREFIX_MAX + len(numbering.YEAR_TOKEN))
    client_start: int = Field(ge=1)
    client_width: int = Field(ge=1, le=numbering.WIDTH_MAX)
    case_prefix: str = Field(default="", max_length=numbering.PREFIX_MAX + len(numbering.YEAR_TOKEN))
    case_start: int = Field(ge=1)
    case_width: int = Field(ge=1, le=numbering.WIDTH_MAX)
    default_model_id: int | None = None

    @field_validator("bundesland")
    @classmethod
    def _a_land(cls, value: str) -> str:
        code = value.strip().upper()
        if code not in lands():
            raise ValueError(_("Pick one of the 16 Länder."))
        return code


def current() -> dict[str, Any]:
    """The stored values, as the page's form shows them (the readers' fallbacks where unset)."""
    clients, cases = numbering.CLIENTS.office_scheme(), numbering.CASES.office_scheme()
    model = selection.default_model()
    return {
        "office_name": _text(get_setting(OFFICE_NAME, "")),
        "office_address": _text(get_setting(OFFICE_ADDRESS, "")),
        "bundesland": office.office_state(),
        "client_prefix": clients["prefix"],
        "client_start": clients["start"],
        "client_width": clients["width"],
        "case_prefix": cases["prefix"],
        "case_start": cases["start"],
        "case_width": cases["width"],
        "default_model_id": model.pk if model else None,
    }


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def model_choices() -> list[tuple[int, str]]:
    """The models a default may be chosen from: those a person may pick (`offered_models`)."""
    return [(m.pk, m.label) for m in selection.offered_models().order_by("provider__name", "model_id")]


def _scheme(scheme: numbering.Scheme, prefix: str, start: int, width: int, field: str) -> dict:
    try:
        return scheme.check({"prefix": prefix, "start": start, "width": width})
    except ValidationError as exc:
        raise InvalidInput.field(field, exc.messages[0]) from None


@transaction.atomic
def save(principal: Principal, data: OfficeSettings) -> None:
    """Store every setting of the page (office admins only: `forbidden` for anyone else)."""
    require_office_admin(principal)
    clients = _scheme(
        numbering.CLIENTS, data.client_prefix, data.client_start, data.client_width, "client_prefix"
    )
    cases = _scheme(numbering.CASES, data.case_prefix, data.case_start, data.case_width, "case_prefix")
    if data.default_model_id is not None and data.default_model_id not in dict(model_choices()):
        raise InvalidInput.field("default_model_id", _("Pick one of the models offered."))
    set_setting(OFFICE_NAME, data.office_name)
    set_setting(OFFICE_ADDRESS, data.office_address)
    set_setting(office.SETTING_KEY, data.bundesland)
    set_setting(numbering.CLIENTS.setting_key, clients)
    set_setting(numbering.CASES.setting_key, cases)
    if data.default_model_id is not None:
        set_setting(selection.DEFAULT_MODEL_SETTING, data.default_model_id)
