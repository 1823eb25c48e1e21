"""Backup and restore figures: `manage.py backup` of a throwaway database with N documents (random,
incompressible bytes) and rows, then `manage.py restore` into a fresh database and MEDIA_ROOT.

    .venv/bin/python bench/backup.py [--docs 200] [--kb 256] [--tasks 2000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import _setup
from _setup import bench_database, parse


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--kb", type=int, default=256)
    parser.add_argument("--tasks", type=int, default=2000)
    args = parse(parser, {"docs": 5, "kb": 4, "tasks": 20})
    with tempfile.TemporaryDirectory(prefix="clapilot-bench-backup-") as tmp, bench_database():
        run(args, Path(tmp))


def run(args, tmp: Path) -> None:
    import psycopg
    from django.conf import settings
    from django.core.files.base import ContentFile
    from django.db import connection
    from psycopg import sql

    from apps.documents.models import Document
    from apps.ops import backup
    from apps.tasks.models import Board, Task, TaskStatus
    from tests.factories import UserFactory

    settings.MEDIA_ROOT = str(tmp / "media")
    user = UserFactory()
    status = TaskStatus.objects.create(key="offen", name="Offen", category="open")
    board = Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    Task.objects.bulk_create(
        [Task(title=f"Aufgabe {i}", board=board, status=status, erstellt_von=user) for i in range(args.tasks)]
    )
    for i in range(args.docs):
        data = os.urandom(args.kb * 1024)
        Document.objects.create(
            title=f"Dokument {i}",
            original_filename=f"d{i}.pdf",
            file=ContentFile(data, name=f"{uuid.uuid4().hex}.pdf"),
            content_hash="0" * 64,
            mime_type="application/pdf",
            size=len(data),
            extraction_status="done",
            extracted_text=f"Bescheid {i} " * 200,
            created_by=user,
        )

    started = time.monotonic()
    result = backup.create_backup(tmp / "bench.tar")
    backup_seconds = time.monotonic() - started

    d = connection.settings_dict
    target = f"{d['NAME']}_restore"
    info = {"dbname": "postgres", "user": d["USER"], "host": d["HOST"] or "localhost"}
    if d.get("PASSWORD"):
        info["password"] = d["PASSWORD"]
    if d.get("PORT"):
        info["port"] = d["PORT"]
    with psycopg.connect(**info, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(target)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(target)))
    from tests.live import child_env, database_url

    env = child_env({"DATABASE_URL": database_url(d, target), "MEDIA_ROOT": str(tmp / "restored")})
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "manage.py", "restore", str(result.path)],
        cwd=_setup.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    restore_seconds = time.monotonic() - started
    with psycopg.connect(**info, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(target)))
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    mb = 1024 * 1024
    print(
        f"data: {args.tasks} tasks, {args.docs} documents x {args.kb} KB ({result.file_bytes / mb:.1f} MB files)"
    )
    print(
        f"backup:  {backup_seconds:.2f} s, archive {result.size / mb:.1f} MB "
        f"(database dump {result.database_bytes / mb:.2f} MB, {result.files} files)"
    )
    print(
        f"restore: {restore_seconds:.2f} s into a fresh database (process start included): {done.stdout.strip()}"
    )


if __name__ == "__main__":
    main()
