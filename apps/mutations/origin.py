"""Who and what is causing the mutations recorded right now.

Two scopes, both read by `record_mutation()`:

- The **operation**: one user-level action (a page request, one tool call, a background job and
  what it was enqueued by). Every event carries its operation id and the acting user, so an open
  page can show one notice per operation and none for the viewer's own changes. The request
  middleware, the tool dispatcher and the Celery signals below open operations; nested scopes
  join the enclosing one.
- The **origin**: the tool call / agent run. The tool dispatcher opens a `mutation_origin(...)`
  around each execution; services that record a mutation event read it to stamp the origin and
  append the event to `collected`, so the dispatcher can return `mutation_event_id` and the UI
  actions without every tool plumbing them through. Origins nest (the `tool_execute` meta-tool
  dispatches its target inside its own call): what an inner origin collected is handed to the
  enclosing one when the inner block succeeds, so the outer result names the same events as a
  direct call of the target would.
"""

from __future__ import annotations

import contextlib
import contextvars
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

OPERATION_HEADER = "clapilot_operation"
ACTOR_HEADER = "clapilot_actor"


@dataclass
class Operation:
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    # The acting user's id, or a callable resolving it on first use (a request's user is lazy).
    actor: int | Callable[[], int | None] | None = None

    @property
    def actor_id(self) -> int | None:
        if callable(self.actor):
            self.actor = self.actor()
        return self.actor


@dataclass
class MutationOrigin:
    tool: str = ""
    run_id: str | None = None
    collected: list[Any] = field(default_factory=list)  # MutationEvent rows recorded inside


_current: contextvars.ContextVar[MutationOrigin | None] = contextvars.ContextVar(
    "mutation_origin", default=None
)
_operation: contextvars.ContextVar[Operation | None] = contextvars.ContextVar(
    "mutation_operation", default=None
)


def current_origin() -> MutationOrigin | None:
    return _current.get()


def current_operation() -> Operation | None:
    return _operation.get()


@contextlib.contextmanager
def operation(
    actor: int | Callable[[], int | None] | None = None,
    *,
    operation_id: str | None = None,
    fresh: bool = False,
) -> Iterator[Operation]:
    """One operation around a block. Joins the enclosing operation unless `fresh` (each tool call
    of an agent run is its own); a fresh one keeps the enclosing actor when it names none."""
    outer = _operation.get()
    if outer is not None and not fresh:
        yield outer
        return
    if actor is None and outer is not None:
        actor = outer.actor
    token = _operation.set(Operation(id=operation_id or uuid.uuid4().hex, actor=actor))
    try:
        yield _operation.get()
    finally:
        _operation.reset(token)


@contextlib.contextmanager
def mutation_origin(
    tool: str = "", run_id: str | None = None, actor_id: int | None = None
) -> Iterator[MutationOrigin]:
    parent = _current.get()
    origin = MutationOrigin(tool=tool, run_id=run_id)
    token = _current.set(origin)
    try:
        # The outermost tool call is one operation; a tool it dispatches belongs to it.
        with operation(actor_id, fresh=parent is None):
            yield origin
    finally:
        _current.reset(token)
    if parent is not None:  # not reached when the block raised (its changes rolled back)
        parent.collected.extend(origin.collected)


class OperationMiddleware:
    """Each request is one operation of its signed-in user (resolved only if an event is
    recorded; DRF's authentication sets the same `request.user` later for API keys)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        def actor() -> int | None:
            user = getattr(request, "user", None)
            return user.pk if user is not None and user.is_authenticated else None

        with operation(actor):
            return self.get_response(request)


# --- Celery: a job belongs to the operation that enqueued it (an upload and its extraction) ---
_job_tokens: dict[str, contextvars.Token] = {}


def _on_publish(headers: dict | None = None, **_: Any) -> None:
    op = _operation.get()
    if op is not None and headers is not None:
        headers[OPERATION_HEADER] = op.id
        headers[ACTOR_HEADER] = op.actor_id


def _on_prerun(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    outer = _operation.get()
    if outer is not None or task_id is None:  # eager run inside its caller: joins its operation
        return
    request = getattr(task, "request", None)
    op_id = getattr(request, OPERATION_HEADER, None) if request is not None else None
    actor = getattr(request, ACTOR_HEADER, None) if request is not None else None
    op = Operation(
        id=op_id if isinstance(op_id, str) and op_id else uuid.uuid4().hex,
        actor=actor if isinstance(actor, int) and not isinstance(actor, bool) else None,
    )
    _job_tokens[task_id] = _operation.set(op)


def _on_postrun(task_id: str | None = None, **_: Any) -> None:
    token = _job_tokens.pop(task_id, None) if task_id is not None else None
    if token is not None:
        try:
            _operation.reset(token)
        except ValueError:  # set in another context (should not happen): just clear it
            _operation.set(None)


def connect_celery_signals() -> None:
    from celery import signals

    signals.before_task_publish.connect(_on_publish, weak=False, dispatch_uid="mutations.operation.publish")
    signals.task_prerun.connect(_on_prerun, weak=False, dispatch_uid="mutations.operation.prerun")
    signals.task_postrun.connect(_on_postrun, weak=False, dispatch_uid="mutations.operation.postrun")
