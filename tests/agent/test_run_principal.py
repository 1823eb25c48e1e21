"""Who a run acts as (issue 23, item 1): the runtime builds the tool context from the run — its
principal, allowlist, specialist, presence and kind — never from the chat's user; a run started
without a person's chat lives in a conversation of the service principal; a child run inherits
its parent's principal and never more."""

from __future__ import annotations

import json

import pytest

from apps.accounts.principal import Principal
from apps.agent import acting, headless, services
from apps.agent.errors import ChildRunRefused, InvalidChatInput
from apps.agent.models import ChatSession, Message, Run
from apps.agent.runtime import run_agent
from apps.tasks.models import Board, Task
from tests.agent.helpers import say
from tests.factories import ServicePrincipalFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def robot(db):
    return ServicePrincipalFactory(name="Morgen-Briefing")


@pytest.fixture
def boards(user, statuses):
    shared = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    private = Board.objects.create(name="Privat", visibility=Board.Visibility.PRIVATE, owner=user)
    Task.objects.create(board=shared, status=statuses["offen"], title="USt Q3 Kanzlei")
    Task.objects.create(board=private, status=statuses["offen"], title="Geheime Notiz Privat")
    return shared, private


def _listed(run: Run) -> str:
    tool = run.messages.get(role=Message.Role.TOOL)
    return tool.content


def test_a_service_principal_run_sees_shared_data_only_not_the_acting_users_private(
    user, robot, model, fake_openai, boards
):
    fake_openai.tool_calls(("aufgaben_list_tasks", {})).reply("Zwei Aufgaben? Nein, eine.")
    principal = Principal.for_service(robot, acting_user=user)
    run = headless.start_headless_run(principal, "Welche Aufgaben sind offen?", kind=Run.Kind.AUTOMATION)

    assert (run.user_id, run.service_principal_id, run.interactive) == (user.pk, robot.pk, False)
    assert (run.session.user_id, run.session.service_principal_id) == (None, robot.pk)
    run = run_agent(run.pk)

    assert run.status == Run.Status.COMPLETED, (run.error_code, run.error_message)
    listed = _listed(run)
    assert json.loads(listed)["ok"] is True
    assert "USt Q3 Kanzlei" in listed and "Geheime Notiz Privat" not in listed
    # The same question as the person sees the private task: the difference is the principal.
    fake_openai.tool_calls(("aufgaben_list_tasks", {})).reply("Zwei.")
    mine = say(Principal.for_user(user), services.create_session(Principal.for_user(user)).pk, "Welche?")
    assert "Geheime Notiz Privat" in _listed(run_agent(mine.pk))


def test_the_tool_context_is_built_from_the_run(user, robot, model):
    parent = headless.start_headless_run(
        Principal.for_service(robot, acting_user=user),
        "Plane den Tag",
        kind=Run.Kind.AUTOMATION,
        allowed_tools=["aufgaben_list_tasks", "aufgaben_create_task"],
        specialist_id=7,
    )
    Run.objects.filter(pk=parent.pk).update(status=Run.Status.RUNNING)
    child = headless.start_headless_run(
        Principal.for_service(robot, acting_user=user),
        "Nur lesen",
        kind=Run.Kind.SUB_AGENT,
        parent=parent,
        allowed_tools=["aufgaben_list_tasks"],
    )
    child = Run.objects.select_related("user", "service_principal").get(pk=child.pk)
    principal = acting.principal_of(child)
    ctx = acting.tool_context(child, principal, time_zone="Europe/Berlin")

    assert principal.service == robot and principal.acting_user == user and principal.user is None
    assert principal.resource_scope.shared_only
    assert ctx.allowed_tools == frozenset({"aufgaben_list_tasks"})
    assert (ctx.headless, ctx.run_kind, ctx.run_id, ctx.session_id) == (
        True,
        "sub_agent",
        str(child.pk),
        str(child.session_id),
    )
    assert acting.tool_context(parent, principal, time_zone="UTC").specialist_id == "7"
    # A person's chat run: the main copilot, interactive, every tool.
    chat = say(Principal.for_user(user), services.create_session(Principal.for_user(user)).pk, "Hallo")
    ctx = acting.tool_context(chat, acting.principal_of(chat), time_zone="UTC")
    assert (ctx.allowed_tools, ctx.specialist_id, ctx.headless, ctx.run_kind) == (None, None, False, "chat")


def test_a_child_run_inherits_the_parents_principal_and_tools(user, robot, model):
    parent = headless.start_headless_run(
        Principal.for_service(robot, acting_user=user),
        "Eltern",
        kind=Run.Kind.AUTOMATION,
        allowed_tools=["aufgaben_list_tasks"],
    )
    Run.objects.filter(pk=parent.pk).update(status=Run.Status.RUNNING, require_neutralization=True)
    child = headless.start_headless_run(
        Principal.for_service(robot, acting_user=user), "Kind", kind=Run.Kind.DELEGATION, parent=parent
    )
    assert (child.user_id, child.service_principal_id, child.parent_id) == (user.pk, robot.pk, parent.pk)
    assert child.allowed_tools == ["aufgaben_list_tasks"] and child.require_neutralization
    assert child.session_id != parent.session_id  # its own conversation: the parent's stays open
    assert child.model_config_id == parent.model_config_id


def test_a_child_asking_for_more_than_its_parent_is_refused(user, robot, model):
    """The attack: a run (or the model steering it) starts a child as another identity, with
    tools its parent may not use, or claiming a person's presence. Nothing is written."""
    parent = headless.start_headless_run(
        Principal.for_service(robot, acting_user=user),
        "Eltern",
        kind=Run.Kind.AUTOMATION,
        allowed_tools=["aufgaben_list_tasks"],
    )
    Run.objects.filter(pk=parent.pk).update(status=Run.Status.RUNNING)
    other_user = UserFactory(email="chefin@kanzlei.example")
    before = (Run.objects.count(), ChatSession.objects.count(), Message.objects.count())
    attempts = {
        "principal": dict(principal=Principal.for_user(user)),  # the acting person's own, wider scope
        "acting": dict(principal=Principal.for_service(robot, acting_user=other_user)),
        "other service": dict(principal=Principal.for_service(ServicePrincipalFactory(name="Einbettung"))),
        "tools": dict(allowed_tools=["aufgaben_list_tasks", "aufgaben_delete_task"]),
        "interactive": dict(interactive=True),
    }
    for name, attempt in attempts.items():
        kwargs = {"principal": Principal.for_service(robot, acting_user=user), **attempt}
        principal = kwargs.pop("principal")
        with pytest.raises(ChildRunRefused) as refused:
            headless.start_headless_run(principal, "Mehr!", kind=Run.Kind.SUB_AGENT, parent=parent, **kwargs)
        assert refused.value.code == "child_run_refused", name
    assert (Run.objects.count(), ChatSession.objects.count(), Message.objects.count()) == before
    # A grandchild cannot widen through its parent either: the allowlist of the chain intersects.
    child = headless.start_headless_run(
        Principal.for_service(robot, acting_user=user), "Kind", kind=Run.Kind.SUB_AGENT, parent=parent
    )
    Run.objects.filter(pk=child.pk).update(allowed_tools=None)  # even a row edited by hand
    child.refresh_from_db()
    assert acting.allowed_tools(child) == frozenset({"aufgaben_list_tasks"})


def test_service_conversations_never_show_in_a_persons_chat_list(user, robot, model):
    principal = Principal.for_service(robot, acting_user=user)
    run = headless.start_headless_run(principal, "Briefing", kind=Run.Kind.AUTOMATION, title="Morgens")
    mine = Principal.for_user(user)
    assert run.session not in services.list_sessions(mine)
    with pytest.raises(Exception) as missing:
        services.get_session(mine, run.session_id)
    assert missing.value.code == "chat_session_not_found"
    # The service principal continues its own conversation, one run at a time.
    Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETED)
    again = headless.start_headless_run(
        principal, "Weiter", kind=Run.Kind.AUTOMATION, session_id=run.session_id
    )
    assert again.session_id == run.session_id
    with pytest.raises(Exception) as busy:
        headless.start_headless_run(principal, "Noch", kind=Run.Kind.AUTOMATION, session_id=run.session_id)
    assert busy.value.code == "run_in_progress"
    # Someone else's conversation is not continued.
    user_session = services.create_session(mine)
    with pytest.raises(Exception) as foreign:
        headless.start_headless_run(principal, "x", kind=Run.Kind.AUTOMATION, session_id=user_session.pk)
    assert foreign.value.code == "chat_session_not_found"
    # An admin deletes the service conversation once its run finished (no person's list to update).
    Run.objects.filter(pk=again.pk).update(status=Run.Status.COMPLETED)
    assert services.delete_session(mine, run.session_id, as_admin=True) == run.session_id
    assert not ChatSession.objects.filter(pk=run.session_id).exists()


def test_bad_headless_input_writes_nothing(user, model):
    principal = Principal.for_user(user)
    before = (Run.objects.count(), ChatSession.objects.count())
    for kwargs in (
        dict(content="x", kind=Run.Kind.CHAT),
        dict(content="x", kind="erfunden"),
        dict(content="  ", kind=Run.Kind.AUTOMATION),
        dict(content="x", kind=Run.Kind.AUTOMATION, allowed_tools="aufgaben_list_tasks"),
    ):
        content = kwargs.pop("content")
        with pytest.raises(InvalidChatInput):
            headless.start_headless_run(principal, content, **kwargs)
    assert (Run.objects.count(), ChatSession.objects.count()) == before


def test_a_disabled_service_principal_fails_the_run(user, robot, model, fake_openai):
    run = headless.start_headless_run(
        Principal.for_service(robot, acting_user=user), "Briefing", kind=Run.Kind.AUTOMATION
    )
    robot.is_active = False
    robot.save()
    run = run_agent(run.pk)
    assert (run.status, run.error_code) == (Run.Status.FAILED, "forbidden")
    assert run.diagnostics["abort_cause"] == "principal_inactive"
    assert fake_openai.chat_requests == []
