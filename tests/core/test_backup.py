"""`manage.py backup` / `manage.py restore`: a database dump and the uploaded files in one archive,
restored into a fresh database (a `manage.py restore` process on its own DATABASE_URL and
MEDIA_ROOT) with equal rows and equal file bytes; bad archives and non-empty targets are refused
before anything changes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import uuid
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from psycopg import sql

from apps.accounts.models import User
from apps.core.inputs import build
from apps.documents import services
from apps.documents.contracts import DocumentUpload
from apps.documents.models import Document
from apps.ops import backup
from tests.inline_jobs import run_inline

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
PDF_LIKE = b"%PDF-1.4\n" + bytes(range(256)) * 64 + b"\n%%EOF\n"


def _conninfo(name: str) -> dict:
    d = connection.settings_dict
    info = {"dbname": name, "user": d["USER"], "host": d["HOST"] or "localhost"}
    if d.get("PASSWORD"):
        info["password"] = d["PASSWORD"]
    if d.get("PORT"):
        info["port"] = d["PORT"]
    return info


def _url(name: str) -> str:
    d = connection.settings_dict
    auth = quote(d["USER"]) + (f":{quote(d['PASSWORD'])}" if d.get("PASSWORD") else "")
    host = d["HOST"] or "localhost"
    if host.startswith("/"):
        return f"postgres://{auth}@/{name}?host={quote(host)}"
    return f"postgres://{auth}@{host}:{d['PORT'] or 5432}/{name}"


@pytest.fixture(scope="session")
def restore_targets():
    """The fresh databases of this run, dropped together once the tests are done: a DROP DATABASE
    waits for a checkpoint, which under the suite's load took from 5 s to a minute each time; back
    to back only the first has much to write."""
    names: list[str] = []
    yield names
    if names:
        with psycopg.connect(**_conninfo("postgres"), autocommit=True) as admin:
            for name in names:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def fresh_database(restore_targets):
    """An empty database on the same server (what a new instance starts with); dropped at the end
    of the run. Nobody uses it after its test: the connections the test left are cut."""
    name = f"{connection.settings_dict['NAME']}_restore_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(**_conninfo("postgres"), autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    restore_targets.append(name)
    yield name
    with psycopg.connect(**_conninfo("postgres"), autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [name],
        )


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


@pytest.fixture
def office(media, monkeypatch, anna, as_anna, meier):
    """Some data and one uploaded document (its extraction runs inline, not via the broker)."""
    from apps.documents import processing

    run_inline(monkeypatch, services.EXTRACT_JOB, processing.run_extraction)
    document = services.upload_document(
        as_anna,
        build(DocumentUpload),
        content=SimpleUploadedFile("bescheid.pdf", PDF_LIKE),
        filename="bescheid.pdf",
    )
    (media / "notes").mkdir(parents=True, exist_ok=True)
    (media / "notes" / "anhang.txt").write_bytes("Anhang für Frau Berger\n".encode())
    return Document.objects.get(pk=document.pk)


def _restore_process(archive: Path, database: str, media_root: Path, *extra: str, lock_timeout: str = "15"):
    env = {
        **os.environ,
        "DATABASE_URL": _url(database),
        "MEDIA_ROOT": str(media_root),
        "LOG_LEVEL": "WARNING",
        "CLAPILOT_RESTORE_LOCK_TIMEOUT": lock_timeout,
    }
    env.pop("CLAPILOT_TEST_DATABASE", None)
    return subprocess.run(
        [sys.executable, "manage.py", "restore", str(archive), *extra],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _tables(cur) -> list[str]:
    cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
    return [row[0] for row in cur.fetchall()]


def _fingerprint(conninfo: dict) -> dict[str, tuple[int, str]]:
    """Rows and an order-independent digest of their content, per table (transient ones excluded)."""
    result = {}
    with psycopg.connect(**conninfo) as conn, conn.cursor() as cur:
        for table in _tables(cur):
            if table.startswith(("kombu_", "channels_postgres_")) or table == "clapilot_cache":
                continue
            cur.execute(
                sql.SQL(
                    "SELECT count(*), coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM {} t"
                ).format(sql.Identifier(table))
            )
            result[table] = cur.fetchone()
    return result


def test_backup_restores_into_a_fresh_database_with_equal_rows_and_files(
    office, media, tmp_path, fresh_database
):
    archive = tmp_path / "backup.tar"
    out = io.StringIO()
    call_command("backup", str(archive), stdout=out)
    assert f"Backup written to {archive}" in out.getvalue() and "2 files" in out.getvalue()

    with tarfile.open(archive) as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())
    assert manifest["format"] == "clapilot-backup" and manifest["format_version"] == 1
    assert manifest["created_at"] and manifest["clapilot_version"] and "documents" in manifest["migrations"]
    assert set(manifest["members"]) == {
        "database.dump",
        f"media/{office.file.name}",
        "media/notes/anhang.txt",
    }
    assert manifest["missing_files"] == []

    restored_media = tmp_path / "restored" / "media"
    done = _restore_process(archive, fresh_database, restored_media)
    assert done.returncode == 0, done.stderr
    assert "Restored the backup" in done.stdout

    source = _fingerprint(_conninfo(connection.settings_dict["NAME"]))
    assert source["accounts_user"][0] >= 1 and source["documents_document"][0] == 1
    assert _fingerprint(_conninfo(fresh_database)) == source
    assert (restored_media / office.file.name).read_bytes() == PDF_LIKE
    assert (restored_media / "notes" / "anhang.txt").read_bytes() == (
        media / "notes" / "anhang.txt"
    ).read_bytes()
    # Sequences came along: the next row in the restored database gets a new id.
    with psycopg.connect(**_conninfo(fresh_database)) as conn:
        next_id = conn.execute("SELECT nextval(pg_get_serial_sequence('accounts_user', 'id'))").fetchone()[0]
    assert next_id > User.objects.order_by("-id").first().id
    # and the restored target is no longer empty: a second restore is refused.
    again = _restore_process(archive, fresh_database, restored_media)
    assert again.returncode != 0 and "not empty" in again.stderr and "--force" in again.stderr


def test_restore_refuses_a_non_empty_instance_without_force(office, media, tmp_path):
    archive = backup.create_backup(tmp_path / "b.tar").path
    users = User.objects.count()
    with pytest.raises(backup.BackupError, match=r"not empty: .*users.*MEDIA_ROOT.*--force"):
        backup.restore_backup(archive)
    assert User.objects.count() == users and (media / office.file.name).read_bytes() == PDF_LIKE


def _rewrite(archive: Path, target: Path, *, manifest=None, replace: dict[str, bytes] | None = None) -> Path:
    """A copy of the archive with a changed manifest or member contents (checksums untouched)."""
    with tarfile.open(archive) as src, tarfile.open(target, "w") as dst:
        for member in src:
            data = src.extractfile(member).read()
            if member.name == "manifest.json" and manifest is not None:
                data = json.dumps(manifest(json.loads(data))).encode()
            elif replace and member.name in replace:
                data = replace[member.name]
            member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    return target


def _bump(key, value):
    def change(manifest):
        manifest[key] = value
        return manifest

    return change


def _unknown_migration(manifest):
    manifest["migrations"]["documents"].append("9999_from_the_future")
    return manifest


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda a, t: t / "nope.tar", r"No backup at .*nope\.tar"),
        (
            lambda a, t: (t / "junk.tar").write_bytes(os.urandom(5000)) and t / "junk.tar",
            "not a readable Clapilot backup",
        ),
        (
            lambda a, t: (t / "cut.tar").write_bytes(a.read_bytes()[:20000]) and t / "cut.tar",
            "(damaged|incomplete|no manifest)",
        ),
        (
            lambda a, t: _rewrite(a, t / "v2.tar", manifest=_bump("format_version", 2)),
            "format version 2; .* reads version 1",
        ),
        (
            lambda a, t: _rewrite(a, t / "other.tar", manifest=_bump("format", "tarball")),
            "not a Clapilot backup",
        ),
        (
            lambda a, t: _rewrite(a, t / "newer.tar", manifest=_unknown_migration),
            r"does not know \(documents\.9999",
        ),
        (
            lambda a, t: _rewrite(a, t / "bitrot.tar", replace={"database.dump": b"PGDMP" + b"\0" * 100}),
            "damaged: the checksum of database.dump",
        ),
    ],
    ids=[
        "missing",
        "not-a-tar",
        "truncated",
        "format-version",
        "foreign-manifest",
        "newer-migrations",
        "checksum",
    ],
)
def test_bad_archives_are_refused_before_anything_changes(office, media, tmp_path, make, message):
    archive = backup.create_backup(tmp_path / "good.tar").path
    bad = make(archive, tmp_path)
    before = _fingerprint(_conninfo(connection.settings_dict["NAME"]))
    with pytest.raises(backup.BackupError, match=message):
        backup.restore_backup(bad, force=True)  # force: only the archive's own checks may stop it
    assert _fingerprint(_conninfo(connection.settings_dict["NAME"])) == before
    assert sorted(p.name for p in media.parent.iterdir() if p.name.startswith(".clapilot-restore")) == []
    assert (media / office.file.name).read_bytes() == PDF_LIKE


def test_a_failing_database_restore_rolls_back_and_leaves_the_files(office, tmp_path, fresh_database):
    """The dump is intact, but the target cannot take it (pgvector already lives in another schema,
    so the tables' vector columns fail): nothing of the restore stays, the old files stay."""
    archive = backup.create_backup(tmp_path / "b.tar").path
    with psycopg.connect(**_conninfo(fresh_database), autocommit=True) as conn:
        conn.execute("CREATE SCHEMA elsewhere; CREATE EXTENSION vector SCHEMA elsewhere")
        conn.execute("CREATE TABLE public.keep_me (id int); INSERT INTO public.keep_me VALUES (7)")
    target_media = tmp_path / "target" / "media"
    target_media.mkdir(parents=True)
    (target_media / "old.txt").write_bytes(b"old")

    done = _restore_process(archive, fresh_database, target_media, "--force")
    assert done.returncode != 0 and "rolled back" in done.stderr, done.stderr
    with psycopg.connect(**_conninfo(fresh_database)) as conn, conn.cursor() as cur:
        assert _tables(cur) == ["keep_me"]
        assert cur.execute("SELECT id FROM keep_me").fetchall() == [(7,)]
    assert sorted(p.name for p in target_media.parent.iterdir()) == ["media"]
    assert [p.name for p in target_media.iterdir()] == ["old.txt"]


def test_a_restore_while_the_target_is_in_use_fails_clearly_and_changes_nothing(
    office, tmp_path, fresh_database
):
    """A web, worker or beat still running holds locks: the restore gives up after the lock
    timeout with a hint, instead of waiting for ever, and rolls back."""
    archive = backup.create_backup(tmp_path / "b.tar").path
    with psycopg.connect(**_conninfo(fresh_database)) as busy:
        busy.execute("CREATE TABLE public.keep_me (id int)")
        busy.commit()
        busy.execute("SELECT * FROM keep_me")  # an open transaction holding a lock, like a worker
        done = _restore_process(archive, fresh_database, tmp_path / "target", "--force", lock_timeout="1")
        busy.rollback()
    assert done.returncode != 0, done.stdout
    assert "rolled back" in done.stderr and "Stop web, worker and beat first" in done.stderr, done.stderr
    with psycopg.connect(**_conninfo(fresh_database)) as conn, conn.cursor() as cur:
        assert _tables(cur) == ["keep_me"]


def test_check_verifies_without_restoring(office, tmp_path):
    archive = backup.create_backup(tmp_path / "b.tar").path
    out = io.StringIO()
    call_command("restore", str(archive), "--check", stdout=out)
    assert "is a complete Clapilot backup" in out.getvalue()
