"""The one tool registry. Tools are declared next to their domain in `apps/<domain>/tools.py`:

    @tool(name="aufgaben_get_task", family="aufgaben", read_only=True, description="…")
    def get_task(ctx: ToolContext, args: GetTaskArgs) -> ToolOutput | dict: ...

The args model (pydantic v2) is taken from the handler's `args` annotation; the OpenAI
function-calling schema is derived from it (see `schema.py`).
"""

from __future__ import annotations

import importlib
import inspect
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from apps.tools.schema import strict_schema

SURFACES = frozenset({"native", "live", "api"})

# Families that are never install-gated (seed: core families). A tool that belongs to any of
# them stays available even when its module is uninstalled.
CORE_FAMILIES = frozenset(
    {
        "core",
        "email",
        "calendar",
        "aufgaben",
        "documents",
        "mandanten",
        "memory",
        "learning",
        "shell",
        "web",
        "channels",
        "images",
        "livestream",
        "widgets",
        "mini_apps",
        "scheduled_tasks",
        "specialists",
        "skills",
        "copilot_ui",
        "issue_reporting",
        "accounting",
        "google_meet",
        "context",
        "wiki",
    }
)

# Legacy family names accepted by catalog search/expansion.
FAMILY_ALIASES = {"social": "social_media", "social-media": "social_media", "tasks": "aufgaben"}


def normalize_family(name: str) -> str:
    key = name.strip().lower()
    return FAMILY_ALIASES.get(key, key.replace("-", "_"))


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args_model: type[BaseModel]
    handler: Callable[..., Any]
    read_only: bool
    family: str
    also_in: tuple[str, ...] = ()
    toolbox: str = ""
    module: str | None = None  # owning module slug for install gating; None for core
    surfaces: frozenset[str] = SURFACES
    reads_foreign_content: bool = False
    requires_user: bool = False
    # Derives the approval operation from the call's *content* (e.g. the SQL verb).
    operation_key: Callable[[BaseModel], str] | None = None
    schema: dict = field(default_factory=dict, compare=False)

    @property
    def families(self) -> tuple[str, ...]:
        return (self.family, *self.also_in)

    @property
    def is_gated(self) -> bool:
        return self.module is not None and not any(f in CORE_FAMILIES for f in self.families)

    @property
    def summary(self) -> str:
        first = self.description.strip().split("\n", 1)[0]
        return first.split(". ", 1)[0].rstrip(".") + "."

    def operation(self, args: BaseModel) -> str:
        if self.operation_key is not None:
            return self.operation_key(args)
        return "read" if self.read_only else "write"

    def openai_function(self) -> dict:
        """The `tools=[…]` entry for chat completions (strict mode)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.schema,
                "strict": True,
            },
        }


class RegistryError(Exception):
    pass


_REGISTRY: dict[str, Tool] = {}


def register(t: Tool) -> Tool:
    existing = _REGISTRY.get(t.name)
    if existing is not None and existing.handler is not t.handler:
        raise RegistryError(f"Two tools are named {t.name!r}.")
    unknown = set(t.surfaces) - SURFACES
    if unknown:
        raise RegistryError(f"{t.name}: unknown surfaces {sorted(unknown)}")
    _REGISTRY[t.name] = t
    return t


def tool(
    *,
    name: str,
    description: str,
    family: str,
    read_only: bool,
    also_in: Iterable[str] = (),
    toolbox: str = "",
    module: str | None = None,
    surfaces: Iterable[str] = SURFACES,
    reads_foreign_content: bool = False,
    requires_user: bool = False,
    operation_key: Callable[[BaseModel], str] | None = None,
):
    """Declare a tool. The handler is `(ctx, args) -> ToolOutput | JSON-able value`."""

    def decorate(handler: Callable[..., Any]) -> Callable[..., Any]:
        args_model = _args_model_of(handler)
        register(
            Tool(
                name=name,
                description=inspect.cleandoc(description),
                args_model=args_model,
                handler=handler,
                read_only=read_only,
                family=normalize_family(family),
                also_in=tuple(normalize_family(f) for f in also_in),
                toolbox=toolbox or normalize_family(family),
                module=module,
                surfaces=frozenset(surfaces),
                reads_foreign_content=reads_foreign_content,
                requires_user=requires_user,
                operation_key=operation_key,
                schema=strict_schema(args_model),
            )
        )
        return handler

    return decorate


def _args_model_of(handler: Callable[..., Any]) -> type[BaseModel]:
    annotation = handler.__annotations__.get("args")
    if isinstance(annotation, str):  # postponed annotations: resolve in the handler's module
        try:
            annotation = typing.get_type_hints(handler).get("args")
        except NameError as exc:
            raise RegistryError(f"{handler.__qualname__}: define the args model at module level") from exc
    model = annotation
    if not (inspect.isclass(model) and issubclass(model, BaseModel)):
        raise RegistryError(f"{handler.__qualname__}: annotate `args` with a pydantic model")
    return model


def get(name: str) -> Tool | None:
    return _REGISTRY.get(name)


def all_tools() -> list[Tool]:
    return sorted(_REGISTRY.values(), key=lambda t: (t.family, t.name))


def autodiscover() -> None:
    """Import `tools.py` of every project app so their @tool declarations register."""
    from django.apps import apps

    for config in apps.get_app_configs():
        if config.name.startswith("apps."):
            try:
                importlib.import_module(f"{config.name}.tools")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.tools":
                    raise
