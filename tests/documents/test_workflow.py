"""The document workflow: after extraction the configured model (a scripted OpenAI-compatible
server) summarizes the document and names tasks and a deadline, which are filed idempotently,
linked back to the document, as its creator, in one transaction."""

import datetime as dt
import json

import pytest
from django.urls import reverse

from apps.calendar.models import CalendarEvent
from apps.core.inputs import build
from apps.documents import workflow
from apps.documents.models import Document, DocumentWorkflow, Folder, WorkflowItem
from apps.documents.workflow_items import normalize_title, signature, similarity
from apps.tasks.contracts import TaskCreate, TaskUpdate
from apps.tasks.models import Board, Task, TaskStatus
from tests.documents.factories import DocumentFactory, FolderFactory
from tests.documents.helpers import upload
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db

BESCHEID = (
    "Finanzamt Musterstadt. Bescheid für 2024 über Einkommensteuer vom 02.12.2026. "
    "Gegen diesen Bescheid kann innerhalb eines Monats Einspruch eingelegt werden (§ 355 AO)."
)
ANSWER = {
    "summary": "Einkommensteuerbescheid 2024; Einspruchsfrist ein Monat.",
    "tasks": [
        {"title": "Bescheid prüfen", "due_date": "2026-12-20", "assignee_hint": "Anna Berger"},
        {
            "title": "Mandant informieren",
            "due_date": None,
            "assignee_hint": None,
            "description": "Kurz anrufen",
        },
    ],
    "deadline": {
        "title": "Einspruchsfrist ESt 2024",
        "due": "2027-01-04",
        "legal_basis": "§ 355 AO",
        "criticality": "high",
    },
}


@pytest.fixture
def board(db, statuses):
    return Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)


@pytest.fixture
def client_row(db):
    return ClientFactory(name="Hoffmann GmbH")


def _doc(anna, client_row=None, **kwargs) -> Document:
    document = DocumentFactory(title="ESt-Bescheid 2024", extracted_text=BESCHEID, created_by=anna, **kwargs)
    if client_row is not None:
        document.clients.set([client_row])
    return document


def _run(document, capture) -> str | None:
    with capture(execute=True):
        return workflow.run_workflow(document.pk)


def _linked_tasks(document) -> list[Task]:
    return list(Task.objects.filter(source_type="document", source_id=str(document.pk)).order_by("id"))


def test_creates_linked_tasks_and_deadline(
    anna, board, client_row, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    document = _doc(anna, client_row)
    fake_openai.reply(json.dumps(ANSWER), usage=(120, 40))
    assert _run(document, django_capture_on_commit_callbacks) == "done"

    flow = DocumentWorkflow.objects.get(document=document)
    assert flow.status == "done" and flow.summary.startswith("Einkommensteuerbescheid")
    assert flow.model_label == chat_model.label and (flow.prompt_tokens, flow.completion_tokens) == (120, 40)
    tasks = _linked_tasks(document)
    assert [t.title for t in tasks] == ["Bescheid prüfen", "Mandant informieren"]
    first = tasks[0]
    assert first.source_label == "ESt-Bescheid 2024"
    assert first.source_url == reverse("documents:detail", args=[document.pk])
    assert first.due_date == dt.date(2026, 12, 20) and first.client_id == client_row.pk
    assert first.assignee_id == anna.pk and first.erstellt_von_id == anna.pk and first.board_id == board.pk
    deadline = CalendarEvent.objects.get(source_origin="document")
    assert deadline.kind == "deadline" and deadline.title == "Einspruchsfrist ESt 2024"
    assert deadline.legal_basis == "§ 355 AO" and deadline.criticality == "high" and deadline.all_day
    assert deadline.source_label == "ESt-Bescheid 2024" and deadline.client_id == client_row.pk
    assert deadline.created_by_id == anna.pk
    items = list(flow.items.order_by("id"))
    assert [(i.kind, i.action) for i in items] == [
        ("task", "created"),
        ("task", "created"),
        ("deadline", "created"),
    ]
    assert items[2].target_id == deadline.pk and len({i.signature for i in items}) == 3
    # The model got the document's text and was told to answer with JSON only.
    sent = fake_openai.chat_requests[0]["messages"]
    assert "JSON" in sent[0]["content"] and "Einspruch" in sent[1]["content"]


def test_running_twice_creates_nothing_new(
    anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    document = _doc(anna)
    fake_openai.reply(json.dumps(ANSWER)).reply(json.dumps(ANSWER))
    _run(document, django_capture_on_commit_callbacks)
    before = (Task.objects.count(), CalendarEvent.objects.count(), WorkflowItem.objects.count())
    assert _run(document, django_capture_on_commit_callbacks) == "done"
    assert (Task.objects.count(), CalendarEvent.objects.count(), WorkflowItem.objects.count()) == before
    assert set(WorkflowItem.objects.values_list("action", flat=True)) == {"unchanged"}
    assert DocumentWorkflow.objects.get(document=document).runs == 2


def test_matching_open_task_is_updated_not_duplicated(
    anna, as_anna, board, client_row, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    from apps.tasks import services as tasks

    manual = tasks.create_task(as_anna, build(TaskCreate, title="Bescheid  prüfen!", client_id=client_row.pk))
    done = tasks.create_task(as_anna, build(TaskCreate, title="Mandant informieren", client_id=client_row.pk))
    tasks.update_task(
        as_anna, done.pk, build(TaskUpdate, status_id=TaskStatus.objects.get(key="erledigt").pk)
    )
    document = _doc(anna, client_row)
    fake_openai.reply(json.dumps(ANSWER))
    _run(document, django_capture_on_commit_callbacks)

    manual.refresh_from_db()
    assert manual.due_date == dt.date(2026, 12, 20)
    assert reverse("documents:detail", args=[document.pk]) in manual.description
    assert Task.objects.filter(title__icontains="Bescheid").count() == 1
    # A finished task does not count: a new one is filed for the document.
    assert [t.title for t in _linked_tasks(document)] == ["Mandant informieren"]
    item = WorkflowItem.objects.get(target_id=manual.pk, kind="task")
    assert item.action == "updated"


def test_changed_due_date_updates_the_documents_own_task_and_deadline(
    anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    document = _doc(anna)
    moved = json.loads(json.dumps(ANSWER))
    moved["tasks"][0]["due_date"] = "2026-12-22"
    moved["deadline"]["due"] = "2027-01-05T12:00"
    fake_openai.reply(json.dumps(ANSWER)).reply(json.dumps(moved))
    _run(document, django_capture_on_commit_callbacks)
    _run(document, django_capture_on_commit_callbacks)
    tasks = _linked_tasks(document)
    assert len(tasks) == 2 and tasks[0].due_date == dt.date(2026, 12, 22)
    event = CalendarEvent.objects.get()
    assert not event.all_day and event.start.date() == dt.date(2027, 1, 5)
    assert WorkflowItem.objects.filter(kind="deadline").count() == 1


@pytest.mark.parametrize(
    "content",
    [
        "Gern! Hier ist die Zusammenfassung: …",
        '{"summary": "x", "tasks": [{"title": ""}]}',
        '{"summary": "x", "deadline": {"title": "Frist", "due": "bald"}}',
        '{"summary": "x", "tasks": "keine"}',
    ],
)
def test_malformed_answer_fails_visibly_and_writes_nothing(
    anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks, content
):
    document = _doc(anna)
    fake_openai.reply(content)
    assert _run(document, django_capture_on_commit_callbacks) == "failed"
    flow = DocumentWorkflow.objects.get(document=document)
    assert flow.reason == "invalid_model_output" and flow.message
    assert (
        not Task.objects.exists() and not CalendarEvent.objects.exists() and not WorkflowItem.objects.exists()
    )


def test_a_refused_write_rolls_back_the_whole_run(
    anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    """The task is filed, then the calendar service refuses the deadline: nothing of the run
    survives, the state says why."""
    answer = {
        "summary": "s",
        "tasks": [{"title": "Bescheid prüfen"}],
        "deadline": {"title": "F", "due": "2027-01-04", "criticality": "normal"},
    }
    document = _doc(anna)
    fake_openai.reply(json.dumps(answer))
    from apps.calendar import services as calendar

    def refuse(*args, **kwargs):
        from apps.core.errors import InvalidInput

        raise InvalidInput("start: nope")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(calendar, "create_event", refuse)
        assert _run(document, django_capture_on_commit_callbacks) == "failed"
    flow = DocumentWorkflow.objects.get(document=document)
    assert flow.reason == "write_failed"
    assert not Task.objects.exists() and not WorkflowItem.objects.exists()


def test_provider_error_fails_with_reason(
    anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    document = _doc(anna)
    fake_openai.error(500, "boom")
    assert _run(document, django_capture_on_commit_callbacks) == "failed"
    assert DocumentWorkflow.objects.get(document=document).reason == "model_error"


def test_without_a_model_the_step_is_skipped_with_reason(anna, board, django_capture_on_commit_callbacks):
    document = _doc(anna)
    assert _run(document, django_capture_on_commit_callbacks) == "skipped"
    flow = DocumentWorkflow.objects.get(document=document)
    assert flow.reason == "no_model_configured" and "model" in flow.message
    assert not Task.objects.exists()


def test_document_no_longer_visible_to_its_creator_gets_no_writes(
    anna, ben, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    """Anna added it to Ben's personal folder through a grant that was taken back since."""
    bens = FolderFactory(name="Persönlich", kind=Folder.Kind.PERSONAL, owner=ben, is_home=True)
    document = _doc(anna, folder=bens)
    assert _run(document, django_capture_on_commit_callbacks) == "skipped"
    assert DocumentWorkflow.objects.get(document=document).reason == "document_not_visible"
    assert not fake_openai.chat_requests and not Task.objects.exists() and not CalendarEvent.objects.exists()


def _meanwhile(monkeypatch, change) -> None:
    """Run `change` while the model answers (in this test's transaction, so the run sees it)."""
    from apps.documents import analysis

    original = analysis.analyse

    def analyse(*args, **kwargs):
        result = original(*args, **kwargs)
        change()
        return result

    monkeypatch.setattr(analysis, "analyse", analyse)


def test_visibility_lost_during_the_model_call_writes_nothing(
    monkeypatch, anna, ben, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    document = _doc(anna)
    bens = FolderFactory(name="Privat", kind=Folder.Kind.PERSONAL, owner=ben)
    fake_openai.reply(json.dumps(ANSWER))
    _meanwhile(monkeypatch, lambda: Document.objects.filter(pk=document.pk).update(folder=bens))
    assert _run(document, django_capture_on_commit_callbacks) == "skipped"
    assert (
        not Task.objects.exists() and not CalendarEvent.objects.exists() and not WorkflowItem.objects.exists()
    )


def test_document_deleted_during_the_model_call_writes_nothing(
    monkeypatch, anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    document = _doc(anna)
    fake_openai.reply(json.dumps(ANSWER))
    _meanwhile(monkeypatch, lambda: Document.objects.filter(pk=document.pk).delete())
    assert _run(document, django_capture_on_commit_callbacks) is None
    assert (
        not Task.objects.exists()
        and not CalendarEvent.objects.exists()
        and not DocumentWorkflow.objects.exists()
    )


def test_inactive_creator_is_skipped(anna, board, chat_model, django_capture_on_commit_callbacks):
    document = _doc(anna)
    anna.is_active = False
    anna.save()
    assert _run(document, django_capture_on_commit_callbacks) == "skipped"
    assert DocumentWorkflow.objects.get(document=document).reason == "creator_inactive"


def test_personal_document_files_privately(
    anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    home = FolderFactory(name="Persönlich", kind=Folder.Kind.PERSONAL, owner=anna, is_home=True)
    mine = Board.objects.create(name="Meins", visibility=Board.Visibility.PRIVATE, owner=anna)
    document = _doc(anna, folder=home)
    fake_openai.reply(json.dumps(ANSWER))
    _run(document, django_capture_on_commit_callbacks)
    assert {t.board_id for t in _linked_tasks(document)} == {mine.pk}
    assert CalendarEvent.objects.get().visibility == "private"


def test_upload_runs_extraction_then_workflow(
    as_anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    fake_openai.reply(json.dumps(ANSWER))
    document = upload(as_anna, "bescheid.txt", BESCHEID.encode(), django_capture_on_commit_callbacks)
    assert document.extraction_status == "done"
    assert DocumentWorkflow.objects.get(document=document).status == "done"
    assert len(_linked_tasks(document)) == 2


def test_upload_without_model_shows_skipped(as_anna, django_capture_on_commit_callbacks):
    document = upload(as_anna, "notiz.txt", b"Hallo", django_capture_on_commit_callbacks)
    assert DocumentWorkflow.objects.get(document=document).reason == "no_model_configured"


def test_title_normalization_and_signature():
    assert normalize_title("  Bescheid   PRÜFEN! ") == "bescheid prüfen"
    assert similarity("Bescheid prüfen", "prüfen, Bescheid") == 1.0
    assert similarity("Bescheid prüfen", "Belege anfordern") < 0.9
    assert signature(1, "task", "Bescheid prüfen", None) == signature(1, "task", "bescheid  prüfen.", None)
    assert signature(1, "task", "a", None) != signature(2, "task", "a", None)


def test_page_renders_the_timeline(
    client, anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    document = _doc(anna)
    document.extracted_at = document.created_at
    document.save()
    fake_openai.reply(json.dumps(ANSWER))
    _run(document, django_capture_on_commit_callbacks)
    client.force_login(anna)
    body = client.get(reverse("documents:detail", args=[document.pk])).content.decode()
    assert 'id="document-workflow"' in body and "Einkommensteuerbescheid 2024" in body
    assert "Bescheid prüfen" in body and "Einspruchsfrist ESt 2024" in body
    task = _linked_tasks(document)[0]
    assert reverse("tasks:detail", args=[task.pk]) in body
    partial = client.get(reverse("documents:workflow", args=[document.pk]))
    assert partial.status_code == 200 and b"<html" not in partial.content and b"timeline" in partial.content


def test_page_shows_the_skip_reason(client, anna, django_capture_on_commit_callbacks):
    document = _doc(anna)
    _run(document, django_capture_on_commit_callbacks)
    client.force_login(anna)
    body = client.get(reverse("documents:detail", args=[document.pk])).content.decode()
    assert "no_model_configured" in body


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("de", "Es ist kein Sprachmodell eingerichtet"),
        ("en", "No language model is configured"),
        ("it", "Non è configurato alcun modello"),
    ],
)
def test_the_skip_message_reads_in_the_viewers_language(
    client, anna, language, text, django_capture_on_commit_callbacks
):
    """The worker ran in German; an English or Italian reader still reads the reason in theirs."""
    from django.utils import translation

    document = _doc(anna)
    with translation.override("de"):
        _run(document, django_capture_on_commit_callbacks)
    assert DocumentWorkflow.objects.get(document=document).message.startswith("Es ist kein")
    anna.language = language
    anna.save(update_fields=["language"])
    client.force_login(anna)
    try:
        body = client.get(reverse("documents:workflow", args=[document.pk])).content.decode()
    finally:
        translation.activate("de")  # the middleware activated the reader's language in this thread
    assert text in body


def test_workflow_partial_hides_other_peoples_documents(client, anna, ben):
    bens = FolderFactory(name="Persönlich", kind=Folder.Kind.PERSONAL, owner=ben, is_home=True)
    document = DocumentFactory(folder=bens, created_by=ben)
    client.force_login(anna)
    assert client.get(reverse("documents:workflow", args=[document.pk])).status_code == 404


def test_workflow_events_reach_the_documents_viewers(
    anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    from apps.mutations.models import MutationEvent

    document = _doc(anna)
    fake_openai.reply(json.dumps(ANSWER))
    _run(document, django_capture_on_commit_callbacks)
    topics = list(
        MutationEvent.objects.filter(topic="documents.workflow.updated")
        .order_by("id")
        .values_list("ui_actions", flat=True)
    )
    assert topics and topics[-1][0]["record"]["workflow"]["status"] == "done"


def test_personal_document_without_private_board_files_no_shared_task(
    anna, board, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    home = FolderFactory(name="Persönlich", kind=Folder.Kind.PERSONAL, owner=anna, is_home=True)
    document = _doc(anna, folder=home)
    fake_openai.reply(json.dumps({"summary": "s", "tasks": [{"title": "Bescheid prüfen"}]}))
    assert _run(document, django_capture_on_commit_callbacks) == "done"
    assert not Task.objects.exists()
    item = WorkflowItem.objects.get()
    assert item.action == "skipped" and item.payload["reason"] == "no_private_board"
    # Once a private board exists, the next run files it.
    mine = Board.objects.create(name="Meins", visibility=Board.Visibility.PRIVATE, owner=anna)
    fake_openai.reply(json.dumps({"summary": "s", "tasks": [{"title": "Bescheid prüfen"}]}))
    _run(document, django_capture_on_commit_callbacks)
    assert Task.objects.get().board_id == mine.pk and WorkflowItem.objects.get().action == "created"


def test_too_many_tasks_are_trimmed_and_null_lists_accepted():
    from apps.documents.analysis import MAX_TASKS, parse

    many = parse(json.dumps({"summary": "s", "tasks": [{"title": f"T {i}"} for i in range(30)]}))
    assert len(many.tasks) == MAX_TASKS
    fenced = parse('```json\n{"summary": "s", "tasks": null, "deadline": null}\n```')
    assert fenced.tasks == [] and fenced.deadline is None


def test_run_again_from_the_page_after_a_model_was_configured(
    client, anna, board, fake_openai, django_capture_on_commit_callbacks
):
    document = _doc(anna)
    _run(document, django_capture_on_commit_callbacks)
    assert DocumentWorkflow.objects.get(document=document).reason == "no_model_configured"
    from apps.core.services import set_setting
    from apps.llm.models import ModelConfig, Provider

    provider = Provider.objects.create(
        name="Later", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url=fake_openai.base_url, api_key="k"
    )
    set_setting("default_chat_model", ModelConfig.objects.create(provider=provider, model_id="m").pk)
    fake_openai.reply(json.dumps(ANSWER))
    client.force_login(anna)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("documents:workflow-rerun", args=[document.pk]))
    assert response.status_code == 302
    assert DocumentWorkflow.objects.get(document=document).status == "done"
    assert len(_linked_tasks(document)) == 2


def test_run_again_is_refused_for_invisible_documents(client, anna, ben):
    bens = FolderFactory(name="Persönlich", kind=Folder.Kind.PERSONAL, owner=ben, is_home=True)
    document = DocumentFactory(folder=bens, created_by=ben)
    client.force_login(anna)
    assert client.post(reverse("documents:workflow-rerun", args=[document.pk])).status_code == 404
    assert not DocumentWorkflow.objects.exists()
