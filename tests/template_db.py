"""Test databases cloned from a migrated template instead of migrating each one.

Running all migrations took ~40 s per test database, and under pytest-xdist every worker migrated
its own copy at the same time. Here the first process that needs a test database migrates one
template database (`<test name>_tpl_<fingerprint>`, e.g. test_clapilot_tpl_1a2b3c4d5e); every
test database is then `CREATE DATABASE ... TEMPLATE` of it (PostgreSQL copies its files, ~1 s), as
Django's own parallel test runner does (`DatabaseCreation._clone_test_db`).

The template stays in the server between runs. Its name holds a fingerprint of everything the
migrated schema and rows come from (every migration file of every installed app, Django's
version, the installed apps, the cache table); a changed migration means a new template, and the
outdated ones are dropped. `pytest --create-db` rebuilds it; `--reuse-db` and `--nomigrations`
keep pytest-django's own behaviour.
"""

from __future__ import annotations

import hashlib
import sys
import zlib

import django
from django.conf import settings

# The server-wide lock under which a template is built or copied (one process at a time: a
# template cannot be copied while another session is connected to it).
_LOCK_KEY = zlib.crc32(b"clapilot-test-template-db")


def fingerprint() -> str:
    from django.db.migrations.loader import MigrationLoader

    digest = hashlib.sha256()
    digest.update(django.get_version().encode())
    digest.update(repr(list(settings.INSTALLED_APPS)).encode())
    digest.update(repr(sorted(settings.CACHES.items(), key=str)).encode())
    loader = MigrationLoader(None, ignore_no_migrations=True)
    for key in sorted(loader.disk_migrations):
        migration = loader.disk_migrations[key]
        digest.update(repr(key).encode())
        path = getattr(sys.modules[type(migration).__module__], "__file__", None)
        if path:
            with open(path, "rb") as source:
                digest.update(source.read())
    return digest.hexdigest()[:10]


def install(connection, *, rebuild: bool, template_base: str | None = None) -> None:
    """Make `connection.creation.create_test_db` clone the template (the default database's,
    PostgreSQL only). Called before pytest-django sets up the test databases. `template_base`:
    the template's name prefix when it is not the test name's (the benches share one)."""
    creation = connection.creation
    if connection.vendor != "postgresql" or getattr(creation, "clones_template", False):
        return
    original = creation.create_test_db
    state = {"rebuild": rebuild}  # --create-db: rebuild once in this process

    def create_test_db(verbosity=1, autoclobber=False, serialize=True, keepdb=False):
        test = connection.settings_dict["TEST"]
        if keepdb or test.get("MIGRATE") is False:
            return original(verbosity, autoclobber, serialize, keepdb)
        name = creation._get_test_db_name()
        # A worker's database is <test name>_gw0: the template belongs to the test name.
        base = template_base or (name.removesuffix(f"_{_worker_suffix()}") if _worker_suffix() else name)
        template = f"{base}_tpl_{fingerprint()}"
        with creation._nodb_cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [_LOCK_KEY])
            try:
                if state.pop("rebuild", False) or not _exists(cursor, template):
                    _build(connection, original, template, base, verbosity)
                if verbosity >= 1:
                    creation.log(f"Cloning test database {name} from {template}...")
                cursor.execute(f"DROP DATABASE IF EXISTS {connection.ops.quote_name(name)}")
                cursor.execute(
                    f"CREATE DATABASE {connection.ops.quote_name(name)}"
                    f" TEMPLATE {connection.ops.quote_name(template)}"
                )
            finally:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [_LOCK_KEY])
        connection.close()
        settings.DATABASES[connection.alias]["NAME"] = name
        connection.settings_dict["NAME"] = name
        if serialize:
            connection._test_serialized_contents = creation.serialize_db_to_string()
        connection.ensure_connection()
        return name

    creation.create_test_db = create_test_db
    creation.clones_template = True


def _worker_suffix() -> str:
    import os

    return os.environ.get("PYTEST_XDIST_WORKER", "")


def _exists(cursor, name: str) -> bool:
    cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
    return cursor.fetchone() is not None


def _build(connection, create_test_db, template: str, base: str, verbosity: int) -> None:
    """Migrate a fresh database (Django's own create_test_db, under a working name), then point
    the connection back at the real database's settings and give the database the template's
    name: a migration that fails, or a run stopped half-way, leaves no template behind (only the
    working copy, replaced next time). Outdated templates are dropped."""
    creation = connection.creation
    quote = connection.ops.quote_name
    test = connection.settings_dict["TEST"]
    real_name = connection.settings_dict["NAME"]
    test_name = test.get("NAME")
    building = f"{template}_new"
    test["NAME"] = building
    try:
        create_test_db(verbosity, autoclobber=True, serialize=False, keepdb=False)
    finally:
        test["NAME"] = test_name
        connection.close()
        connection.close_pool()
        settings.DATABASES[connection.alias]["NAME"] = real_name
        connection.settings_dict["NAME"] = real_name
    with creation._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {quote(template)}")
        cursor.execute(f"ALTER DATABASE {quote(building)} RENAME TO {quote(template)}")
        cursor.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname NOT LIKE %s",
            [f"{base}\\_tpl\\_%", f"{template}%"],
        )
        for (outdated,) in cursor.fetchall():
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(outdated)}")
