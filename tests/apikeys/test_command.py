"""manage.py apikey create|revoke."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.apikeys import services
from apps.apikeys.models import ApiKey

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("apikey", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_create_prints_the_key_once_on_stdout(office_admin):
    out, err = run(
        "create",
        "--user",
        office_admin.email.upper(),
        "--scopes",
        "tools:execute, memory:read",
        "--expires-in",
        "7",
        "--name",
        "Build agent",
    )
    plaintext = out.strip()
    key = ApiKey.objects.get()
    assert plaintext.startswith(f"{key.prefix}.") and "\n" not in plaintext
    assert services.authenticate_api_key(plaintext) == key
    assert (key.name, key.created_by, key.scopes) == (
        "Build agent",
        office_admin,
        ["tools:execute", "memory:read"],
    )
    assert key.expires_at is not None
    assert key.prefix in err and plaintext not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--user", "ghost@kanzlei.example", "--scopes", "memory:read"],
            "Unknown user: ghost@kanzlei.example",
        ),
        (["--scopes", "memory:read,god:mode"], "Unknown scope: god:mode"),
        (["--scopes", "memory:read", "--expires-in", "0"], "between 1 and"),
    ],
)
def test_create_errors_are_one_clear_line(office_admin, args, message):
    if "--user" not in args:
        args = ["--user", office_admin.email, *args]
    with pytest.raises(CommandError, match=message):
        run("create", *args)
    assert not ApiKey.objects.exists()


def test_create_refuses_non_admins(staff):
    with pytest.raises(CommandError, match="not an administrator"):
        run("create", "--user", staff.email, "--scopes", "memory:read")


def test_revoke_by_prefix(make_key):
    key, _plaintext = make_key()
    out, _ = run("revoke", key.prefix)
    assert key.prefix in out
    key.refresh_from_db()
    assert key.revoked_at is not None and key.revoked_by is None


def test_revoke_unknown_prefix_fails(db):
    with pytest.raises(CommandError, match="Unknown API key prefix: clp_nothere1"):
        run("revoke", "clp_nothere1")


def test_errors_exit_non_zero(db):
    """Django prints a CommandError as one stderr line and exits with its returncode."""
    with pytest.raises(CommandError) as exc:
        run("revoke", "clp_nothere1")
    assert exc.value.returncode == 1
