"""Sources marked "neutralize always" (a client, a case): when a run touches their data, every
later model call is neutralized even with the office's switch off, and the run records it."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.agent.models import Run
from apps.agent.runtime import run_agent
from apps.clients.models import Case, Client
from apps.core.services import set_setting
from apps.llm import neutralize
from tests.agent.helpers import ask, say

pytestmark = pytest.mark.django_db

NAME = "Hubertus Wendeberg"


@pytest.fixture
def switch_off(db):
    set_setting("agent_neutralization", "off")


def _client(marked: bool) -> Client:
    return Client.objects.create(
        name=NAME,
        kind="person",
        client_number="K-4711",
        email="h.wendeberg@example.de",
        neutralize_always=marked,
    )


def _get(tool: str, **arguments) -> tuple[str, dict]:
    return ("tool_execute", {"tool": tool, "arguments": json.dumps(arguments)})


def _sent_after_tools(fake) -> str:
    return json.dumps(fake.chat_requests[1:], ensure_ascii=False)


def test_an_unmarked_client_goes_out_raw_when_the_switch_is_off(user, model, fake_openai, switch_off):
    """The control: the assertions below can fail."""
    client = _client(marked=False)
    fake_openai.tool_calls(_get("mandanten_get", client_id=client.pk))
    fake_openai.reply("ok")
    run = ask(user, "Zeig mir den Mandanten.")
    assert run.status == Run.Status.COMPLETED and NAME in _sent_after_tools(fake_openai)
    assert run.require_neutralization is False


def test_a_marked_client_read_by_a_tool_neutralizes_the_run(user, model, fake_openai, switch_off):
    client = _client(marked=True)
    fake_openai.tool_calls(_get("mandanten_get", client_id=client.pk))
    fake_openai.reply("Das ist [MANDANT_1].")
    run = ask(user, "Zeig mir den Mandanten.")
    assert run.status == Run.Status.COMPLETED, run.error_code
    sent = _sent_after_tools(fake_openai)
    assert "Wendeberg" not in sent and "h.wendeberg" not in sent and "[MANDANT_1]" in sent
    run.refresh_from_db()
    assert run.require_neutralization is True
    assert f"client:{client.pk}" in run.diagnostics["neutralization"]["required_by"]
    assert run.session.messages.last().content == f"Das ist {NAME}."  # restored for the user
    # the chat stays neutralized: its transcript holds the client's data
    fake_openai.forbid("Wendeberg")
    fake_openai.reply("ok")
    principal = Principal.for_user(user)
    second = run_agent(say(principal, run.session_id, "Und weiter?").pk)
    assert second.require_neutralization is True and fake_openai.violations == []


def test_a_case_of_a_marked_client_and_a_marked_case(user, model, fake_openai, switch_off):
    other = Client.objects.create(name="Quirin Sauerbier", kind="person", client_number="K-2")
    case = Case.objects.create(
        reference="2024/0815", subject="Erbschaft", client=other, neutralize_always=True
    )
    fake_openai.tool_calls(_get("cases_get", case_id=case.pk))
    fake_openai.reply("ok")
    run = ask(user, "Welche Akte?")
    assert "Sauerbier" not in _sent_after_tools(fake_openai)
    run.refresh_from_db()
    assert run.diagnostics["neutralization"]["required_by"] == [f"case:{case.pk}"]


def test_a_marked_clients_name_in_the_request_is_neutralized(user, model, fake_openai, switch_off):
    _client(marked=True)
    fake_openai.forbid("Wendeberg")
    fake_openai.reply("ok")
    run = ask(user, f"Was weißt du über {NAME.upper()}?")
    assert fake_openai.violations == [] and run.status == Run.Status.COMPLETED
    run.refresh_from_db()
    assert run.require_neutralization and run.diagnostics["neutralization"]["required_by"] == [
        "text:required_term"
    ]


def test_sensitive_refs_and_the_scope():
    marked = _client(marked=True)
    plain = Client.objects.create(name="Anna Adler", client_number="K-9")
    case = Case.objects.create(reference="A-1", subject="x", client=marked)
    assert neutralize.requires([f"client:{marked.pk}", f"client:{plain.pk}", f"case:{case.pk}"]) == sorted(
        [f"client:{marked.pk}", f"case:{case.pk}"]
    )
    assert neutralize.touch([f"client:{marked.pk}"]) == []  # outside a scope: nothing to do
    with neutralize.tracking() as demands:
        Client.objects.get(pk=plain.pk)
        assert demands.sources == set()
        Client.objects.get(pk=marked.pk)
        assert demands.sources == {f"client:{marked.pk}"}


def test_the_client_page_and_the_case_list_switch_it(client, user):
    row = _client(marked=False)
    case = Case.objects.create(reference="A-7", subject="Steuer", client=row)
    client.force_login(user)
    url = reverse("clients:detail", args=[row.pk])
    page = client.get(url).content.decode()
    assert 'name="neutralize_always"' in page
    form = {
        "name": row.name,
        "client_number": row.client_number,
        "kind": row.kind,
        "status": row.status,
        "email": row.email,
        "country": row.country,
        "version": row.version,
        "neutralize_always": "on",
    }
    form.update({f"base_{k}": v for k, v in form.items() if k not in ("version", "neutralize_always")})
    form["base_neutralize_always"] = ""
    assert client.post(url, form).status_code == 302
    row.refresh_from_db()
    assert row.neutralize_always is True
    toggle = reverse("clients:case-neutralize", args=[row.pk, case.pk])
    assert client.post(toggle, {"neutralize_always": "on"}).status_code == 302
    case.refresh_from_db()
    assert case.neutralize_always is True
    client.post(toggle, {"neutralize_always": "off"})
    case.refresh_from_db()
    assert case.neutralize_always is False


@pytest.mark.django_db(transaction=True)
def test_parallel_read_only_tools_report_what_they_read(user, model, fake_openai, switch_off):
    """Two read-only calls in one turn run in worker threads: the demand still reaches the run."""
    client = _client(marked=True)
    plain = Client.objects.create(name="Anna Adler", client_number="K-9")
    fake_openai.tool_calls(
        _get("mandanten_get", client_id=plain.pk), _get("mandanten_get", client_id=client.pk)
    )
    fake_openai.reply("ok")
    run = ask(user, "Zeig mir beide.")
    assert run.status == Run.Status.COMPLETED, run.error_code
    assert "Wendeberg" not in _sent_after_tools(fake_openai)
    run.refresh_from_db()
    assert run.diagnostics["neutralization"]["required_by"] == [f"client:{client.pk}"]


def test_a_passage_of_a_marked_folder_found_by_context_search_neutralizes_the_run(
    user, model, fake_openai, switch_off
):
    from apps.knowledge import indexing
    from apps.knowledge.models import IndexJob
    from tests.documents.factories import DocumentFactory, FolderFactory

    marked = FolderFactory(name="Erbrecht")
    marked.neutralize_always = True
    marked.save(update_fields=["neutralize_always"])
    document = DocumentFactory(title="Testament", folder=marked)
    text = "Testament von Herrn Leopold Quastenbrink: Alleinerbin ist seine Nichte."
    file = indexing.index_source(
        "document", document.pk, {"title": "Testament", "text": text, "scope": "instance", "path": "/1"}
    )
    for job in IndexJob.objects.filter(file=file):
        indexing.run_job(job.pk)
    fake_openai.tool_calls(("context_search", {"query": "Testament Alleinerbin"}))
    fake_openai.reply("ok")
    run = ask(user, "Was steht im Testament?")
    assert run.status == Run.Status.COMPLETED, run.error_code
    assert "Quastenbrink" not in _sent_after_tools(fake_openai)
    run.refresh_from_db()
    assert f"document:{document.pk}" in run.diagnostics["neutralization"]["required_by"]
