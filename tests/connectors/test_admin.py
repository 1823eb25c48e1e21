"""The connectors in the admin: the password is write-only, saves go through the service,
"test connection" answers reachable or unreachable, the source's tables are listed."""

from __future__ import annotations

from typing import Any

import pytest

from apps.connectors.models import Connector
from tests.connectors.conftest import make_connector

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_web(client: Any, admin_user: Any) -> Any:
    client.force_login(admin_user)
    return client


def test_change_view_never_shows_the_password(admin_web: Any, pg_database: str) -> None:
    c = make_connector("postgres", pg_database, password="s3cr3t-pw")
    page = admin_web.get(f"/admin/connectors/connector/{c.pk}/change/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "s3cr3t-pw" not in html
    assert "zeiten" in html and "geheim" in html  # the admin's picker lists the source's tables
    assert "Verbindung testen" in html or "Test connection" in html


def test_save_keeps_the_password_when_left_empty(admin_web: Any, pg_database: str) -> None:
    c = make_connector("postgres", pg_database, password="s3cr3t-pw")
    data = {
        "tool": "database",
        "name": "Zeiterfassung neu",
        "enabled": "on",
        "kind": "postgres",
        "host": "127.0.0.1",
        "port": "5432",
        "database": pg_database,
        "username": "postgres",
        "allowed_tables": '["zeiten"]',
        "max_rows": "100",
        "max_bytes": "200000",
        "timeout_seconds": "10",
        "path": "",
        "allowed_extensions": "[]",
        "new_password": "",
    }
    response = admin_web.post(f"/admin/connectors/connector/{c.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    c.refresh_from_db()
    assert c.name == "Zeiterfassung neu" and c.password == "s3cr3t-pw"
    data["new_password"] = "neu-pw"
    admin_web.post(f"/admin/connectors/connector/{c.pk}/change/", data)
    c.refresh_from_db()
    assert c.password == "neu-pw"


def test_invalid_configuration_is_refused_on_the_form(admin_web: Any) -> None:
    data = {
        "tool": "filerw",
        "name": "Ablage",
        "kind": "files",
        "path": "relative/path",
        "allowed_tables": "[]",
        "allowed_extensions": '[".txt"]',
        "max_rows": "100",
        "max_bytes": "200000",
        "timeout_seconds": "10",
    }
    response = admin_web.post("/admin/connectors/connector/add/", data)
    assert response.status_code == 200
    assert not Connector.objects.exists()


def test_test_connection(admin_web: Any, pg_database: str) -> None:
    good = make_connector("postgres", pg_database)
    bad = make_connector("postgres", "nope", name="Kaputt", port=1, password="s3cr3t-pw")
    r = admin_web.post(f"/admin/connectors/connector/{good.pk}/test/", follow=True)
    assert "erreichbar" in r.content.decode() or "reachable" in r.content.decode()
    r = admin_web.post(f"/admin/connectors/connector/{bad.pk}/test/", follow=True)
    html = r.content.decode()
    assert "s3cr3t-pw" not in html
    assert "Kaputt" in html
