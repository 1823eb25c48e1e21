"""Per-person sharing of private notes and note folders: owner only, through the service, with
upserts for those who gain a note and removals for those who lose it."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from apps.core.errors import ShareLastOwner, ShareNotAllowed, ShareTargetNotFound
from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from apps.notes import services, sharing
from apps.notes.contracts import NoteFilter, NoteUpdate
from apps.notes.errors import NoteNotFound
from apps.notes.visibility import viewers
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def note_events(user):
    return list(MutationEvent.objects.filter(user=user, topic="notizen.note.updated").order_by("id"))


def test_owner_shares_a_note_and_revokes_it(as_anna, as_ben, ben, private_note):
    with pytest.raises(NoteNotFound):
        services.get_note(as_ben, private_note.pk)
    sharing.grant_note(as_anna, private_note.pk, f"user:{ben.pk}")
    assert services.get_note(as_ben, private_note.pk) == private_note
    assert [p.pk for p in services.note_pages(private_note)]  # pages come with the note
    (gained,) = note_events(ben)
    assert gained.ui_actions[0]["type"] == "upsert"
    assert gained.ui_actions[0]["record"]["name"] == "Annas Geheimnis"

    sharing.revoke_note(as_anna, private_note.pk, f"user:{ben.pk}")
    with pytest.raises(NoteNotFound):
        services.get_note(as_ben, private_note.pk)
    lost = note_events(ben)[-1]
    assert lost.ui_actions == [
        {
            "type": "remove",
            "list": "notes",
            "record_id": str(private_note.pk),
            "announce_key": "notizen.note.removed",
        }
    ]


def test_a_shared_folder_shows_its_notes(as_anna, as_ben, ben, private_folder, make_note):
    inside = make_note("Im Ordner", visibility="private", owner=private_folder.owner, folder=private_folder)
    sharing.grant_folder(as_anna, private_folder.pk, f"user:{ben.pk}")
    assert private_folder in services.list_folders(as_ben)
    assert services.get_note(as_ben, inside.pk) == inside
    assert ben.pk in viewers(inside)
    sharing.revoke_folder(as_anna, private_folder.pk, f"user:{ben.pk}")
    with pytest.raises(NoteNotFound):
        services.get_note(as_ben, inside.pk)
    assert MutationEvent.objects.filter(user=ben, topic="notizen.folder.updated").count() == 2
    assert note_events(ben)[-1].ui_actions[0]["type"] == "remove"


def test_group_share(as_anna, private_note):
    group = Group.objects.create(name="Sekretariat")
    member = UserFactory()
    member.groups.add(group)
    sharing.grant_note(as_anna, private_note.pk, f"group:{group.pk}")
    assert member.pk in viewers(private_note)


def test_non_owner_cannot_share(as_anna, as_ben, ben, private_note):
    sharing.grant_note(as_anna, private_note.pk, f"user:{ben.pk}")
    with pytest.raises(ShareNotAllowed):
        sharing.grant_note(as_ben, private_note.pk, f"user:{UserFactory().pk}")
    with pytest.raises(ShareNotAllowed):
        sharing.revoke_note(as_ben, private_note.pk, f"user:{ben.pk}")


def test_inactive_or_unknown_target_grants_nothing(as_anna, private_note):
    inactive = UserFactory(is_active=False)
    for target in (f"user:{inactive.pk}", "user:999999", "group:999999", "x"):
        with pytest.raises(ShareTargetNotFound):
            sharing.grant_note(as_anna, private_note.pk, target)
    assert viewers(private_note) == {private_note.owner_id}


def test_owner_keeps_access(as_anna, anna, private_note, as_boss):
    with pytest.raises(ShareLastOwner):
        sharing.revoke_note(as_anna, private_note.pk, f"user:{anna.pk}")
    with pytest.raises(ShareLastOwner):
        sharing.revoke_note(as_boss, private_note.pk, f"user:{anna.pk}", as_admin=True)


def test_admin_may_revoke_but_never_grant(as_anna, as_boss, boss, ben, private_note):
    with pytest.raises(ShareNotAllowed):
        sharing.grant_note(as_boss, private_note.pk, f"user:{boss.pk}", as_admin=True)
    sharing.grant_note(as_anna, private_note.pk, f"user:{ben.pk}")
    sharing.revoke_note(as_boss, private_note.pk, f"user:{ben.pk}", as_admin=True)
    assert viewers(private_note) == {private_note.owner_id}


def test_shared_note_needs_no_share(ben, make_note, anna):
    office = make_note("Für alle", visibility="shared", owner=anna)
    with pytest.raises(ShareNotAllowed):  # nobody owns an office note's audience
        sharing.grant_note(as_ben_principal(ben), office.pk, f"user:{anna.pk}")


def as_ben_principal(ben):
    from apps.accounts.principal import Principal

    return Principal.for_user(ben)


def test_page_endpoint_and_404_after_revoke(client, anna, ben, as_anna, private_note):
    client.force_login(anna)
    url = reverse("notes:share-note", args=[private_note.pk])
    answer = client.post(url, {"action": "grant", "target": f"user:{ben.pk}"}).json()
    assert [g["key"] for g in answer["grants"]] == [f"user:{ben.pk}"]
    refused = client.post(url, {"action": "revoke", "target": f"user:{anna.pk}"})
    assert refused.status_code == 409 and refused.json()["code"] == "share_last_owner"
    client.force_login(ben)
    assert client.get(reverse("notes:note", args=[private_note.pk])).status_code == 200
    sharing.revoke_note(as_anna, private_note.pk, f"user:{ben.pk}")
    assert client.get(reverse("notes:note", args=[private_note.pk])).status_code == 404


def test_admin_share_page_goes_through_the_service(client, boss, ben, as_anna, private_note):
    sharing.grant_note(as_anna, private_note.pk, f"user:{ben.pk}")
    client.force_login(boss)
    url = reverse("admin:notes_note_share", args=[private_note.pk])
    assert "Ben Braun" in client.get(url).content.decode()
    client.post(url, {"action": "revoke", "target": f"user:{ben.pk}"})
    assert ben.pk not in viewers(private_note)
    assert note_events(ben)[-1].ui_actions[0]["type"] == "remove"
    client.post(url, {"action": "grant", "target": f"user:{boss.pk}"})
    assert boss.pk not in viewers(private_note)


def test_list_queries_stay_constant_with_shares(
    as_anna, as_ben, ben, anna, make_note, django_assert_max_num_queries
):
    for i in range(5):
        note = make_note(f"Geteilt {i}", visibility="private", owner=anna)
        sharing.grant_note(as_anna, note.pk, f"user:{ben.pk}")
    with django_assert_max_num_queries(3):
        notes, total = services.list_notes(as_ben, NoteFilter())
    assert total == 5 and len(notes) == 5


def test_who_it_is_shared_with_edits_but_never_deletes_or_moves(
    as_anna, as_ben, ben, private_note, private_folder
):
    from apps.core.errors import Forbidden

    sharing.grant_note(as_anna, private_note.pk, f"user:{ben.pk}")
    services.update_note(as_ben, private_note.pk, build(NoteUpdate, name="Umbenannt"))
    with pytest.raises(Forbidden):
        services.delete_note(as_ben, private_note.pk)
    with pytest.raises(Forbidden):
        services.update_note(as_ben, private_note.pk, build(NoteUpdate, folder_id=private_folder.pk))
    sharing.grant_folder(as_anna, private_folder.pk, f"user:{ben.pk}")
    with pytest.raises(Forbidden):
        services.delete_folder(as_ben, private_folder.pk)
