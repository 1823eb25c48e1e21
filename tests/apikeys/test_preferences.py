"""Requests made with an API key or a device token get the acting user's language and time zone.

The accounts middleware sets them for session requests; API credentials are only known once DRF
authenticates, after every middleware has run, so without the authenticators' help these
requests ran in the default language (German) and the server's time zone."""

from __future__ import annotations

import pytest
from django.utils import timezone, translation
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.views import APIView

from apps.accounts.principal import Principal
from apps.apikeys import services
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db]


class PreferencesView(APIView):
    required_scopes = ["tools:execute"]

    def get(self, request):
        return Response(
            {
                "language": translation.get_language(),
                "time_zone": timezone.get_current_timezone_name(),
                "now": timezone.localtime().isoformat(),
            }
        )


@pytest.fixture
def giulia(db):
    return UserFactory(role="admin", is_superuser=True, language="it", time_zone="America/New_York")


@pytest.mark.urls("tests.apikeys.urls")
@pytest.mark.parametrize("credential", ["key", "device"])
def test_key_and_device_requests_run_in_the_users_language_and_time_zone(giulia, credential):
    if credential == "key":
        _key, plaintext = services.create_api_key(
            Principal.for_user(giulia), name="k", scopes=["tools:execute"]
        )
        header = f"Bearer {plaintext}"
    else:
        _token, plaintext = services.issue_device_token(giulia, "Telefono")
        header = f"Token {plaintext}"
    response = APIClient().get("/t/preferences", HTTP_AUTHORIZATION=header)
    assert response.status_code == 200
    body = response.json()
    assert body["language"] == "it" and response["Content-Language"] == "it"
    assert body["time_zone"] == "America/New_York"
    assert body["now"].endswith(("-05:00", "-04:00"))  # New York, not the server's UTC/Berlin
    # The X-User-Timezone header still wins over the profile, as for sessions.
    response = APIClient().get("/t/preferences", HTTP_AUTHORIZATION=header, HTTP_X_USER_TIMEZONE="Asia/Tokyo")
    assert response.json()["time_zone"] == "Asia/Tokyo"


def test_an_error_of_a_real_endpoint_comes_back_in_the_users_language(db):
    english = UserFactory(language="en")
    _token, plaintext = services.issue_device_token(english, "Phone")
    response = APIClient().post("/api/v1/tasks/", {}, format="json", HTTP_AUTHORIZATION=f"Token {plaintext}")
    assert response.status_code == 400
    assert response.json()["details"]["field_errors"]["title"] == "This field is required."
