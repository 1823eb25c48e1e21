"""ServiceAdmin: the admin saves and deletes through the domain service, and a refusal is an
error on the page, never Django's "changed successfully" (TaskStatusAdmin as the example)."""

import pytest

from apps.tasks.models import Board, Task, TaskStatus

pytestmark = pytest.mark.django_db

CHANGE = "/admin/tasks/taskstatus/{}/change/"


@pytest.fixture
def admin_web(client, admin_user):
    client.force_login(admin_user)
    return client


def _form(status, **overrides):
    data = {"key": status.key, "name": status.name, "category": status.category, "sort_order": 0}
    return data | overrides


def test_a_refused_save_is_shown_on_the_form_and_nothing_changes(rf, admin_user, statuses):
    """The service refuses (here: a stand-in that always does); the admin re-renders the form with
    the refusal on its field, rolls back, and records no success."""
    from django.contrib import admin
    from django.contrib.messages.storage.fallback import FallbackStorage
    from django.contrib.sessions.backends.db import SessionStore

    from apps.accounts.middleware import attach_principal
    from apps.core.errors import InvalidInput
    from apps.tasks.admin import TaskStatusAdmin

    class RefusingAdmin(TaskStatusAdmin):
        def service_save(self, request, obj, form, change):
            TaskStatus.objects.filter(pk=obj.pk).update(name="halb geschrieben")  # rolled back
            raise InvalidInput.field("name", "Dieser Name ist nicht erlaubt.")

    erledigt = statuses["erledigt"]
    request = rf.post(CHANGE.format(erledigt.pk), _form(erledigt, name="Fertig"))
    request.user, request.session = admin_user, SessionStore()
    request._dont_enforce_csrf_checks = True
    request._messages = FallbackStorage(request)
    attach_principal(request)
    response = RefusingAdmin(TaskStatus, admin.site).changeform_view(request, str(erledigt.pk))
    assert response.status_code == 200  # the form again, not the redirect of a success
    page = response.rendered_content
    assert "Dieser Name ist nicht erlaubt." in page and "errorlist" in page
    assert not list(request._messages)
    erledigt.refresh_from_db()
    assert erledigt.name == "Erledigt"


def test_an_accepted_save_goes_through_the_service(admin_web, statuses):
    offen = statuses["offen"]
    response = admin_web.post(CHANGE.format(offen.pk), _form(offen, name="Neu"))
    assert response.status_code == 302
    offen.refresh_from_db()
    assert offen.name == "Neu"


def test_a_refused_delete_leaves_the_row_and_claims_no_success(admin_web, statuses):
    board = Board.objects.create(name="Kanzlei")
    Task.objects.create(title="offen", board=board, status=statuses["offen"])
    url = f"/admin/tasks/taskstatus/{statuses['offen'].pk}/delete/"
    response = admin_web.post(url, {"post": "yes"}, follow=True)
    messages = [str(m) for m in response.context["messages"]]
    assert not any("erfolgreich" in m or "successfully" in m for m in messages)
    assert TaskStatus.objects.filter(pk=statuses["offen"].pk).exists()


def test_a_board_renamed_in_the_admin_goes_through_the_service(admin_web):
    """The board list of open pages reloads (the service's event), and the admin offers no add:
    boards are created on the task pages."""
    from apps.mutations.models import MutationEvent

    board = Board.objects.create(name="Kanzlei")
    url = f"/admin/tasks/board/{board.pk}/change/"
    response = admin_web.post(url, {"name": "Team Nord", "sort_order": 3})
    assert response.status_code == 302
    board.refresh_from_db()
    assert (board.name, board.sort_order) == ("Team Nord", 3)
    assert MutationEvent.objects.filter(topic="aufgaben.boards.changed").exists()
    assert admin_web.get("/admin/tasks/board/add/").status_code == 403
    blank = admin_web.post(url, {"name": "   ", "sort_order": 3})
    assert blank.status_code == 200  # the refusal on the form
    board.refresh_from_db()
    assert board.name == "Team Nord"
