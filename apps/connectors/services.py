"""The only writer of connector configurations (the admin calls these), and the admin's live
look-ups: test a connection, list the tables at the source, the extensions under a root."""

from __future__ import annotations

import os
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.connectors import database
from apps.connectors.errors import ConnectorConfigInvalid, ConnectorUnreachable
from apps.connectors.models import Connector
from apps.core.errors import Forbidden

DATABASE_KINDS = {Connector.Kind.POSTGRES, Connector.Kind.MYSQL, Connector.Kind.SQLITE}


def _require_admin(principal: Principal) -> None:
    user = principal.user
    if user is None or not (user.is_staff or user.is_superuser):
        raise Forbidden(_("Only administrators configure connectors."))


def _strings(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConnectorConfigInvalid.field(field, _("Give a list of names."))
    return sorted({v.strip() for v in value if v.strip()})


def check(connector: Connector) -> None:
    if connector.tool == Connector.Tool.DATABASE:
        if connector.kind not in DATABASE_KINDS:
            raise ConnectorConfigInvalid.field(
                "kind", _("A database connector is PostgreSQL, MariaDB/MySQL or SQLite.")
            )
        if connector.kind == Connector.Kind.SQLITE and not os.path.isabs(connector.path or ""):
            raise ConnectorConfigInvalid.field("path", _("Give the absolute path of the SQLite file."))
        if connector.kind != Connector.Kind.SQLITE and not connector.database:
            raise ConnectorConfigInvalid.field("database", _("Name the database."))
    else:
        if connector.kind != Connector.Kind.FILES:
            raise ConnectorConfigInvalid.field("kind", _("A file connector's kind is “Folder”."))
        if not os.path.isabs(connector.path or "") or "\x00" in connector.path:
            raise ConnectorConfigInvalid.field("path", _("Give the absolute path of the root folder."))
    connector.allowed_tables = _strings(connector.allowed_tables, "allowed_tables")
    connector.allowed_extensions = _strings(connector.allowed_extensions, "allowed_extensions")


def save_connector(principal: Principal, connector: Connector, *, password: str | None = None) -> Connector:
    """Create or change a configuration; `password` None keeps the stored one."""
    _require_admin(principal)
    if password is not None:
        connector.password = password
    elif connector.pk:
        connector.password = Connector.objects.get(pk=connector.pk).password
    check(connector)
    with transaction.atomic():
        connector.save()
    return connector


def delete_connector(principal: Principal, connector: Connector) -> None:
    _require_admin(principal)
    with transaction.atomic():
        connector.delete()


def test_connection(principal: Principal, connector: Connector) -> str:
    """A short line for the admin: reachable (and what is there), or connector_unreachable."""
    _require_admin(principal)
    if connector.tool == Connector.Tool.FILERW:
        if not os.path.isdir(connector.path or ""):
            raise ConnectorUnreachable(
                _("The root folder of “%(name)s” does not exist.") % {"name": connector.name}
            )
        return _("The folder is reachable.")
    database.ping(connector)
    return _("The database is reachable.")


def source_tables(connector: Connector) -> list[str]:
    """The tables at the source, for the admin's picker (the admin reads these, never the model)."""
    with database.connect(connector, read_only=True) as conn:
        cur = conn.cursor()
        if connector.kind == Connector.Kind.SQLITE:
            cur.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")
        elif connector.kind == Connector.Kind.POSTGRES:
            cur.execute(
                "SELECT CASE WHEN table_schema = 'public' THEN table_name ELSE table_schema || '.' || table_name END "
                "FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') "
                "ORDER BY 1"
            )
        else:
            cur.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1"
            )
        return [str(r[0]) for r in cur.fetchall()][:500]


def source_extensions(connector: Connector) -> list[str]:
    """The file extensions under a root (first 5,000 entries), for the admin's picker."""
    found: set[str] = set()
    seen = 0
    for _dir, _dirs, names in os.walk(connector.path or "", followlinks=False):
        for name in names:
            ext = os.path.splitext(name)[1].lower()
            if ext:
                found.add(ext)
            seen += 1
            if seen > 5000:
                return sorted(found)
    return sorted(found)
