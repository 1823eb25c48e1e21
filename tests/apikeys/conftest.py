from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services
from tests.factories import UserFactory


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def office_admin(db):
    return UserFactory(role="admin", is_superuser=True, language="en")


@pytest.fixture
def staff(db):
    return UserFactory(language="en")


@pytest.fixture
def make_key(office_admin):
    """make_key(scopes=[...], user=..., expires_in_days=...) → (ApiKey, plaintext)."""

    def make(scopes=("tools:execute",), user=None, expires_in_days=None, name="Test key"):
        creator = user or office_admin
        return services.create_api_key(
            Principal.for_user(creator), name=name, scopes=list(scopes), expires_in_days=expires_in_days
        )

    return make
