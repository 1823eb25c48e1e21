"""`manage.py backup`: the database and the uploaded files in one archive (see apps/ops/backup.py)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.ops import backup


class Command(BaseCommand):
    help = (
        "Write a backup of this instance: a consistent dump of the database (one snapshot, pg_dump) "
        "and every uploaded file (MEDIA_ROOT), in one tar archive with a manifest (format version, "
        "time, Clapilot version, applied migrations, a SHA-256 per member). Queued jobs, the cache and "
        "live-event buffers are left out. The archive goes to var/backups/ unless a path is given; "
        "restore it with `manage.py restore ARCHIVE`. It holds all client data: store it encrypted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "output",
            nargs="?",
            type=Path,
            help="Archive to write (default: var/backups/clapilot-backup-<UTC time>.tar). Must not exist.",
        )
        parser.add_argument(
            "--dir",
            type=Path,
            default=None,
            help="Directory for the default file name instead of var/backups/.",
        )

    def handle(self, *args, **options) -> None:
        path = options["output"] or backup.default_backup_path(options["dir"])
        try:
            result = backup.create_backup(path)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from None
        for name in result.missing_files:
            self.stderr.write(
                f"Warning: {name} is referenced by the database but was deleted while the backup ran."
            )
        self.stdout.write(
            f"Backup written to {result.path} ({_size(result.size)}: database {_size(result.database_bytes)}, "
            f"{result.files} files {_size(result.file_bytes)}) in {result.seconds:.1f}s."
        )


def _size(count: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count} B"  # pragma: no cover
