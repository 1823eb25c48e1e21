"""Error codes of sign-in (see apps/core/errors.py)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from apps.core.errors import DomainError


class LoginLocked(DomainError):
    """Too many failed logins for this e-mail or from this address: locked until the cool-off ends
    (a device that signed in to the account before still may, `apps.accounts.lockout`)."""

    code = "login_locked"
    http_status = 429

    def __init__(self, retry_after: int) -> None:
        minutes = max(1, round(retry_after / 60))
        super().__init__(
            _(
                "Too many failed login attempts. For your protection, signing in is blocked for "
                "%(minutes)d minutes, except on a device you signed in with before. An administrator "
                "can lift the block earlier."
            )
            % {"minutes": minutes},
            details={"retry_after": retry_after},
        )
        self.retry_after = retry_after
