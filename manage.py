#!/usr/bin/env python
import os
import sys

# Commands that only print something about the command line itself.
NO_DATABASE = {"help", "--help", "-h", "version", "--version"}


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clapilot.settings")
    from django.conf import settings
    from django.core.management import execute_from_command_line

    from clapilot import embedded_db

    # Settings only describe the embedded PostgreSQL; a command may need it, so start (or attach to)
    # it first. A server this command started is stopped again when it ends.
    command = sys.argv[1] if len(sys.argv) > 1 else "help"
    embedded = getattr(settings, "EMBEDDED_DATABASE", False) and command not in NO_DATABASE
    if embedded:
        embedded_db.ensure_running()
    try:
        execute_from_command_line(sys.argv)
    finally:
        if embedded:
            embedded_db.stop_if_started_here()


if __name__ == "__main__":
    main()
