"""The one result shape every surface returns (agent runtime, REST, live voice, CLI)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class ToolOutput:
    """What a handler may return when it wants to add UI hints to its output."""

    output: Any = None
    ui_actions: list[dict] = field(default_factory=list)
    trigger_reload: bool = False
    refresh_topic: str = ""


@dataclass
class ToolResult:
    ok: bool
    output: Any = None
    code: str | None = None
    message: str = ""
    ui_actions: list[dict] = field(default_factory=list)
    trigger_reload: bool = False
    refresh_topic: str = ""
    mutation_event_id: int | None = None

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def failure(cls, code: str, message: str, output: Any = None) -> ToolResult:
        return cls(ok=False, code=code, message=message, output=output)
