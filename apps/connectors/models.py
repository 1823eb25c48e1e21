"""Connector configurations: one row per named configuration of a tool for one agent.

A configuration belongs to exactly one agent (the main copilot: `specialist_id` None, or one
specialist) and is never shared implicitly with another. Which people's runs may use it is a
django-guardian object permission (`use_connector`) on the row, for users or groups. The
password is encrypted at rest (`apps.core.crypto`) and never leaves this module's services.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.crypto import EncryptedTextField
from apps.core.models import CreatedAt, UpdatedAt


class Connector(CreatedAt, UpdatedAt):
    class Tool(models.TextChoices):
        DATABASE = "database", _("Database")
        FILERW = "filerw", _("Files (FileRW)")

    class Kind(models.TextChoices):
        POSTGRES = "postgres", "PostgreSQL"
        MYSQL = "mysql", "MariaDB / MySQL"
        SQLITE = "sqlite", "SQLite"
        FILES = "files", _("Folder")

    tool = models.CharField(_("tool"), max_length=20, choices=Tool.choices)
    name = models.CharField(
        _("name"), max_length=80, help_text=_("What the copilot calls it, e.g. “Zeiterfassung”.")
    )
    specialist_id = models.PositiveIntegerField(
        _("specialist"), null=True, blank=True, help_text=_("Empty: the main copilot.")
    )
    enabled = models.BooleanField(_("enabled"), default=True)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    # Database: server connection (PostgreSQL, MariaDB/MySQL) or the SQLite file (`path`).
    host = models.CharField(_("host"), max_length=255, blank=True)
    port = models.PositiveIntegerField(_("port"), null=True, blank=True)
    database = models.CharField(_("database"), max_length=255, blank=True)
    username = models.CharField(_("user name"), max_length=255, blank=True)
    password = EncryptedTextField(_("password"), blank=True)
    allowed_tables = models.JSONField(_("allowed tables"), default=list, blank=True)
    max_rows = models.PositiveIntegerField(_("maximum rows"), default=200)
    max_bytes = models.PositiveIntegerField(_("maximum result bytes"), default=200_000)
    timeout_seconds = models.PositiveIntegerField(_("statement timeout (seconds)"), default=10)
    # SQLite file, or the FileRW root folder.
    path = models.CharField(_("path"), max_length=1000, blank=True)
    allow_write = models.BooleanField(_("allow writing"), default=False)
    allowed_extensions = models.JSONField(_("allowed extensions"), default=list, blank=True)

    class Meta:
        verbose_name = _("connector")
        verbose_name_plural = _("connectors")
        ordering = ["tool", "name", "id"]
        permissions = [("use_connector", _("Can use the connector in the copilot's runs"))]
        constraints = [
            models.UniqueConstraint(
                fields=["tool", "specialist_id", "name"],
                name="connectors_one_name_per_agent_tool",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_tool_display()}: {self.name}"
