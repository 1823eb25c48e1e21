"""One admin concept: the role decides admin access everywhere. A person with the role
"Administrator" and no other flag uses the Django admin and the Kanzlei settings; a staff member
does not, whatever flag was set on their row."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_admin_role_alone_opens_the_admin_and_the_office_settings(client):
    chefin = UserFactory(email="chefin@kanzlei.example", role="admin")
    client.force_login(chefin)
    assert client.get("/admin/").status_code == 200
    users = client.get("/admin/accounts/user/")
    assert users.status_code == 200 and "chefin@kanzlei.example" in users.content.decode()
    assert client.get("/admin/core/instancesetting/").status_code == 200
    assert client.get("/einstellungen/kanzlei/").status_code == 200


def test_a_staff_role_gets_no_admin_even_with_the_superuser_flag(client):
    member = UserFactory(email="tom@kanzlei.example", role="staff", is_superuser=True)
    member.refresh_from_db()
    assert member.is_superuser is False
    client.force_login(member)
    assert client.get("/admin/").status_code == 302  # to the admin login: no access
    assert client.get("/admin/accounts/user/").status_code == 302
    assert client.get("/einstellungen/kanzlei/").status_code == 403


def test_changing_the_role_changes_the_access(client):
    person = UserFactory(email="ben@kanzlei.example", role="staff")
    person.role = "admin"
    person.save(update_fields=["role"])
    person.refresh_from_db()
    assert person.is_superuser and person.has_perm("accounts.change_user")
    person.role = "staff"
    person.save()
    assert not get_user_model().objects.get(pk=person.pk).is_superuser
