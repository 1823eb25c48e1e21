"""Which tool call / agent run is causing the mutations recorded right now.

The tool dispatcher opens a `mutation_origin(...)` around each execution; services that record a
mutation event read it to stamp the origin and append the event to `collected`, so the dispatcher
can return `mutation_event_id` and the UI actions without every tool plumbing them through.
Origins nest (the `tool_execute` meta-tool dispatches its target inside its own call): what an
inner origin collected is handed to the enclosing one when the inner block succeeds, so the outer
result names the same events as a direct call of the target would.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class MutationOrigin:
    tool: str = ""
    run_id: str | None = None
    collected: list[Any] = field(default_factory=list)  # MutationEvent rows recorded inside


_current: contextvars.ContextVar[MutationOrigin | None] = contextvars.ContextVar(
    "mutation_origin", default=None
)


def current_origin() -> MutationOrigin | None:
    return _current.get()


@contextlib.contextmanager
def mutation_origin(tool: str = "", run_id: str | None = None) -> Iterator[MutationOrigin]:
    parent = _current.get()
    origin = MutationOrigin(tool=tool, run_id=run_id)
    token = _current.set(origin)
    try:
        yield origin
    finally:
        _current.reset(token)
    if parent is not None:  # not reached when the block raised (its changes rolled back)
        parent.collected.extend(origin.collected)
