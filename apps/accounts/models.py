"""Users (email login, with their profile settings), and service principals."""

from __future__ import annotations

import zoneinfo
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.models import CreatedAt


def validate_time_zone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("“%(value)s” is not a known IANA time zone."), params={"value": value})


class UserManager(BaseUserManager):
    use_in_migrations = True

    def _create(self, email: str, password: str | None, **fields) -> User:
        if not email:
            raise ValueError("An email address is required.")
        user = self.model(email=self.normalize_email(email).lower(), **fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_user(self, email: str, password: str | None = None, **fields) -> User:
        fields.setdefault("role", User.Role.STAFF)
        fields.setdefault("is_superuser", False)
        return self._create(email, password, **fields)

    def create_superuser(self, email: str, password: str | None = None, **fields) -> User:
        fields.update(role=User.Role.ADMIN, is_superuser=True)
        return self._create(email, password, **fields)

    def get_by_natural_key(self, username: str) -> User:
        return self.get(email__iexact=username)


class User(AbstractBaseUser, PermissionsMixin):
    """A member of the office. The profile settings (language, time zone) live on the row itself:
    every request needs them, and a separate table would cost a join on each one."""

    class Role(models.TextChoices):
        ADMIN = "admin", _("Administrator")
        STAFF = "staff", _("Staff")

    class Language(models.TextChoices):
        DE = "de", "Deutsch"
        EN = "en", "English"
        IT = "it", "Italiano"

    email = models.EmailField(_("email address"), unique=True)
    full_name = models.CharField(_("full name"), max_length=150, blank=True)
    role = models.CharField(_("role"), max_length=16, choices=Role.choices, default=Role.STAFF)
    language = models.CharField(_("language"), max_length=2, choices=Language.choices, default=Language.DE)
    time_zone = models.CharField(
        _("time zone"), max_length=64, default=settings.TIME_ZONE, validators=[validate_time_zone]
    )
    # Live notices ("Aufgabe angelegt: …") about colleagues' changes; the lists still update.
    mute_toasts = models.BooleanField(_("mute live notices"), default=False)
    # The morning overview (apps.notifications.digest) at 07:00 in `time_zone`; a person may opt out.
    morning_digest = models.BooleanField(_("morning overview"), default=True)
    is_active = models.BooleanField(_("active"), default=True)
    date_joined = models.DateTimeField(_("date joined"), default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")
        ordering = ["full_name", "email"]

    def __str__(self) -> str:
        return self.full_name or self.email

    def save(self, *args: Any, **kwargs: Any) -> None:
        # One admin concept: the role decides. `is_superuser` (what Django's permission checks,
        # the admin's model permissions and django-guardian read) always follows it, so a person
        # with the role "Administrator" can use every admin page and nobody else gets them by a flag.
        self.is_superuser = self.role == self.Role.ADMIN
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "role" in update_fields:
            kwargs["update_fields"] = {*update_fields, "is_superuser"}
        super().save(*args, **kwargs)

    @property
    def is_staff(self) -> bool:
        """Django admin access: only the admin role runs the control plane."""
        return self.role == self.Role.ADMIN

    @property
    def is_admin(self) -> bool:
        return self.role == self.Role.ADMIN

    def get_full_name(self) -> str:
        return self.full_name or self.email

    def get_short_name(self) -> str:
        return self.full_name.split(" ")[0] if self.full_name else self.email.split("@")[0]


class ServicePrincipal(CreatedAt):
    """A non-human identity (automation, team room, public embed) that tools can run as."""

    class Kind(models.TextChoices):
        AUTOMATION = "automation", _("Automation")
        TEAM_ROOM = "team_room", _("Team room")
        PUBLIC_EMBED = "public_embed", _("Public embed")

    name = models.CharField(_("name"), max_length=150, unique=True)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices, default=Kind.AUTOMATION)
    is_active = models.BooleanField(_("active"), default=True)
    description = models.TextField(_("description"), blank=True)

    class Meta:
        verbose_name = _("service principal")
        verbose_name_plural = _("service principals")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


def user_link(
    verbose_name=None, *, related_name: str = "+", on_delete=models.SET_NULL, **options
) -> models.ForeignKey:
    """An optional link to a person who did something (created, reviewed, decided …): the row
    outlives them (SET_NULL) and, by default, users get no reverse accessor for it."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=on_delete,
        related_name=related_name,
        verbose_name=verbose_name,
        **options,
    )


def owner_link(related_name: str, verbose_name=None) -> models.ForeignKey:
    """The optional owner of a private row, which goes with them (CASCADE); shared rows have none."""
    return user_link(verbose_name, related_name=related_name, on_delete=models.CASCADE)


def service_link(verbose_name=None) -> models.ForeignKey:
    """An optional link to the service principal something was done through (kept if it goes)."""
    return models.ForeignKey(
        ServicePrincipal,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=verbose_name,
    )


class CreatedByService(models.Model):
    """Audit: the service principal (agent, team room, API key) a row was created through, if any."""

    created_by_service = service_link(_("created through"))

    class Meta:
        abstract = True


class CreatedBy(CreatedByService):
    """Audit actor: the person who created a row (a team-room member rather than the room's service
    principal), besides the service principal it came through."""

    created_by = user_link(_("created by"))

    class Meta:
        abstract = True
