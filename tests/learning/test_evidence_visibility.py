"""Issue 25, defect 6: a learning object showed the verbatim quote from the private chat it came
from, and its run id, to every staff member (`context_get learning:<id>`). The quote and the run
are for the object's reviewers and the owner of that chat; every other staff member sees the fact."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.accounts.principal import Principal
from apps.agent.models import ChatSession, Run
from apps.core.inputs import build
from apps.knowledge.context import context_get
from apps.learning import services
from apps.learning.contracts import LearningProposal
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SECRET = "Mein Mandant Huber hat die Steuerschuld verschwiegen"
FACT = "Unterlagen für Huber kommen per Post."


def private_run(user) -> Run:
    session = ChatSession.objects.create(user=user, title="privat")
    return Run.objects.create(session=session, user=user, status=Run.Status.COMPLETED)


@pytest.fixture
def learned(anna):
    """Learned from Anna's private chat."""
    obj, _what = services.propose(
        build(
            LearningProposal,
            kind="durable_fact",
            text=FACT,
            subject="client.huber.post",
            quote=f"{SECRET}. {FACT}",
            run_id=private_run(anna).pk,
            confidence=0.95,
        )
    )
    return obj


def _everywhere(principal: Principal, obj) -> dict:
    ctx = ToolContext(principal=principal)
    tool = dispatch("learning_get_object", {"object_id": obj.ref}, ctx)
    assert tool.ok, tool.message
    via_context_tool = dispatch("context_get", {"id": obj.ref}, ctx)
    assert via_context_tool.ok, via_context_tool.message
    found = dispatch("context_search", {"query": "Huber Post", "sources": ["learning"]}, ctx)
    assert found.ok and [r["id"] for r in found.output["results"]] == [obj.ref]
    listed = dispatch("learning_search", {"query": "Huber"}, ctx)
    assert listed.ok and listed.output["results"][0]["text"] == FACT
    return {
        "tool": tool.output["object"],
        "context": context_get(principal, obj.ref),
        "context_tool": via_context_tool.output,
        "search": found.output,
        "list": listed.output,
    }


def test_another_staff_member_sees_the_fact_but_not_the_quote_or_run(learned, ben):
    seen = _everywhere(Principal.for_user(ben), learned)
    assert seen["tool"]["text"] == FACT and seen["context"]["text"] == FACT
    assert seen["tool"]["evidence"] == [] and seen["context"]["evidence"] == []
    text = json.dumps(seen, default=str)
    assert SECRET not in text and "Steuerschuld" not in text
    run_id = learned.evidence.get().run_id
    assert f'"run_id": {run_id}' not in text


def test_the_owner_of_the_chat_sees_their_own_quote_and_run(learned, anna):
    seen = _everywhere(Principal.for_user(anna), learned)
    run_id = learned.evidence.get().run_id
    for surface in ("tool", "context"):
        (evidence,) = seen[surface]["evidence"]
        assert SECRET in evidence["quote"] and evidence["run_id"] == run_id


def test_a_reviewer_sees_every_quote_and_an_owner_only_their_own(learned, anna, ben, settings):
    admin = UserFactory(role="admin", is_superuser=True)
    services.propose(
        build(
            LearningProposal,
            kind="durable_fact",
            text=FACT,
            subject="client.huber.post",
            quote=f"Ben sagt intern: {FACT}",
            run_id=private_run(ben).pk,
            confidence=0.95,
        )
    )
    quotes = lambda who: sorted(  # noqa: E731
        e["quote"] for e in _everywhere(Principal.for_user(who), learned)["tool"]["evidence"]
    )
    assert len(quotes(admin)) == 2
    assert [q for q in quotes(anna) if "Ben sagt" in q] == [] and len(quotes(anna)) == 1
    assert [q for q in quotes(ben) if SECRET in q] == [] and len(quotes(ben)) == 1


def test_a_staff_member_with_the_review_permission_is_a_reviewer(learned, ben):
    from django.contrib.auth.models import Permission

    ben.user_permissions.add(Permission.objects.get(codename="review_learningobject"))
    ben = type(ben).objects.get(pk=ben.pk)  # permission cache
    (evidence,) = _everywhere(Principal.for_user(ben), learned)["tool"]["evidence"]
    assert SECRET in evidence["quote"]


def test_the_review_pages_show_quotes_to_reviewers_only(learned, ben):
    from apps.learning.models import LearningObject
    from tests.factories import PASSWORD

    LearningObject.objects.filter(pk=learned.pk).update(status=LearningObject.Status.STAGED)
    staff = Client()
    assert staff.post("/accounts/login/", {"username": ben.email, "password": PASSWORD}).status_code == 302
    page = staff.get("/pruefen/?kind=learning")
    assert SECRET not in page.content.decode()
    admin = UserFactory(role="admin", is_superuser=True)
    reviewer = Client()
    reviewer.force_login(admin)
    shown = reviewer.get("/pruefen/?kind=learning")
    assert shown.status_code == 200 and SECRET in shown.content.decode()


def test_the_rest_tool_endpoint_keeps_the_quote_from_another_staff_member(learned, anna, ben):
    from rest_framework.test import APIClient

    from apps.apikeys.services import issue_device_token

    def over_rest(user) -> dict:
        _, token = issue_device_token(user, "Telefon")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        for name, arguments in (
            ("learning_get_object", {"object_id": learned.ref}),
            ("context_get", {"id": learned.ref}),
        ):
            response = client.post(
                "/api/v1/tools/execute", {"tool": name, "arguments": arguments}, format="json"
            )
            assert response.status_code == 200, response.content
            yield response.json()

    assert all(SECRET not in json.dumps(body) for body in over_rest(ben))
    assert all(SECRET in json.dumps(body, ensure_ascii=False) for body in over_rest(anna))
