"""`/api/v1/me/preferences`: a person's own language, time zone and switches, for the apps
(sessions and device tokens; API keys act for automations, which have no preferences)."""

from __future__ import annotations

from typing import Any

from apps.accounts import contracts as c
from apps.accounts import services
from apps.core.surfaces.api import ApiView, endpoint


class PreferencesView(ApiView):
    @endpoint(output=c.PreferencesResult, operation_id="accounts_preferences_retrieve")
    def get(self, request: Any) -> dict[str, c.PreferencesOut]:
        """Your preferences"""
        return {"preferences": c.PreferencesOut.of(request.user)}

    @endpoint(
        body=c.PreferencesUpdate, output=c.PreferencesResult, operation_id="accounts_preferences_update"
    )
    def put(self, request: Any, body: c.PreferencesUpdate) -> dict[str, c.PreferencesOut]:
        """Change your preferences (the two switches only when sent)"""
        return {"preferences": c.PreferencesOut.of(services.update_preferences(request.principal, body))}
