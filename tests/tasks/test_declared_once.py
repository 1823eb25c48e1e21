"""One declaration per operation, on the pages too: the filters go through the filter model REST
and the tools use (`web.query`), the forms through the input model (`InputModelForm`), and the
services take the validated model (`build` for internal callers)."""

from dataclasses import replace

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from apps.core.errors import InvalidInput, InvalidUrl
from apps.core.inputs import build
from apps.core.origin import Origin
from apps.core.surfaces.forms import input_field
from apps.tasks.contracts import TaskCreate, TaskPageFilter, TaskUpdate
from apps.tasks.forms import TaskEditForm

pytestmark = pytest.mark.django_db


def _messages(response):
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_a_bad_filter_is_a_page_message_never_a_500(web, make_task):
    make_task("sichtbar")
    for url in (reverse("tasks:list"), reverse("tasks:board")):
        response = web.get(url, {"due_from": "gestern", "assignee": "abc", "board": "", "q": "x" * 300})
        assert response.status_code == 200
        assert "sichtbar" in response.content.decode()
        assert any(m.startswith("assignee") for m in _messages(response))


def test_page_filters_use_the_task_filter_under_the_pages_names(web, make_task, web_user, statuses):
    make_task("meine", assignee=web_user)
    make_task("niemandes")
    make_task("fertig", status="erledigt")
    listed = lambda **q: web.get(reverse("tasks:list"), q).content.decode()  # noqa: E731
    mine, nobodys, unfinished = listed(assignee="me"), listed(assignee="none"), listed(open="1")
    assert "meine" in mine and "niemandes" not in mine
    assert "niemandes" in nobodys and "meine" not in nobodys
    assert "fertig" not in unfinished and "meine" in unfinished
    filters = TaskPageFilter.model_validate({"client": "7", "open": "1", "assignee": "none", "q": "Meier"})
    assert (filters.client_id, filters.unfinished, filters.nobody, filters.query) == (7, True, True, "Meier")


def test_internal_callers_get_the_domain_error_of_the_contract():
    with pytest.raises(InvalidUrl):
        build(TaskCreate, title="x", source_url="javascript:alert(1)")
    with pytest.raises(InvalidInput) as refused:
        build(TaskUpdate, title="", priority="sofort")
    assert set(refused.value.field_errors) == {"title", "priority"}


def test_origin_of_a_tool_call_and_of_a_request(anna_ctx, rf):
    assert Origin.of_tool(anna_ctx).surface == "agent" and Origin.of_tool(anna_ctx).via_tool
    assert Origin.of_tool(replace(anna_ctx, surface="api")).surface == "api"
    assert Origin.of_request(rf.get("/"), surface="page") == Origin(surface="page")
    assert not Origin().by_agent and Origin().run_snapshot() is None


def test_a_contract_field_without_a_form_field_is_derived(make_task):
    field = input_field(TaskUpdate, "due_date")
    assert field.required is False and field.widget.input_type == "date"
    assert input_field(TaskCreate, "title").required and input_field(TaskCreate, "title").max_length == 300
    assert input_field(TaskUpdate, "priority").choices[0] == ("low", "low")
    form = TaskEditForm(task=make_task("x"), boards=[], people=[])
    assert set(TaskEditForm.EDITOR_FIELDS) == {n for n in form.fields if not n.startswith("base_")}
