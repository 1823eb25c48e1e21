"""Test-session wiring: the real embedded PostgreSQL (pgvector) unless DATABASE_URL is set."""

from __future__ import annotations

import pytest
from django.conf import settings


@pytest.fixture(scope="session", autouse=True)
def channel_layer_on_test_database(django_db_setup, django_db_blocker):
    """channels-postgres copies the database settings at import time; point it at the test DB."""
    from channels import layers
    from django.db import connection

    config = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
    if "ENGINE" in config:
        config["NAME"] = connection.settings_dict["NAME"]
    layers.channel_layers.backends.clear()
    yield
    # The channel layer's pool and worker threads keep sessions open; the test database can only
    # be dropped once they are gone.
    with django_db_blocker.unblock(), connection.cursor() as cur:
        cur.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [connection.settings_dict["NAME"]],
        )


@pytest.fixture(autouse=True)
def plain_static_files(settings):
    """Pages render without a collectstatic run (the hashed manifest is a deployment concern)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def user(db):
    from tests.factories import UserFactory

    return UserFactory()


@pytest.fixture
def admin_user(db):
    from tests.factories import UserFactory

    return UserFactory(role="admin", is_superuser=True)


@pytest.fixture
def logged_in_client(client, user):
    client.force_login(user)
    return client


def pytest_unconfigure(config):
    """Tests start the embedded server once per session; stop it again if this run started it."""
    from clapilot import embedded_db

    embedded_db.stop_if_started_here()
