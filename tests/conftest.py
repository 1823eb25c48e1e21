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


@pytest.fixture(scope="session", autouse=True)
def private_celery_queue():
    """Jobs the tests enqueue go to a queue of this test run only. In-process workers consume it
    over the broker of the non-test database, where a developer's running worker must never pick
    up a test's job and a worker test must never inherit an earlier run's leftovers."""
    import uuid

    from clapilot.celery import app

    name = f"test-{uuid.uuid4().hex[:12]}"
    for cached in ("queues", "router"):
        app.amqp.__dict__.pop(cached, None)
    app.conf.task_default_queue = name
    yield name
    try:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(name)
    except Exception:  # pragma: no cover - best effort cleanup
        pass


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


# The office's two staff members most tests act as (another user's data must stay invisible).
@pytest.fixture
def anna(db):
    from tests.factories import UserFactory

    return UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")


@pytest.fixture
def ben(db):
    from tests.factories import UserFactory

    return UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")


@pytest.fixture
def as_anna(anna):
    from apps.accounts.principal import Principal

    return Principal.for_user(anna)


@pytest.fixture
def as_ben(ben):
    from apps.accounts.principal import Principal

    return Principal.for_user(ben)


@pytest.fixture
def anna_ctx(as_anna):
    from apps.tools.context import ToolContext

    return ToolContext(principal=as_anna)


@pytest.fixture
def ben_ctx(as_ben):
    from apps.tools.context import ToolContext

    return ToolContext(principal=as_ben)


@pytest.fixture
def meier(db):
    from tests.factories import ClientFactory

    return ClientFactory(name="Meier GmbH", client_number="10003")


@pytest.fixture
def hidden_client(monkeypatch, db):
    """A client the visibility rule hides from everybody. Clients are office-wide today, so no
    real row is invisible: the one rule, `apps.clients.visibility.visible_clients`, is patched
    here once. Every app reads clients through that module attribute (or through
    `apps.clients.services`), so links and name matches in tasks, calendar, documents and
    knowledge all see it hidden; tests/clients/test_visibility_rule.py keeps it that way."""
    from apps.clients import visibility
    from tests.factories import ClientFactory

    hidden = ClientFactory(name="Geheim AG", client_number="99999")
    original = visibility.visible_clients

    def visible(principal):
        return original(principal).exclude(pk=hidden.pk)

    monkeypatch.setattr(visibility, "visible_clients", visible)
    return hidden


@pytest.fixture
def logged_in_client(client, user):
    client.force_login(user)
    return client


def pytest_configure(config):
    """The settings only describe the embedded PostgreSQL: start (or attach to) it before
    pytest-django creates the test database. Under xdist the controller starts it before the
    workers exist; they attach."""
    from django.conf import settings

    if settings.EMBEDDED_DATABASE:
        from clapilot import embedded_db

        embedded_db.ensure_running()


def pytest_unconfigure(config):
    """Stop the embedded server again if this run started it (the xdist controller, once all
    workers are gone)."""
    from clapilot import embedded_db

    embedded_db.stop_if_started_here()
