from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.db import DatabaseCache
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services
from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def _clean_rate_limits(db, settings):
    """Throttle counters live in the cache; start every test from zero. A fresh key prefix isolates
    tests on Redis too, where `clear()` would flush the whole database (broker and channel layer
    included); the database cache is additionally emptied."""
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}
    if isinstance(caches["default"], DatabaseCache):
        cache.clear()


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
