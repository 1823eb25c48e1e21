"""A boolean is no id, count or amount (issue 25, point 8: schemathesis's invalid requests
accepted). Pydantic's lax mode reads `true` as 1, so `subject_person_id: true` stored a memory
about the person with id 1 and `expected_version: true` passed a version check; `Input` refuses a
boolean for every integer or number field (and in a list of them), on every surface. Also here:
`?status=` (empty) on the client and case lists is refused like any other unknown status, no
longer read as "any status"."""

from __future__ import annotations

import contextlib
import importlib

import pytest
from django.apps import apps as django_apps
from pydantic import ValidationError
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.core.contracts import Input, _bool_refusal
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch


def _input_models() -> list[type[Input]]:
    for config in django_apps.get_app_configs():
        if config.name.startswith("apps."):
            with contextlib.suppress(ModuleNotFoundError):
                importlib.import_module(f"{config.name}.contracts")
    seen, todo = set(), list(Input.__subclasses__())
    while todo:
        model = todo.pop()
        if model not in seen:
            seen.add(model)
            todo.extend(model.__subclasses__())
    return sorted(seen, key=lambda m: f"{m.__module__}.{m.__qualname__}")


def test_every_number_field_of_every_input_model_refuses_a_boolean():
    checked, accepted = 0, []
    for model in _input_models():
        for name, info in model.model_fields.items():
            if _bool_refusal(info.annotation) is None:
                continue
            alias = info.alias or name
            checked += 1
            try:
                model.model_validate({alias: True})
            except ValidationError as exc:
                if any(e["loc"][:1] == (alias,) and e["type"].endswith("_type") for e in exc.errors()):
                    continue
            accepted.append(f"{model.__module__}.{model.__qualname__}.{name}")
    assert checked > 100 and accepted == []


def test_a_list_of_ids_refuses_a_boolean_among_them():
    from apps.agent.contracts import MessageCreate

    assert MessageCreate.model_validate({"content": "x", "document_ids": [1, 2]}).document_ids == [1, 2]
    with pytest.raises(ValidationError, match="valid integer"):
        MessageCreate.model_validate({"content": "x", "document_ids": [1, True]})


def test_a_boolean_field_still_takes_a_boolean():
    from apps.documents.contracts import DocumentUpdateById

    assert DocumentUpdateById.model_validate({"document_id": 3, "remove_case": True}).remove_case is True


@pytest.fixture
def token_for():
    def make(user):
        _, token = keys.issue_device_token(user, "iPhone")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return client

    return make


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["subject_person_id", "subject_client_id", "subject_case_id"])
def test_memory_store_refuses_a_boolean_subject(field, boss, as_boss):
    from apps.memory.models import Memory

    _key, plaintext = keys.create_api_key(as_boss, name="Agent", scopes=["memory:write"])
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    response = api.post("/api/v1/memory", {"text": "Kommt nur vormittags.", field: True}, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid_request" and field in body["details"]["field_errors"]
    tool = dispatch(
        "memory_store", {"text": "Kommt nur vormittags.", field: True}, ToolContext(principal=as_boss)
    )
    assert not tool.ok and tool.code == "invalid_arguments", (tool.code, tool.message)
    assert not Memory.objects.exists()


@pytest.mark.django_db
def test_note_page_patch_refuses_a_boolean_version(anna, token_for):
    from tests.notes.factories import NoteFactory, NotePageFactory

    page = NotePageFactory(note=NoteFactory(owner=anna), title="Seite", ordinal=0)
    api = token_for(anna)
    for body in ({"title": "neu", "expected_version": True}, {"font_size": True}):
        response = api.patch(f"/api/v1/notes/pages/{page.pk}", body, format="json")
        assert response.status_code == 400, response.content
        assert response.json()["code"] == "invalid_request"
    page.refresh_from_db()
    assert page.title == "Seite" and page.font_size is None


@pytest.mark.django_db
def test_document_patch_refuses_a_boolean_version(anna, token_for):
    from tests.documents.factories import DocumentFactory

    document = DocumentFactory(title="Bescheid")
    response = token_for(anna).patch(
        f"/api/v1/documents/{document.pk}", {"title": "neu", "expected_version": True}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["details"]["field_errors"].keys() == {"expected_version"}
    document.refresh_from_db()
    assert document.title == "Bescheid"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/clients/", "/api/v1/cases/"])
def test_an_empty_status_filter_is_refused(path, anna, token_for):
    api = token_for(anna)
    assert api.get(path).status_code == 200
    response = api.get(path, {"status": ""})
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_input"
