"""Sharing boards from the page and the admin: owner only, through the service, with live events
for those who gain and those who lose sight of the board."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from apps.core.errors import ShareLastOwner, ShareNotAllowed, ShareTargetNotFound
from apps.mutations.models import MutationEvent
from apps.tasks import services, sharing
from apps.tasks.errors import BoardNotFound
from apps.tasks.models import Board
from apps.tasks.visibility import viewers
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def restricted(anna):
    return Board.objects.create(name="Mandat Huber", visibility=Board.Visibility.RESTRICTED, owner=anna)


def events(user, topic):
    return list(MutationEvent.objects.filter(user=user, topic=topic))


def test_owner_shares_and_revokes_with_live_events(as_anna, as_ben, ben, restricted, make_task):
    task = make_task(board=restricted)
    sharing.grant_board(as_anna, restricted.pk, f"user:{ben.pk}")
    assert services.get_board(as_ben, restricted.pk) == restricted
    (shared,) = events(ben, "aufgaben.board.shared")
    assert shared.ui_actions[0]["type"] == "upsert"
    assert shared.ui_actions[0]["record"]["name"] == "Mandat Huber"

    sharing.revoke_board(as_anna, restricted.pk, f"user:{ben.pk}")
    with pytest.raises(BoardNotFound):
        services.get_board(as_ben, restricted.pk)
    (gone,) = events(ben, "aufgaben.board.unshared")
    assert gone.ui_actions == [
        {
            "type": "remove",
            "list": "boards",
            "record_id": f"board-{restricted.pk}",
            "announce_key": "aufgaben.board.unshared",
        }
    ]
    (tasks_gone,) = events(ben, "aufgaben.task.removed")
    assert tasks_gone.ui_actions == [{"type": "remove", "list": "tasks", "record_id": str(task.pk)}]


def test_sharing_a_private_board_makes_it_restricted(as_anna, ben, private_board):
    sharing.grant_board(as_anna, private_board.pk, f"user:{ben.pk}")
    private_board.refresh_from_db()
    assert private_board.visibility == Board.Visibility.RESTRICTED
    assert viewers(private_board) == {private_board.owner_id, ben.pk}


def test_group_share_reaches_its_members(as_anna, restricted):
    group = Group.objects.create(name="Lohnbuchhaltung")
    member = UserFactory()
    member.groups.add(group)
    sharing.grant_board(as_anna, restricted.pk, f"group:{group.pk}")
    assert member.pk in viewers(restricted)
    assert events(member, "aufgaben.board.shared")
    shares = sharing.board_shares(as_anna, restricted.pk)
    assert [g["key"] for g in shares["grants"]] == [f"group:{group.pk}"]


def test_non_owner_cannot_share(as_anna, as_ben, ben, restricted):
    sharing.grant_board(as_anna, restricted.pk, f"user:{ben.pk}")
    carla = UserFactory()
    with pytest.raises(ShareNotAllowed):
        sharing.grant_board(as_ben, restricted.pk, f"user:{carla.pk}")
    with pytest.raises(ShareNotAllowed):
        sharing.revoke_board(as_ben, restricted.pk, f"user:{ben.pk}")
    assert carla.pk not in viewers(restricted)


def test_a_stranger_gets_board_not_found(as_ben, anna, restricted):
    with pytest.raises(BoardNotFound):
        sharing.grant_board(as_ben, restricted.pk, f"user:{anna.pk}")


@pytest.mark.parametrize("target", ["user:999999", "group:999999", "nobody", "", "user:abc"])
def test_unknown_target_grants_nothing(as_anna, restricted, target):
    with pytest.raises(ShareTargetNotFound) as caught:
        sharing.grant_board(as_anna, restricted.pk, target)
    assert caught.value.code == "share_target_not_found"
    assert viewers(restricted) == {restricted.owner_id}


def test_inactive_person_gets_nothing(as_anna, restricted):
    gone = UserFactory(is_active=False)
    with pytest.raises(ShareTargetNotFound):
        sharing.grant_board(as_anna, restricted.pk, f"user:{gone.pk}")
    assert viewers(restricted) == {restricted.owner_id}
    assert not MutationEvent.objects.filter(user=gone).exists()


def test_owner_access_cannot_be_revoked(as_anna, anna, restricted, boss, as_boss):
    with pytest.raises(ShareLastOwner) as caught:
        sharing.revoke_board(as_anna, restricted.pk, f"user:{anna.pk}")
    assert caught.value.code == "share_last_owner"
    with pytest.raises(ShareLastOwner):
        sharing.revoke_board(as_boss, restricted.pk, f"user:{anna.pk}", as_admin=True)
    assert anna.pk in viewers(restricted)


def test_shared_board_needs_no_share(as_anna, ben, shared_board):
    with pytest.raises(ShareNotAllowed):  # nobody owns an office-wide board
        sharing.grant_board(as_anna, shared_board.pk, f"user:{ben.pk}")


# --- the page endpoint ------------------------------------------------------------------------
def test_share_endpoint_grants_and_answers_codes(client, anna, ben, restricted):
    client.force_login(anna)
    url = reverse("tasks:share-board", args=[restricted.pk])
    assert client.get(url).json()["grants"] == []
    answer = client.post(url, {"action": "grant", "target": f"user:{ben.pk}"}).json()
    assert [g["key"] for g in answer["grants"]] == [f"user:{ben.pk}"]
    refused = client.post(url, {"action": "revoke", "target": f"user:{anna.pk}"})
    assert refused.status_code == 409
    assert refused.json()["code"] == "share_last_owner"
    inactive = UserFactory(is_active=False)
    refused = client.post(url, {"action": "grant", "target": f"user:{inactive.pk}"})
    assert refused.status_code == 400 and refused.json()["code"] == "share_target_not_found"


def test_share_endpoint_refuses_a_non_owner(client, as_anna, ben, restricted):
    sharing.grant_board(as_anna, restricted.pk, f"user:{ben.pk}")
    client.force_login(ben)
    url = reverse("tasks:share-board", args=[restricted.pk])
    refused = client.post(url, {"action": "grant", "target": f"user:{UserFactory().pk}"})
    assert refused.status_code == 403 and refused.json()["code"] == "share_not_allowed"


def test_who_lost_access_gets_404_on_the_next_request(client, as_anna, ben, restricted, make_task):
    task = make_task(board=restricted)
    sharing.grant_board(as_anna, restricted.pk, f"user:{ben.pk}")
    client.force_login(ben)
    assert client.get(reverse("tasks:detail", args=[task.pk])).status_code == 200
    sharing.revoke_board(as_anna, restricted.pk, f"user:{ben.pk}")
    assert client.get(reverse("tasks:detail", args=[task.pk])).status_code == 404
    assert client.get(reverse("tasks:share-board", args=[restricted.pk])).status_code == 404


def test_search_finds_active_people_and_groups(client, anna, ben):
    Group.objects.create(name="Benutzer Lohn")
    UserFactory(full_name="Bernd Inaktiv", is_active=False)
    client.force_login(anna)
    results = client.get(reverse("share-search"), {"q": "be"}).json()["results"]
    labels = [r["label"] for r in results]
    assert "Ben Braun" in labels and "Benutzer Lohn" in labels
    assert "Bernd Inaktiv" not in labels and "Anna Berger" not in labels


# --- the admin goes through the service ---------------------------------------------------------
def test_admin_share_page_grants_and_revokes_through_the_service(client, boss, ben, restricted):
    client.force_login(boss)
    url = reverse("admin:tasks_board_share", args=[restricted.pk])
    assert client.get(url).status_code == 200
    client.post(url, {"action": "grant", "target": f"user:{ben.pk}"})
    assert ben.pk in viewers(restricted)
    assert events(ben, "aufgaben.board.shared")
    client.post(url, {"action": "revoke", "target": f"user:{ben.pk}"})
    assert ben.pk not in viewers(restricted)
    assert events(ben, "aufgaben.board.unshared")


def test_admin_revoking_the_owner_shows_the_refusal(client, boss, anna, restricted):
    client.force_login(boss)
    url = reverse("admin:tasks_board_share", args=[restricted.pk])
    response = client.post(url, {"action": "revoke", "target": f"user:{anna.pk}"}, follow=True)
    assert "keeps access" in response.content.decode() or "behält" in response.content.decode()
    assert anna.pk in viewers(restricted)


def test_the_share_list_costs_the_same_for_many_grants(as_anna, restricted, django_assert_max_num_queries):
    for _ in range(6):
        sharing.grant_board(as_anna, restricted.pk, f"user:{UserFactory().pk}")
    group = Group.objects.create(name="Alle Lohn")
    sharing.grant_board(as_anna, restricted.pk, f"group:{group.pk}")
    with django_assert_max_num_queries(6):
        shares = sharing.board_shares(as_anna, restricted.pk)
    assert len(shares["grants"]) == 7


def test_admin_change_pages_link_to_the_share_page(client, boss, restricted):
    from apps.notes.models import Note

    note = Note.objects.create(name="N", visibility="private", owner=restricted.owner)
    client.force_login(boss)
    for url in (
        reverse("admin:tasks_board_change", args=[restricted.pk]),
        reverse("admin:notes_note_change", args=[note.pk]),
    ):
        page = client.get(url)
        assert page.status_code == 200
        assert 'href="teilen/"' in page.content.decode()
