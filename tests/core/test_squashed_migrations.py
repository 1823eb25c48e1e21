"""The migration history was squashed on 2026-12-01 (one migration per app). An installation that
applied the replaced migrations upgrades without running anything, and its backups stay
restorable."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

from apps.core import checks
from apps.ops import backup


def _squashed() -> dict[tuple[str, str], list[tuple[str, str]]]:
    disk = MigrationLoader(None, ignore_no_migrations=True).disk_migrations
    return {key: list(m.replaces) for key, m in disk.items() if m.replaces}


def test_every_app_with_a_history_has_one_squashed_migration_replacing_it_from_0001():
    squashed = _squashed()
    assert len(squashed) >= 18
    for (app, name), replaces in squashed.items():
        assert replaces[0] == (app, "0001_initial"), name
        assert name == f"0001_squashed_{replaces[-1][1]}"


def test_no_migration_on_disk_reuses_a_replaced_name():
    """A new migration named like a replaced one would count as applied on every old installation."""
    disk = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    replaced = {old for olds in _squashed().values() for old in olds}
    assert not disk & replaced


@pytest.mark.django_db
def test_an_installation_that_applied_the_replaced_migrations_has_nothing_to_run():
    recorder = MigrationRecorder(connection)
    for key, replaces in _squashed().items():
        recorder.record_unapplied(*key)
        for old in replaces:
            recorder.record_applied(*old)

    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    executor.check_replacements()  # what `migrate` does first: records the squashed ones
    applied = recorder.applied_migrations()
    assert all(key in applied for key in _squashed())


@pytest.mark.django_db
def test_an_installation_part_way_through_the_replaced_migrations_is_not_silently_taken_as_done():
    recorder = MigrationRecorder(connection)
    key = next(k for k, olds in _squashed().items() if len(olds) > 2)
    first, *rest = _squashed()[key]
    for old in [key, *rest]:
        recorder.record_unapplied(*old)
    recorder.record_applied(*first)
    loader = MigrationLoader(connection, ignore_no_migrations=True)
    assert key not in loader.applied_migrations
    # Django would leave the app out of `migrate`'s plan without a word; the check refuses.
    (error,) = checks.squashed_history(databases=["default"])
    assert error.id == "clapilot.E003" and f"applied 1 of the {len(rest) + 1} migrations" in error.msg
    assert "5fd30c7" in error.hint


@pytest.mark.django_db
def test_a_complete_history_passes_the_check():
    assert checks.squashed_history(databases=["default"]) == []


def test_a_backup_taken_before_the_squash_is_known_here():
    manifest = {"migrations": {"documents": ["0001_initial", "0008_alter_document_created_by_and_more"]}}
    backup._check_migrations(manifest)  # no BackupError
    manifest["migrations"]["documents"].append("0009_from_the_future")
    with pytest.raises(backup.BackupError, match=r"does not know \(documents\.0009"):
        backup._check_migrations(manifest)
