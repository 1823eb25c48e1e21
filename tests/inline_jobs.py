"""Jobs that run in the test process instead of going to the broker.

Services send their jobs by name (`apps.core.queue.enqueue`); `run_inline(monkeypatch, name, fn)`
makes the job `name` run as `fn(*args)` where it would have been sent, i.e. still after the commit,
while every other job goes its usual way. Calls chain, so two fixtures may each divert one job."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def run_inline(monkeypatch, task_name: str, fn: Callable[..., Any]) -> None:
    from apps.core import queue

    sent_before = queue.send

    def send(name: str, *args: Any, queue: str | None = None, **kwargs: Any) -> None:
        if name == task_name:
            fn(*args, **kwargs)
        else:
            sent_before(name, *args, queue=queue, **kwargs)

    monkeypatch.setattr(queue, "send", send)
