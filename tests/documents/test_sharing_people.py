"""Sharing personal folders and documents with people and groups, from the page and the admin,
through `apps.documents.grants` (public links are test_services' share tests)."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from apps.core.errors import Forbidden, ShareLastOwner, ShareNotAllowed, ShareTargetNotFound
from apps.core.inputs import build
from apps.documents import folders, grants, services
from apps.documents.contracts import DocumentUpdate
from apps.documents.errors import DocumentNotFound
from apps.documents.visibility import document_viewers, folder_viewers
from apps.mutations.models import MutationEvent
from tests.documents.factories import DocumentFactory, FolderFactory
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def home(as_anna):
    return folders.ensure_home_folder(as_anna)


@pytest.fixture
def secret(home):
    return DocumentFactory(title="Gehaltsabrechnung", folder=home)


def test_owner_shares_a_folder_read_only_and_revokes_it(as_anna, as_ben, ben, home, secret):
    with pytest.raises(DocumentNotFound):
        services.get_document(as_ben, secret.pk)
    grants.grant_folder(as_anna, home.pk, f"user:{ben.pk}")
    assert services.get_document(as_ben, secret.pk).pk == secret.pk
    with pytest.raises(Forbidden):
        services.update_document(as_ben, secret.pk, build(DocumentUpdate, title="x"))
    assert grants.folder_shares(as_anna, home.pk)["grants"][0]["level"] == "view"

    grants.revoke_folder(as_anna, home.pk, f"user:{ben.pk}")
    with pytest.raises(DocumentNotFound):
        services.get_document(as_ben, secret.pk)
    removed = MutationEvent.objects.get(user=ben, topic="documents.document.removed")
    assert removed.ui_actions[0]["type"] == "remove" and removed.ui_actions[0]["record_id"] == str(secret.pk)
    assert MutationEvent.objects.filter(user=ben, topic="documents.folders.changed").exists()


def test_edit_level_lets_them_change(as_anna, as_ben, ben, home, secret):
    grants.grant_folder(as_anna, home.pk, f"user:{ben.pk}", "edit")
    services.update_document(as_ben, secret.pk, build(DocumentUpdate, title="Neu"))
    grants.grant_folder(as_anna, home.pk, f"user:{ben.pk}", "view")  # a downgrade takes rights back
    with pytest.raises(Forbidden):
        services.update_document(as_ben, secret.pk, build(DocumentUpdate, title="Nochmal"))


def test_one_document_with_a_group(as_anna, secret):
    group = Group.objects.create(name="Lohn")
    member = UserFactory()
    member.groups.add(group)
    grants.grant_document(as_anna, secret.pk, f"group:{group.pk}")
    assert member.pk in document_viewers(secret)
    assert MutationEvent.objects.filter(user=member, topic="documents.document.updated").exists()
    grants.revoke_document(as_anna, secret.pk, f"group:{group.pk}")
    assert member.pk not in document_viewers(secret)


def test_non_owner_and_shared_folders_are_refused(as_anna, as_ben, ben, home, secret):
    grants.grant_folder(as_anna, home.pk, f"user:{ben.pk}", "edit")
    with pytest.raises(ShareNotAllowed):  # even with edit rights: the owner decides who sees
        grants.grant_document(as_ben, secret.pk, f"user:{UserFactory().pk}")
    office = FolderFactory(name="Kanzlei")
    with pytest.raises(ShareNotAllowed):
        grants.grant_folder(as_anna, office.pk, f"user:{ben.pk}")


def test_bad_targets_grant_nothing(as_anna, home):
    inactive = UserFactory(is_active=False)
    for target in (f"user:{inactive.pk}", "user:0", "group:424242", "jemand"):
        with pytest.raises(ShareTargetNotFound):
            grants.grant_folder(as_anna, home.pk, target)
    assert folder_viewers(home) == {home.owner_id}


def test_owner_keeps_access(as_anna, anna, as_boss, home):
    with pytest.raises(ShareLastOwner):
        grants.revoke_folder(as_anna, home.pk, f"user:{anna.pk}")
    with pytest.raises(ShareLastOwner):
        grants.revoke_folder(as_boss, home.pk, f"user:{anna.pk}", as_admin=True)


def test_page_endpoint(client, anna, ben, home):
    client.force_login(anna)
    url = reverse("documents:share-folder", args=[home.pk])
    answer = client.post(url, {"action": "grant", "target": f"user:{ben.pk}", "level": "edit"}).json()
    assert answer["grants"][0]["level"] == "edit"
    assert {level["key"] for level in answer["levels"]} == {"view", "edit"}
    bad = client.post(url, {"action": "grant", "target": f"user:{ben.pk}", "level": "root"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_input"
    client.force_login(ben)
    refused = client.post(url, {"action": "revoke", "target": f"user:{ben.pk}"})
    assert refused.status_code == 403 and refused.json()["code"] == "share_not_allowed"


def test_admin_share_page_goes_through_the_service(client, boss, ben, home, secret):
    client.force_login(boss)
    url = reverse("admin:documents_folder_share", args=[home.pk])
    assert client.get(url).status_code == 200
    client.post(url, {"action": "grant", "target": f"user:{ben.pk}"})
    assert ben.pk in folder_viewers(home)
    client.post(url, {"action": "revoke", "target": f"user:{ben.pk}"})
    assert ben.pk not in folder_viewers(home)
    assert MutationEvent.objects.filter(user=ben, topic="documents.document.removed").exists()
    client.force_login(ben)
    assert client.get(reverse("documents:detail", args=[secret.pk])).status_code == 404
