"""Who acts: the identity every service, tool and job receives.

A `Principal` is resolved once at the boundary (request, API key, automation, team room) and
passed down. It answers two separate questions:

* `resource_scope` — which rows may be seen and changed. A user sees what they may see; a
  service principal sees shared data only, never the private data of whichever member happened
  to trigger it.
* `audit_actor` — who is recorded as the author. In a team room the verified member who spoke is
  the author, while the room's service principal is the scope.

Identity is never taken from a request body: constructors take persisted rows only.
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.conf import settings

if TYPE_CHECKING:
    from apps.accounts.models import ServicePrincipal, User


class PrincipalError(Exception):
    code = "forbidden"


class InactivePrincipal(PrincipalError):
    """The user or service principal is disabled: it must stop acting at once."""


@dataclass(frozen=True)
class ResourceScope:
    """Which rows are visible. `user_id` is None for service principals: shared data only."""

    user_id: int | None
    is_admin: bool = False

    @property
    def shared_only(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True)
class Principal:
    user: User | None = None
    service: ServicePrincipal | None = None
    # The verified human behind a service-principal call (e.g. the team-room member who spoke).
    # Recorded as author only; never widens the resource scope.
    acting_user: User | None = field(default=None)

    def __post_init__(self) -> None:
        if (self.user is None) == (self.service is None):
            raise ValueError("A principal is either a user or a service principal.")

    # --- constructors -------------------------------------------------------------------
    @classmethod
    def for_user(cls, user: User) -> Principal:
        if not user.is_active:
            raise InactivePrincipal(f"user {user.pk} is inactive")
        return cls(user=user)

    @classmethod
    def for_service(cls, service: ServicePrincipal, acting_user: User | None = None) -> Principal:
        """A service principal must be persisted and active when it starts acting."""
        if service.pk is None:
            raise PrincipalError("service principal is not persisted")
        if not service.is_active:
            raise InactivePrincipal(f"service principal {service.pk} is inactive")
        return cls(service=service, acting_user=acting_user)

    # --- the two questions ---------------------------------------------------------------
    @property
    def resource_scope(self) -> ResourceScope:
        if self.user is not None:
            return ResourceScope(user_id=self.user.pk, is_admin=self.user.is_admin)
        return ResourceScope(user_id=None)

    @property
    def audit_actor(self) -> User | None:
        """The user recorded as author (None for a purely automatic action)."""
        return self.user or self.acting_user

    @property
    def audit_label(self) -> str:
        if self.user is not None:
            return str(self.user)
        if self.acting_user is not None:
            return f"{self.acting_user} via {self.service}"
        return str(self.service)

    # --- conveniences --------------------------------------------------------------------
    @property
    def is_user(self) -> bool:
        return self.user is not None

    @property
    def is_service(self) -> bool:
        return self.service is not None

    @property
    def language(self) -> str:
        person = self.user or self.acting_user
        return person.language if person is not None else settings.LANGUAGE_CODE

    @property
    def time_zone(self) -> zoneinfo.ZoneInfo:
        person = self.user or self.acting_user
        name = person.time_zone if person is not None else settings.TIME_ZONE
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC")

    def refresh_active(self) -> None:
        """Re-read the active flag from the database: disabling takes effect immediately.
        Runs before every tool call, so it is one raw indexed lookup rather than an ORM query."""
        from django.db import connection

        row = self.user or self.service
        table = row._meta.db_table  # not type(row): a session's user is a SimpleLazyObject
        with connection.cursor() as cur:
            cur.execute(f'SELECT is_active FROM "{table}" WHERE id = %s', [row.pk])  # noqa: S608 (table from model meta)
            found = cur.fetchone()
        if not found or not found[0]:
            raise InactivePrincipal(f"{row._meta.object_name} {row.pk} is inactive")
