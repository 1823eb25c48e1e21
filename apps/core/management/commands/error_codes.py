"""`manage.py error_codes [--json]`: every error code a client can receive, with its HTTP status,
owning app and meaning (the same catalog `/api/v1/error-codes` serves)."""

import json

from django.core.management.base import BaseCommand

from apps.core import errors


class Command(BaseCommand):
    help = "List every error code of the API, the pages and the tools."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="Print JSON instead of a table.")

    def handle(self, *args, **options):
        errors.load_all()
        rows = errors.catalog()
        if options["json"]:
            self.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False))
            return
        width = max(len(r["code"]) for r in rows)
        for row in rows:
            status = str(row["http_status"] or "—")
            self.stdout.write(f"{row['code']:<{width}}  {status:>3}  {row['app']:<13} {row['description']}")
