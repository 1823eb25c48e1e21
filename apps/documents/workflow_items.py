"""Filing the work items of a document workflow as tasks and a calendar deadline, idempotently.

Every item gets a content signature (document + kind + normalized title + due). A re-run that
finds the signature does nothing; an open task with a strongly matching title (linked to the
document, or about the same client) is updated instead of duplicated. All writes go through the
tasks and calendar services as the document's creator, so their visibility rules apply.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import unicodedata
from difflib import SequenceMatcher
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.calendar import services as calendar
from apps.calendar.contracts import FiledEvent, FiledEventUpdate
from apps.calendar.errors import EventNotFound
from apps.calendar.models import CalendarEvent
from apps.clients import visibility as client_visibility
from apps.core.errors import InvalidInput
from apps.core.inputs import build
from apps.documents.analysis import Analysis, DeadlineSuggestion, DueDate, TaskSuggestion, due_date
from apps.documents.models import Document, DocumentWorkflow, WorkflowItem
from apps.tasks import services as tasks
from apps.tasks.contracts import FiledTask, TaskUpdate
from apps.tasks.models import Board, Task, TaskStatus

MATCH_THRESHOLD = 0.9
MAX_CANDIDATES = 500
_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


def normalize_title(title: str) -> str:
    """Casefolded, accents kept, punctuation and runs of whitespace folded to one space."""
    text = unicodedata.normalize("NFKC", title or "").casefold()
    return " ".join(_PUNCT.sub(" ", text).split())


def similarity(a: str, b: str) -> float:
    """Token-set similarity of two titles (word order and repeated words do not matter)."""
    left, right = normalize_title(a), normalize_title(b)
    if not left or not right:
        return 0.0
    if left == right:
        return 1.0
    return SequenceMatcher(
        None, " ".join(sorted(set(left.split()))), " ".join(sorted(set(right.split())))
    ).ratio()


def signature(document_id: int, kind: str, title: str, due: Any) -> str:
    due_text = due.isoformat() if isinstance(due, dt.date) else ""
    raw = f"{document_id}|{kind}|{normalize_title(title)}|{due_text}"
    return hashlib.sha256(raw.encode()).hexdigest()


def match_client(principal: Principal, hint: str):
    """The one visible client the text names: its client number or Steuernummer exactly, else its
    name (normalized) equal or nearly so. Several candidates alike: none (a guess is no proposal)."""
    text = " ".join(hint.split())[:200]
    if not text:
        return None
    visible = client_visibility.visible_clients(principal).only("id", "name", "client_number")
    exact = list(visible.filter(Q(client_number__iexact=text) | Q(tax_number=text))[:2])
    if len(exact) == 1:
        return exact[0]
    words = normalize_title(text).split()
    if not words:
        return None
    candidates = visible.filter(name__icontains=max(words, key=len))[:MAX_CANDIDATES]
    scored = sorted(((similarity(text, c.name), c) for c in candidates), key=lambda p: -p[0])
    if not scored or scored[0][0] < MATCH_THRESHOLD:
        return None
    if len(scored) > 1 and scored[1][0] >= MATCH_THRESHOLD:
        return None
    return scored[0][1]


class Filer:
    """Files one run's items for one document; the caller holds the transaction."""

    def __init__(self, principal: Principal, document: Document, workflow: DocumentWorkflow) -> None:
        self.principal = principal
        self.document = document
        self.workflow = workflow
        self.items = {i.signature: i for i in workflow.items.select_for_update()}
        self.link = reverse("documents:detail", args=[document.pk])
        self.label = document.title[:200]
        self.personal = document.folder is not None and document.folder.is_personal
        self.client_id = self._client_id()
        self.claimed: set[int] = set()

    def _client_id(self) -> int | None:
        """The document's first related client, when the creator may see it."""
        ids = sorted(c.pk for c in self.document.clients.all())
        if not ids:
            return None
        return (
            client_visibility.visible_clients(self.principal)
            .filter(pk__in=ids)
            .order_by("pk")
            .values_list("pk", flat=True)
            .first()
        )

    def file(self, analysis: Analysis) -> list[WorkflowItem]:
        done: list[WorkflowItem] = []
        seen: set[str] = set()
        for suggestion in analysis.tasks:
            sig = signature(self.document.pk, WorkflowItem.Kind.TASK, suggestion.title, suggestion.due_date)
            if sig not in seen:
                seen.add(sig)
                done.append(self._task(sig, suggestion))
        when = due_date(analysis.deadline) if analysis.deadline is not None else None
        if when is not None:
            done.append(self._deadline(analysis.deadline, when))
        proposal = self._client_proposal(analysis.client)
        if proposal is not None:
            done.append(proposal)
        return done

    # --- the client link ----------------------------------------------------------------------
    def _client_proposal(self, hint: str | None) -> WorkflowItem | None:
        """Propose linking the client the document names, when it has no client yet and exactly
        one visible client matches. A proposal once accepted or dismissed is never made again."""
        if self.client_id is not None or not (hint or "").strip():
            return None
        client = match_client(self.principal, hint)
        if client is None:
            return None
        kind = WorkflowItem.Kind.CLIENT
        sig = signature(self.document.pk, kind, str(client.pk), None)
        known = self.items.get(sig)
        if known is not None:
            return known
        payload = {"client_name": client.name, "client_number": client.client_number, "hint": hint[:200]}
        item = WorkflowItem(workflow=self.workflow, kind=kind, signature=sig, title=client.name[:300])
        item.action, item.target_type, item.target_id, item.payload = (
            WorkflowItem.Action.PROPOSED,
            "client",
            client.pk,
            payload,
        )
        item.save()
        self.items[sig] = item
        return item

    # --- bookkeeping --------------------------------------------------------------------------
    def _record(
        self, sig: str, kind: str, title: str, action: str, target: Any, payload: dict
    ) -> WorkflowItem:
        item = self.items.get(sig) or WorkflowItem(workflow=self.workflow, kind=kind, signature=sig)
        item.title = title[:300]
        item.action = action
        item.target_type = "" if target is None else ("task" if kind == WorkflowItem.Kind.TASK else "event")
        item.target_id = getattr(target, "pk", None)
        item.payload = payload
        item.save()
        self.items[sig] = item
        return item

    def _known(self, sig: str) -> WorkflowItem | None:
        """An item this document already filed (a skipped one is retried)."""
        item = self.items.get(sig)
        if item is None or item.action == WorkflowItem.Action.SKIPPED:
            return None
        item.action = WorkflowItem.Action.UNCHANGED
        item.save(update_fields=["action", "updated_at"])
        return item

    # --- tasks --------------------------------------------------------------------------------
    def _board_id(self) -> int | None:
        """A personal document's tasks go to the creator's private board, never a shared one."""
        if not self.personal:
            return None
        user = self.principal.user
        boards = tasks.list_boards(self.principal)
        private = (
            b.pk
            for b in boards
            if b.visibility == Board.Visibility.PRIVATE and user and b.owner_id == user.pk
        )
        return next(private, 0)

    def _task(self, sig: str, suggestion: TaskSuggestion) -> WorkflowItem:
        known = self._known(sig)
        if known is not None:
            if known.target_id:
                self.claimed.add(known.target_id)
            return known
        payload = {
            "due_date": suggestion.due_date.isoformat() if suggestion.due_date else None,
            "assignee_hint": suggestion.assignee_hint or None,
        }
        match = self._matching_task(suggestion.title)
        if match is not None:
            task, changed = self._update_task(match, suggestion)
            action = WorkflowItem.Action.UPDATED if changed else WorkflowItem.Action.UNCHANGED
            return self._record(sig, WorkflowItem.Kind.TASK, task.title, action, task, payload)
        board_id = self._board_id()
        if board_id == 0:
            payload["reason"] = "no_private_board"
            return self._record(
                sig, WorkflowItem.Kind.TASK, suggestion.title, WorkflowItem.Action.SKIPPED, None, payload
            )
        task = self._create_task(suggestion, board_id)
        self.claimed.add(task.pk)
        return self._record(
            sig, WorkflowItem.Kind.TASK, task.title, WorkflowItem.Action.CREATED, task, payload
        )

    def _matching_task(self, title: str) -> Task | None:
        """The best strongly matching open task linked to this document or about its client."""
        linked = Q(source_type=Task.Source.DOCUMENT, source_id=str(self.document.pk))
        if self.client_id is not None:
            linked |= Q(client_id=self.client_id)
        candidates = (
            tasks.visible_tasks(self.principal)
            .filter(linked)
            .exclude(status__category=TaskStatus.Category.DONE)
            .exclude(pk__in=self.claimed)
            .order_by("-updated_at")
            .values_list("pk", "title")[:MAX_CANDIDATES]
        )
        best, best_score = None, MATCH_THRESHOLD
        for pk, other in candidates:
            score = similarity(title, other)
            if score >= best_score and (best is None or score > best_score):
                best, best_score = pk, score
        if best is None:
            return None
        self.claimed.add(best)
        return tasks.get_task(self.principal, best)

    def _update_task(self, task: Task, suggestion: TaskSuggestion) -> tuple[Task, bool]:
        changes: dict[str, Any] = {}
        if suggestion.due_date and task.due_date != suggestion.due_date:
            changes["due_date"] = suggestion.due_date.isoformat()
        if task.client_id is None and self.client_id is not None:
            changes["client_id"] = self.client_id
        if self.link not in (task.description or "") and task.source_url != self.link:
            note = f"{self.label}: {self.link}"
            changes["description"] = f"{task.description}\n\n{note}".strip()
        if not changes:
            return task, False
        return tasks.update_task(self.principal, task.pk, build(TaskUpdate, **changes)), True

    def _assignee_id(self, hint: str | None) -> int | None:
        """A person named by the model, when exactly one active person matches the name."""
        text = (hint or "").strip()
        if not text:
            return None
        users = get_user_model().objects.filter(is_active=True)
        found = list(
            users.filter(Q(full_name__iexact=text) | Q(email__iexact=text)).values_list("pk", flat=True)[:2]
        )
        return found[0] if len(found) == 1 else None

    def _create_task(self, suggestion: TaskSuggestion, board_id: int | None) -> Task:
        description = suggestion.description
        if suggestion.assignee_hint:
            description = f"{description}\n\n→ {suggestion.assignee_hint}".strip()
        values = {
            "title": suggestion.title,
            "description": description,
            "due_date": suggestion.due_date.isoformat() if suggestion.due_date else None,
            "board_id": board_id,
            "client_id": self.client_id,
            "source_type": Task.Source.DOCUMENT,
            "source_id": str(self.document.pk),
            "source_label": self.label,
            "source_url": self.link,
            "source_context_snapshot": {"document_id": self.document.pk, "workflow": True},
        }
        assignee_id = self._assignee_id(suggestion.assignee_hint)
        if assignee_id is not None:
            try:
                return tasks.create_task(self.principal, build(FiledTask, assignee_id=assignee_id, **values))
            except InvalidInput as exc:  # the person cannot see the board: file it unassigned
                if "assignee_id" not in ((exc.details or {}).get("field_errors") or {}):
                    raise
        return tasks.create_task(self.principal, build(FiledTask, **values))

    # --- the deadline -------------------------------------------------------------------------
    def _deadline(self, suggestion: DeadlineSuggestion, when: DueDate) -> WorkflowItem:
        kind = WorkflowItem.Kind.DEADLINE
        due = when.due
        sig = signature(self.document.pk, kind, suggestion.title, due)
        known = self._known(sig)
        if known is not None:
            return known
        payload = {
            "due": due.isoformat(),
            "all_day": when.all_day,
            "legal_basis": when.legal_basis,
            "criticality": suggestion.criticality,
        }
        values: dict[str, Any] = {
            "title": suggestion.title,
            "start": due.isoformat(),
            "all_day": when.all_day,
            "legal_basis": when.legal_basis,
            "criticality": suggestion.criticality,
            "source_label": self.label,
            "client_id": self.client_id,
            "description": f"{self.label}: {self.link}",
        }
        if when.rule_code:  # computed by apps.deadlines: keep how, for the Fristenbuch
            payload["explanation"] = when.explanation
            values["description"] += f"\n{when.explanation}"
            values.update(trigger_date=when.trigger_date.isoformat(), rule_code=when.rule_code)
        previous = self._previous_deadline()
        if previous is not None:  # the document's one deadline moved or was renamed
            item, event = previous
            change = build(
                FiledEventUpdate,
                **values,
                end=None,
                reason_code="document_names_new_date",
                reason_params={"title": self.label},
            )
            event = calendar.update_event(self.principal, event.pk, change)
            self.items.pop(item.signature, None)
            item.signature = sig
            self.items[sig] = item
            return self._record(sig, kind, event.title, WorkflowItem.Action.UPDATED, event, payload)
        if self.personal:
            values["visibility"] = CalendarEvent.Visibility.PRIVATE
        filed = build(
            FiledEvent,
            kind=CalendarEvent.Kind.DEADLINE,
            source_origin=CalendarEvent.Source.DOCUMENT,
            **values,
        )
        event = calendar.create_event(self.principal, filed)
        return self._record(sig, kind, event.title, WorkflowItem.Action.CREATED, event, payload)

    def _previous_deadline(self) -> tuple[WorkflowItem, CalendarEvent] | None:
        for item in self.items.values():
            if item.kind == WorkflowItem.Kind.DEADLINE and item.target_id:
                try:
                    return item, calendar.get_event(self.principal, item.target_id)
                except EventNotFound:  # deleted by someone: a new deadline is filed
                    return None
        return None
