"""The only place that changes accounts state."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from apps.accounts.contracts import ColleagueInvite, PreferencesUpdate, ServicePrincipalSave
from apps.accounts.models import ServicePrincipal, User
from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.db.lookup import delete_existing, new_or_existing
from apps.core.db.saving import save_unique
from apps.core.errors import Forbidden, InvalidInput


def active_person_id(value: Any, field: str) -> int | None:
    """The id of an active person that a task, client … is linked to (None when none is given);
    anything else is `invalid_input` on `field`."""
    if value in (None, ""):
        return None
    try:
        user_id = int(value)
    except (TypeError, ValueError):
        raise validation.invalid(field, _("must be a person's id")) from None
    if not User.objects.filter(pk=user_id, is_active=True).exists():
        raise validation.invalid(field, _("there is no active person with this id"))
    return user_id


@transaction.atomic
def update_preferences(principal: Principal, data: PreferencesUpdate) -> User:
    """A user changes their own language, time zone and (when sent) whether live notices are
    muted and whether the morning overview comes (the validated `PreferencesUpdate`)."""
    if not principal.is_user:
        raise Forbidden(_("Only a signed-in person has preferences."))
    user = User.objects.select_for_update().get(pk=principal.user.pk)
    user.language, user.time_zone = str(data.language), data.time_zone
    fields = ["language", "time_zone"]
    for name in ("mute_toasts", "morning_digest"):
        if getattr(data, name) is not None:
            setattr(user, name, getattr(data, name))
            fields.append(name)
    user.save(update_fields=fields)
    return user


@transaction.atomic
def ensure_admin(email: str, password: str | None) -> tuple[User, str | None]:
    """Create the first admin unless it exists. Returns the user and the password to print once
    (a generated one when none was configured; None when the account already existed)."""
    email = email.lower().strip()
    existing = User.objects.filter(email__iexact=email).first()
    if existing is not None:
        return existing, None
    shown = password or secrets.token_urlsafe(12)
    user = User.objects.create_superuser(email=email, password=shown, full_name="Administrator")
    return user, shown


@transaction.atomic
def create_service_principal(name: str, kind: str, description: str = "") -> ServicePrincipal:
    sp, _ = ServicePrincipal.objects.get_or_create(
        name=name, defaults={"kind": kind, "description": description}
    )
    return sp


@transaction.atomic
def set_service_principals_active(ids: list[int], active: bool) -> int:
    """Enable or disable automations/team rooms. Disabling takes effect on their very next tool
    call (the dispatcher re-reads the flag)."""
    return ServicePrincipal.objects.filter(id__in=ids).update(is_active=active)


def save_service_principal(
    principal: Principal, data: ServicePrincipalSave, principal_id: int | None = None
) -> ServicePrincipal:
    """An admin adds a service principal (principal_id None) or changes one; a taken name is
    `invalid_input` on `name`. Deactivating takes effect on its next tool call."""
    require_office_admin(principal)
    row = new_or_existing(ServicePrincipal, principal_id, _("There is no service principal with id %(id)s."))
    row.name, row.kind, row.is_active, row.description = (
        data.name,
        data.kind,
        data.is_active,
        data.description,
    )
    save_unique(row, lambda: InvalidInput.field("name", _("is already used by another service principal")))
    return row


@transaction.atomic
def delete_service_principal(principal: Principal, principal_id: int) -> None:
    """Rows made through it keep their record (their link becomes empty)."""
    require_office_admin(principal)
    delete_existing(ServicePrincipal, principal_id, _("There is no service principal with id %(id)s."))


def require_office_admin(principal: Principal) -> User:
    """The signed-in person, when their role is admin (the one admin concept); else `forbidden`."""
    user = principal.user if principal.is_user else None
    if user is None or not user.is_active or not user.is_admin:
        raise Forbidden(_("Only an administrator of the office may do this."))
    return user


@transaction.atomic
def invite_colleague(principal: Principal, data: ColleagueInvite) -> tuple[User, str]:
    """An office admin adds a colleague: an active account without a usable password, and the path
    of the link on which the colleague sets their own (Django's password reset link: it stops
    working once a password is set). A taken address is `invalid_input` on `email`."""
    require_office_admin(principal)
    if User.objects.filter(email__iexact=data.email).exists():
        raise InvalidInput.field("email", _("a person with this e-mail address exists already"))
    user = User.objects.create_user(email=data.email, password=None, full_name=data.full_name, role=data.role)
    return user, set_password_path(user)


def set_password_path(user: User) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("password_reset_confirm", args=[uid, default_token_generator.make_token(user)])
