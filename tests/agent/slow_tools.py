"""Test-only tools for cancellation and the phase budget, registered by the `slow_tools` fixture
and removed again afterwards."""

from __future__ import annotations

import threading
import time

from pydantic import Field

from apps.tools import registry
from apps.tools.args import Args
from apps.tools.context import ToolContext


class SlowArgs(Args):
    seconds: float = Field(default=10, description="How long to work at most.")


class Probe:
    def __init__(self) -> None:
        self.started = threading.Event()
        self.finished = threading.Event()
        self.saw_cancel = False


probe = Probe()


def cooperative(ctx: ToolContext, args: SlowArgs) -> dict:
    """Works until the run's stop signal fires (or the time is up)."""
    probe.started.set()
    try:
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            if ctx.is_cancelled():
                probe.saw_cancel = True
                return {"stopped": True}
            time.sleep(0.02)
        return {"stopped": False}
    finally:
        probe.finished.set()


def stubborn(ctx: ToolContext, args: SlowArgs) -> dict:
    """Ignores the stop signal."""
    probe.started.set()
    try:
        time.sleep(args.seconds)
        return {"slept": args.seconds}
    finally:
        probe.finished.set()


NAMES = ("test_slow_cooperative", "test_slow_stubborn")


def register() -> Probe:
    global probe
    probe = Probe()
    for name, handler in zip(NAMES, (cooperative, stubborn), strict=True):
        registry._REGISTRY.pop(name, None)
        registry.tool(name=name, family="agent", read_only=True, description="Test tool.")(handler)
    return probe


def unregister() -> None:
    for name in NAMES:
        registry._REGISTRY.pop(name, None)
