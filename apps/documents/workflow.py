"""The document workflow: after a successful extraction, the configured chat model summarizes the
document and names its work items; tasks and at most one deadline are filed for it, linked back
to the document, as the person (or service principal) who added the document.

Phases: the model call runs outside any transaction (it may take a minute); all writes of one run
happen in one transaction that first re-checks that the document still exists, is unchanged and
is still visible to its creator. Every end is an explicit state on the document page: `done`,
`skipped` (no model, no creator, not visible) or `failed` (model error, unusable answer, a write
refused) with a reason.
"""

from __future__ import annotations

import datetime as dt
import logging

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import InactivePrincipal, Principal
from apps.calendar.records import detail_url as event_url
from apps.clients.records import detail_url as client_url
from apps.core.errors import DomainError
from apps.core.inputs import build
from apps.core.queue import enqueue
from apps.documents import analysis, events
from apps.documents.errors import ProposalNotFound
from apps.documents.models import Document, DocumentWorkflow, WorkflowItem
from apps.documents.visibility import visible_documents
from apps.documents.workflow_items import Filer
from apps.llm.selection import default_model
from apps.tasks.records import detail_url as task_url

logger = logging.getLogger(__name__)

WORKFLOW_JOB = "apps.documents.jobs.run_document_workflow"  # run_workflow, in the worker
Status = DocumentWorkflow.Status

# Why a run was skipped or failed, in words people understand (the codes are the contract).
REASONS = {
    "no_model_configured": _("No language model is configured, so no summary or work items were derived."),
    "no_text": _("The document has no extracted text to analyse."),
    "no_creator": _("Nobody is recorded as having added the document; nothing is filed in anyone's name."),
    "creator_inactive": _("The person who added the document is no longer active."),
    "document_not_visible": _("The person who added the document can no longer see it."),
    "model_error": _("The language model could not be asked."),
    "invalid_model_output": _("The language model's answer could not be used."),
    "write_failed": _("The tasks or the deadline could not be saved; nothing was filed."),
    "internal_error": _("The workflow failed unexpectedly; nothing was filed."),
    "timeout": _("The analysis took too long and was stopped; nothing was filed."),
    "no_private_board": _("Not filed: a personal document's tasks need a private board of yours."),
}


# --- state --------------------------------------------------------------------------------------
def mark_pending(document: Document) -> None:
    """Inside the extraction's transaction: the page shows "waiting" until the job starts, and
    the job is queued only once that transaction committed. Without a model nothing is queued."""
    if default_model() is None:  # nothing to queue: the page says why right away
        flow, _created = DocumentWorkflow.objects.update_or_create(
            document=document,
            defaults={
                "status": Status.SKIPPED,
                "reason": "no_model_configured",
                "message": str(REASONS["no_model_configured"]),
                "content_hash": document.content_hash,
                "finished_at": timezone.now(),
            },
        )
        events.workflow_changed(document, flow)
        return
    flow, _created = DocumentWorkflow.objects.update_or_create(
        document=document,
        defaults={
            "status": Status.PENDING,
            "reason": "",
            "message": "",
            "content_hash": document.content_hash,
        },
    )
    events.workflow_changed(document, flow)
    # after the extraction's commit, on the extraction's queue
    enqueue(
        WORKFLOW_JOB,
        document.pk,
        document.content_hash,
        queue=getattr(settings, "CLAPILOT_DOCUMENTS_QUEUE", None),
    )


def _finish(document: Document, status: str, reason: str = "", message: str = "", **fields) -> str:
    """Record a final state on its own (the write transaction, if any, was rolled back)."""
    with transaction.atomic():
        if not Document.objects.select_for_update().filter(pk=document.pk).exists():
            return status
        workflow, _created = DocumentWorkflow.objects.select_for_update().get_or_create(document=document)
        workflow.status, workflow.reason = status, reason
        workflow.message = (message or str(REASONS.get(reason, "")))[:500]
        workflow.finished_at = timezone.now()
        for name, value in fields.items():
            setattr(workflow, name, value)
        workflow.save()
        events.workflow_changed(document, workflow)
    return status


def _start(document: Document, model_label: str) -> None:
    with transaction.atomic():
        workflow, _created = DocumentWorkflow.objects.select_for_update().get_or_create(document=document)
        workflow.status, workflow.reason, workflow.message = Status.RUNNING, "", ""
        workflow.model_label = model_label[:200]
        workflow.content_hash = document.content_hash
        workflow.started_at, workflow.finished_at = timezone.now(), None
        workflow.runs += 1
        workflow.save()
        events.workflow_changed(document, workflow)


def creator(document: Document) -> tuple[Principal | None, str]:
    """Whom the workflow acts as: the document's creator, so the same visibility rules apply."""
    try:
        if document.created_by is not None:
            return Principal.for_user(document.created_by), ""
        if document.created_by_service is not None:
            return Principal.for_service(document.created_by_service), ""
    except InactivePrincipal:
        return None, "creator_inactive"
    return None, "no_creator"


def _load(document_id: int) -> Document | None:
    return (
        Document.objects.select_related("folder", "created_by", "created_by_service")
        .prefetch_related("clients")
        .defer("search")
        .filter(pk=document_id)
        .first()
    )


@transaction.atomic
def request_runs(document_ids: list[int]) -> int:
    """Admin and page: run the workflow again (after a model was configured, or a failure).
    Only documents with extracted text; a re-run never duplicates what was filed."""
    documents = list(
        Document.objects.select_for_update(of=("self",))
        .select_related("folder")
        .defer("search")
        .filter(pk__in=document_ids, extraction_status=Document.Extraction.DONE)
        .exclude(extracted_text="")
    )
    for document in documents:
        mark_pending(document)
    return len(documents)


@transaction.atomic
def decide_client_proposal(principal: Principal, document_id: int, item_id: int, *, accept: bool) -> Document:
    """A person accepts (the client is linked, through the documents service) or dismisses the
    workflow's proposed client link; either way it is decided once and never proposed again."""
    from apps.documents.contracts import DocumentUpdate
    from apps.documents.services import get_document, update_document

    document = get_document(principal, document_id, action="change", with_text=False)
    item = (
        WorkflowItem.objects.select_for_update()
        .filter(pk=item_id, workflow__document=document, kind=WorkflowItem.Kind.CLIENT)
        .first()
    )
    if item is None or item.action != WorkflowItem.Action.PROPOSED:
        raise ProposalNotFound(str(_("This proposal was decided already or does not exist.")))
    if accept:
        ids = [c.pk for c in document.clients.all()] + [item.target_id]
        document = update_document(principal, document.pk, build(DocumentUpdate, client_ids=ids))
    item.action = WorkflowItem.Action.ACCEPTED if accept else WorkflowItem.Action.DISMISSED
    item.save(update_fields=["action", "updated_at"])
    workflow = DocumentWorkflow.objects.get(document=document)
    events.workflow_changed(document, workflow)
    return document


def request_run(principal: Principal, document_id: int) -> None:
    """The "run again" button: whoever may change the document may ask for a new run."""
    from apps.documents.services import get_document

    document = get_document(principal, document_id, action="change", with_text=False)
    request_runs([document.pk])


# --- the run ------------------------------------------------------------------------------------
class _Skip(Exception):
    """Raised inside the write transaction (which then rolls back) when the run must not write."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def run_workflow(document_id: int, content_hash: str | None = None) -> str | None:
    """One workflow run; returns the final status (None: the document is gone or was replaced)."""
    document = _load(document_id)
    if document is None or (content_hash and document.content_hash != content_hash):
        return None
    if not document.has_text:
        return _finish(document, Status.SKIPPED, "no_text")
    principal, reason = creator(document)
    if principal is None:
        return _finish(document, Status.SKIPPED, reason)
    if not visible_documents(principal).filter(pk=document.pk).exists():
        return _finish(document, Status.SKIPPED, "document_not_visible")
    model = default_model()
    if model is None:
        return _finish(document, Status.SKIPPED, "no_model_configured", model_label="")
    _start(document, model.label)
    usage = {"prompt_tokens": 0, "completion_tokens": 0}
    try:
        result = analysis.analyse(model, document, principal)
        usage = {"prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens}
        return _file(document.pk, document.content_hash, result.analysis, usage)
    except analysis.AnalysisFailed as exc:
        usage = {"prompt_tokens": exc.prompt_tokens, "completion_tokens": exc.completion_tokens}
        return _finish(document, Status.FAILED, exc.reason, exc.message, **usage)
    except _Skip as skip:
        return _finish(document, Status.SKIPPED, skip.reason, **usage)
    except DomainError as exc:
        message = f"{REASONS['write_failed']} {exc.message}"
        return _finish(document, Status.FAILED, "write_failed", message, **usage)
    except SoftTimeLimitExceeded:
        return _finish(document, Status.FAILED, "timeout", **usage)
    except Exception:  # a bug must end visibly, never leave the page saying "analysing"
        logger.exception("document workflow of document %s failed", document.pk)
        return _finish(document, Status.FAILED, "internal_error", **usage)


@transaction.atomic
def _file(document_id: int, content_hash: str, result: analysis.Analysis, usage: dict) -> str | None:
    """All writes of one run, or none of them."""
    locked = Document.objects.select_for_update(of=("self",)).filter(pk=document_id).first()
    if locked is None or locked.content_hash != content_hash:
        return None
    document = _load(document_id)
    principal, reason = creator(document)
    if principal is None or not visible_documents(principal).filter(pk=document_id).exists():
        raise _Skip(reason or "document_not_visible")
    workflow = DocumentWorkflow.objects.select_for_update().get(document=document)
    Filer(principal, document, workflow).file(result)
    workflow.status, workflow.reason, workflow.message = Status.DONE, "", ""
    workflow.summary = result.summary
    workflow.finished_at = timezone.now()
    workflow.prompt_tokens, workflow.completion_tokens = usage["prompt_tokens"], usage["completion_tokens"]
    workflow.save()
    events.workflow_changed(document, workflow)
    return Status.DONE


# --- reading (pages) ----------------------------------------------------------------------------
def timeline(document: Document) -> dict:
    """What the document page shows: the steps of the last run in order."""
    workflow = DocumentWorkflow.objects.filter(document=document).first()
    steps: list[dict] = []
    if document.extraction_status == Document.Extraction.DONE and document.extracted_at:
        steps.append({"kind": "extracted", "at": document.extracted_at})
    items: list[WorkflowItem] = []
    if workflow is not None:
        items = list(workflow.items.all())
        if workflow.status == Status.DONE:
            steps.append({"kind": "summarized", "at": workflow.finished_at})
        for item in items:
            steps.append(
                {
                    "kind": item.kind,
                    "item": item,
                    "at": item.updated_at,
                    "url": _target_url(item),
                    "reason_text": REASONS.get((item.payload or {}).get("reason", ""), ""),
                    "due": _due(item.payload or {}),
                }
            )
    return {
        "workflow": workflow,
        "steps": steps,
        "reason_text": REASONS.get(workflow.reason, "") if workflow is not None else "",
        "message": shown_message(workflow) if workflow is not None else "",
    }


def shown_message(workflow: DocumentWorkflow) -> str:
    """The run's message in the reader's language. The worker stores a reason's standard text in
    the language it ran in; that text is shown from the catalog instead. A specific message (a
    provider's error) is shown as stored."""
    standard = REASONS.get(workflow.reason)
    if standard is None or not workflow.message:
        return workflow.message
    renderings = set()
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            renderings.add(str(standard)[:500])
    return str(standard) if workflow.message in renderings else workflow.message


def _due(payload: dict) -> dt.date | dt.datetime | None:
    text = payload.get("due") or payload.get("due_date")
    try:
        return dt.date.fromisoformat(text) if len(text) == 10 else dt.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None


def _target_url(item: WorkflowItem) -> str | None:
    if not item.target_id:
        return None
    if item.target_type == "task":
        return task_url(item.target_id)
    if item.target_type == "client":
        return client_url(item.target_id)
    return event_url(item.target_id)
