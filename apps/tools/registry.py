"""The one tool registry. Tools are declared next to their domain in `apps/<domain>/tools.py`:

    @tool(name="aufgaben_get_task", read_only=True)
    def get_task(ctx: ToolContext, args: GetTaskArgs) -> ToolOutput | dict:
        "Get one task with its comments."

The args model (pydantic v2) is taken from the handler's `args` annotation; the OpenAI
function-calling schema is derived from it (see `schema.py`). The description the model reads is
`description=`, else the handler's docstring (a paragraph's lines joined by spaces); the family is
`family=`, else the one tool family the handler's app declares.

Each tool also declares what the approval step (`apps.tools.approval`) needs: its `operations`
(the rows of the rights table), how a call's operation follows from its validated content
(`operation_key`, or one fixed `operation`), the `default` classification per operation (run or
stage), a `preflight` for hard limits, a `preview` in words for the person who decides, the object
a call touches (`scope`, for narrowed standing approvals), `always_ask` (changes to agents) and
the per-agent configuration model (`config_model`).

A tool declares its output model (`output=`, a pydantic model in the domain's `contracts.py`):
the dispatcher checks each successful output against it (`apps.tools.dispatcher`), and its JSON
schema is published beside the arguments' (`output_schema`: tool catalog, `/api/v1/tools`, MCP
`outputSchema`, the CLI's `describe`). The output itself is passed on as the handler built it.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from pydantic import BaseModel

from apps.core import plugins
from apps.core.plugins import ToolFamily
from apps.core.surfaces.api import docstring_parts
from apps.tools.schema import strict_schema

SURFACES = frozenset({"native", "live", "api"})
# The live-voice surface is opt-in per tool: reads and harmless writes only, never deletes.
DEFAULT_SURFACES = frozenset({"native", "api"})
WITH_LIVE = SURFACES  # `surfaces=WITH_LIVE`: a read or a harmless write opts into live voice

# The classification of an operation without a policy (the seed's Vorgabe).
RUN, STAGE = "run", "stage"
CLASSIFICATIONS = frozenset({RUN, STAGE})
# The standard rule for operations a tool does not classify itself: deletes, mass changes and
# external side effects wait for a person; reads and ordinary creates and updates run.
STAGED_BY_DEFAULT = frozenset(
    {"delete", "mass_update", "mass_delete", "cancel", "share", "send", "external", "destroy"}
)
# The operation of a writing tool without a declaration, from the verb in its name.
_VERBS = {
    "create": "create",
    "add": "create",
    "propose": "create",
    "store": "create",
    "update": "update",
    "move": "update",
    "complete": "update",
    "revoke": "update",
    "rename": "update",
    "delete": "delete",
    "remove": "delete",
    "cancel": "cancel",
    "execute": "execute",
}


def derived_operation(name: str, read_only: bool) -> str:
    if read_only:
        return "read"
    return next((_VERBS[w] for w in name.split("_") if w in _VERBS), "write")


def families() -> dict[str, ToolFamily]:
    """Every tool family the installed apps declare on their AppConfig (`tool_families`)."""
    return plugins.tool_families()


def normalize_family(name: str) -> str:
    key = name.strip().lower().replace("-", "_")
    for family in families().values():
        if key in family.aliases:
            return family.name
    return key


def start_families() -> frozenset[str]:
    """The families every run's toolbox starts with; the rest is one `request_toolbox` away."""
    return frozenset(f.name for f in families().values() if f.start)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args_model: type[BaseModel]
    handler: Callable[..., Any]
    read_only: bool
    family: str
    also_in: tuple[str, ...] = ()
    surfaces: frozenset[str] = DEFAULT_SURFACES
    reads_foreign_content: bool = False
    requires_user: bool = False
    # API-key scopes that reach this tool without `tools:execute` (e.g. memory:read for
    # memory_search): a key holding one of them may list and call it, and only it.
    api_scopes: frozenset[str] = frozenset()
    # Derives the approval operation from the call's *content* (e.g. the SQL verb); without it
    # every call has the tool's one operation (`operations`).
    operation_key: Callable[[BaseModel], str] | None = None
    # The rows of the rights table; the default classification of each (RUN or STAGE).
    operations: tuple[str, ...] = ()
    defaults: Mapping[str, str] = field(default_factory=dict, compare=False)
    # Hard limits only (a foreign table, a path outside the workspace): raises a DomainError.
    # Not about the operation: that is the approval step's job.
    preflight: Callable[[BaseModel, Any], None] | None = None
    # Changes to agents: every call needs a person's individual approval (no `*`, no standing one).
    always_ask: bool = False
    # The pydantic model of this tool's per-agent configuration (None: the tool has none).
    config_model: type[BaseModel] | None = None
    # The preview in words a person reads before deciding (`(args, ctx) -> str`, localized; may
    # raise the domain's not-found error when the object is not visible); None: a generic text.
    preview: Callable[[BaseModel, Any], str] | None = None
    # The object a call touches, `(args, ctx) -> (kind, id) | None` (a board, folder, client): a
    # standing approval narrowed to one object matches only calls that touch it.
    scope: Callable[[BaseModel, Any], tuple[str, int] | None] | None = None
    # Writing tools run in one transaction; a meta-tool whose inner dispatch opens its own
    # (tool_execute) does not, so a staged inner call is not rolled back with the outer failure.
    atomic: bool = True
    # What people read for this tool (chat tool steps), a lazily translated string; None: the
    # chat humanizes the name (apps.agent.labels).
    label: Any = None
    schema: dict = field(default_factory=dict, compare=False)
    # The declared shape of a successful call's output (None: not declared yet) and its JSON
    # schema (serialization mode, `$defs` kept).
    output_model: type[BaseModel] | None = None
    output_schema: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def families(self) -> tuple[str, ...]:
        return (self.family, *self.also_in)

    @property
    def module(self) -> str | None:
        """The installable module that gates this tool: its family's, unless another family it
        belongs to is never gated (declared without a module)."""
        declared = families()
        modules = [declared[f].module if f in declared else None for f in self.families]
        return None if None in modules else modules[0]

    @property
    def is_gated(self) -> bool:
        return self.module is not None

    @property
    def summary(self) -> str:
        first = self.description.strip().split("\n", 1)[0]
        return first.split(". ", 1)[0].rstrip(".") + "."

    def reachable_with(self, scopes: frozenset[str] | None) -> bool:
        """May a caller with these API-key scopes use this tool? None: not a key (session, device)."""
        return scopes is None or "tools:execute" in scopes or bool(self.api_scopes & scopes)

    def operation(self, args: BaseModel) -> str:
        if self.operation_key is not None:
            return self.operation_key(args)
        return self.operations[0]

    def default_for(self, operation: str) -> str:
        """RUN or STAGE without a policy: the tool's own classification, else the standard rule."""
        declared = self.defaults.get(operation)
        if declared is not None:
            return declared
        if self.read_only or operation == "read":
            return RUN
        return STAGE if operation in STAGED_BY_DEFAULT else RUN

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
    if not t.operations:
        raise RegistryError(f"{t.name}: declare its operations")
    if t.operation_key is None and len(t.operations) != 1:
        raise RegistryError(f"{t.name}: several operations need an operation_key")
    wrong = {op: c for op, c in t.defaults.items() if op not in t.operations or c not in CLASSIFICATIONS}
    if wrong:
        raise RegistryError(f"{t.name}: defaults for unknown operations or classifications {wrong}")
    if "live" in t.surfaces and any(t.default_for(op) == STAGE for op in t.operations):
        raise RegistryError(f"{t.name}: the live surface never gets operations that wait for a person")
    _REGISTRY[t.name] = t
    return t


def tool(
    *,
    name: str,
    read_only: bool,
    description: str | None = None,
    family: str | None = None,
    also_in: Iterable[str] = (),
    surfaces: Iterable[str] = DEFAULT_SURFACES,
    reads_foreign_content: bool = False,
    requires_user: bool = False,
    api_scopes: Iterable[str] = (),
    operation_key: Callable[[BaseModel], str] | None = None,
    operation: str | None = None,
    operations: Iterable[str] = (),
    default: str | Mapping[str, str] | None = None,
    preflight: Callable[[BaseModel, Any], None] | None = None,
    always_ask: bool = False,
    config_model: type[BaseModel] | None = None,
    preview: Callable[[BaseModel, Any], str] | None = None,
    scope: Callable[[BaseModel, Any], tuple[str, int] | None] | None = None,
    atomic: bool = True,
    label: Any = None,
    output: type[BaseModel] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a tool. The handler is `(ctx, args) -> ToolOutput | JSON-able value`. `label`: the
    human name the chat shows for a call (e.g. `gettext_lazy("Create task")`). `output`: the
    pydantic model a successful call's output validates against (the domain's `Output` class).

    Approval data: `operation` (the one operation of every call; default from the read-only flag
    and the verb in the name), or `operations` with an `operation_key` deriving a call's operation
    from its validated arguments; `default`: RUN or STAGE for every operation, or per operation
    (else the standard rule); `surfaces` default to native + api (the live surface is opt-in)."""

    def decorate(handler: Callable[..., Any]) -> Callable[..., Any]:
        args_model = _args_model_of(handler)
        ops = tuple(operations) or (operation or derived_operation(name, read_only),)
        defaults = dict.fromkeys(ops, default) if isinstance(default, str) else dict(default or {})
        register(
            Tool(
                name=name,
                description=_description_of(name, description, handler),
                args_model=args_model,
                handler=handler,
                read_only=read_only,
                family=normalize_family(family or _app_family_of(name, handler)),
                also_in=tuple(normalize_family(f) for f in also_in),
                surfaces=frozenset(surfaces),
                reads_foreign_content=reads_foreign_content,
                requires_user=requires_user,
                api_scopes=frozenset(api_scopes),
                operation_key=operation_key,
                operations=ops,
                defaults=defaults,
                preflight=preflight,
                always_ask=always_ask,
                config_model=config_model,
                preview=preview,
                scope=scope,
                atomic=atomic,
                label=label,
                schema=strict_schema(args_model),
                output_model=output,
                output_schema=output_schema_of(name, output),
            )
        )
        return handler

    return decorate


def staged_tool(
    *,
    name: str,
    operation: str,
    output: type[BaseModel],
    preview: Callable[..., str],
    scope: Callable[..., tuple[str, int] | None] | None = None,
    **declared: Any,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A tool whose side effect waits for a person's decision unless a standing approval covers it
    (deleting, cancelling, sharing): written, staged by default, with the preview the person reads
    and the scope a standing approval may name."""
    return tool(
        name=name,
        read_only=False,
        operation=operation,
        default="stage",
        output=output,
        preview=preview,
        scope=scope,
        **declared,
    )


def output_schema_of(name: str, model: type[BaseModel] | None) -> dict[str, Any] | None:
    """The JSON schema a successful output follows (what the output serializes to)."""
    if model is None:
        return None
    if not (inspect.isclass(model) and issubclass(model, BaseModel)):
        raise RegistryError(f"{name}: output= takes a pydantic model")
    return model.model_json_schema(mode="serialization")


def _description_of(name: str, description: str | None, handler: Callable[..., Any]) -> str:
    if description is not None:
        return inspect.cleandoc(description)
    first, rest = docstring_parts(handler.__doc__)
    if not first:
        raise RegistryError(f"{name}: give a description (or a docstring on the handler)")
    return f"{first}\n\n{rest}" if rest else first


def _app_family_of(name: str, handler: Callable[..., Any]) -> str:
    """The one tool family the handler's app declares (`DomainApp.tool_families`)."""
    config = apps.get_containing_app_config(handler.__module__)
    declared = getattr(config, "tool_families", ())
    if len(declared) != 1:
        raise RegistryError(f"{name}: its app declares {len(declared)} tool families, pass family=")
    return declared[0].name


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
    """Import `tools.py` of every installed app so their @tool declarations register."""
    from django.utils.module_loading import autodiscover_modules

    autodiscover_modules("tools")
