"""`manage.py restore ARCHIVE`: a backup into an empty instance (see apps/ops/backup.py)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.ops import backup
from apps.ops.management.commands.backup import _size


class Command(BaseCommand):
    help = (
        "Restore a backup written by `manage.py backup` into this instance (the database of "
        "DATABASE_URL or the embedded one, and MEDIA_ROOT). Stop web, worker and beat first. "
        "Everything is checked before anything changes: the manifest's format version, that this "
        "installation knows every migration of the backup, and every member's checksum; the "
        "database is restored in one transaction, and the files replace MEDIA_ROOT only after it "
        "committed. The target must be empty (a new database, no files) unless --force is given. "
        "Run `manage.py migrate` afterwards when this installation is newer than the backup."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", type=Path, help="The backup archive (.tar).")
        parser.add_argument(
            "--force",
            action="store_true",
            help="Replace a non-empty instance: its database is dropped; its files are moved aside "
            "to MEDIA_ROOT.before-restore-<time>.",
        )
        parser.add_argument(
            "--check", action="store_true", help="Only verify the archive (manifest, versions, checksums)."
        )

    def handle(self, *args, **options) -> None:
        try:
            if options["check"]:
                manifest = backup.verify_backup(options["archive"])
                self.stdout.write(
                    f"{options['archive']} is a complete Clapilot backup of {manifest['created_at']} "
                    f"(Clapilot {manifest['clapilot_version']}, {len(manifest['members']) - 1} files)."
                )
                return
            result = backup.restore_backup(options["archive"], force=options["force"])
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Restored the backup of {result.created_at}: database {_size(result.database_bytes)}, "
            f"{result.files} files {_size(result.file_bytes)}, in {result.seconds:.1f}s."
        )
        if result.previous_media is not None:
            self.stdout.write(f"The files that were in MEDIA_ROOT before are in {result.previous_media}.")
