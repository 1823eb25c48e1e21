"""`ApiKeyScopes`: an API key reaches only the endpoints it was granted.

A view opts in to API keys by declaring `required_scopes` (e.g. `["tools:execute"]`); a key must
carry every one of them. Views without `required_scopes` are closed to API keys entirely (deny by
default, so a new endpoint never becomes reachable by existing keys by accident). Session and
device-token requests act as the member themselves and are not limited by this class.

A key acts with its creator's rights of the moment: the scopes in `ADMIN_SCOPES` stop working
as soon as the creator is no longer an administrator (a deactivated creator's keys are refused
earlier, by the authenticator).
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from apps.apikeys.models import ADMIN_SCOPES, ApiKey


class ApiKeyScopes(BasePermission):
    def has_permission(self, request: Request, view) -> bool:
        key = request.auth
        if not isinstance(key, ApiKey):
            return True
        required = list(getattr(view, "required_scopes", None) or [])
        if not required:
            self.message = _("This endpoint cannot be used with an API key.")
            self.code = "api_key_endpoint_not_allowed"
            return False
        missing = key.missing_scopes(required)
        if missing:
            self.message = _("This API key lacks the required scope: %(scopes)s.") % {
                "scopes": ", ".join(missing)
            }
            self.code = "api_key_scope_missing"
            return False
        # The creator's current rights (request.user is the creator, loaded for this request).
        lapsed = [scope for scope in required if scope in ADMIN_SCOPES]
        if lapsed and not request.user.is_admin:
            self.message = _(
                "The scope %(scopes)s works only while the key's creator is an administrator, "
                "and they no longer are."
            ) % {"scopes": ", ".join(lapsed)}
            self.code = "api_key_creator_not_admin"
            return False
        return True
