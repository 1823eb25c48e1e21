"""The one way an app plugs itself into Clapilot: its `AppConfig` derives from `DomainApp` and
declares what it adds. Nothing central lists the domains; adding one touches only
`INSTALLED_APPS`.

    class TasksConfig(DomainApp):
        name = "apps.tasks"
        navigation = [NavEntry("tasks", _("Tasks"), "tasks:board", order=20)]
        announce = {"aufgaben.task.created": _("Task created")}
        tool_families = [ToolFamily("aufgaben", start=True, aliases=("tasks",))]
        periodic_jobs = [PeriodicJob("Aufgaben: Wiedervorlage fällig", "apps.tasks.jobs.resurface")]
        extends = {"clients.page_sections": ["apps.tasks.client_page.section"]}

Extension points that belong to one domain (the agent's context providers, the knowledge
store's source loaders, the client page's sections …) are declared by their owner with the type
a contribution must have (`extension_points = {"page_sections": ExtensionPoint(Callable)}`),
named `"<owner>.<point>"` and filled through `extends`, with dotted paths that are imported only
when the owner asks for them, so a declaration never creates an import between apps. The
start-up check (`apps.core.checks`) rejects unknown names and wrong types.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.apps import AppConfig, apps
from django.utils.module_loading import import_string, module_has_submodule


@dataclass(frozen=True)
class NavEntry:
    """One entry of the main navigation; `order` sorts across apps (lower first)."""

    key: str
    label: Any  # a lazy translation
    url_name: str
    order: int = 100
    # Dotted paths, imported when the navigation is drawn. `visible(user) -> bool` hides the entry
    # from people it does not serve; `badge(user) -> int` is a count shown beside the label (0:
    # none), refreshed live when an event of one of `badge_topics` (refresh topics, or the dotted
    # path of a function returning them) arrives.
    visible: str | None = None
    badge: str | None = None
    badge_topics: tuple[str, ...] | str = ()

    def topics(self) -> tuple[str, ...]:
        if isinstance(self.badge_topics, str):
            return tuple(import_string(self.badge_topics)())
        return self.badge_topics


@dataclass(frozen=True)
class ToolFamily:
    """A family of agent tools. `module` is the installable module that gates it (None: never
    gated); `start` puts it in the toolbox every run starts with; `aliases` are older names the
    catalog still accepts."""

    name: str
    module: str | None = None
    start: bool = False
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class PeriodicJob:
    """A job an app wants beat to run (registered idempotently at start by
    `apps.core.services.ensure_periodic_tasks`, the one writer of beat rows; admins may pause or
    retime it). `protected`: a bundled job the admin may not delete (`apps.core.models.ProtectedJob`)."""

    name: str
    task: str
    every_seconds: int | None = None
    crontab: str | None = None  # "minute hour day_of_month month day_of_week", in TIME_ZONE
    kwargs: dict[str, Any] = field(default_factory=dict)
    protected: bool = False


@dataclass(frozen=True)
class ExtensionPoint:
    """An extension point an app owns, named "<owner label>.<name>" by its key in the owner's
    `extension_points`. `contract` is what every contribution must be: a class (an instance of
    it; `collections.abc.Callable` for functions, `Mapping` for tables; a `Protocol` is checked
    by its members), or the dotted path of one when importing it in `apps.py` would load models.
    `single`: at most one contribution (a step with one implementation)."""

    contract: Any
    doc: str = ""
    single: bool = False

    def contract_class(self) -> type:
        contract = import_string(self.contract) if isinstance(self.contract, str) else self.contract
        if not isinstance(contract, type):
            raise ImproperlyDeclared(f"an extension point's contract must be a class, got {contract!r}")
        return contract

    def accepts(self, value: Any) -> bool:
        contract = self.contract_class()
        if getattr(contract, "_is_protocol", False) and not getattr(contract, "_is_runtime_protocol", False):
            return all(hasattr(value, name) for name in _protocol_members(contract))
        return isinstance(value, contract)


def _protocol_members(protocol: type) -> set[str]:
    members: set[str] = set()
    for base in protocol.__mro__:
        if base is object or not getattr(base, "_is_protocol", False) or base.__name__ == "Protocol":
            continue
        members |= {n for n in vars(base) if not n.startswith("_")}
        members |= set(getattr(base, "__annotations__", {}))
    return members


class DomainApp(AppConfig):
    """Base of every Clapilot app config. All attributes are optional."""

    # Django picks an apps.py's config among the AppConfig subclasses it defines or imports:
    # this base never, each subclass always (see __init_subclass__).
    default = False
    # The app's page/API routes: "<app>.urls" when that module exists, unless set to "" (none).
    url_module: str | None = None
    # The app's REST routes, mounted once under `api/v1/` in the app's URL namespace:
    # "<app>.api_urls" when that module exists, unless set to "" (none).
    api_urls: str | None = None
    # The app's WebSocket routes (a module with `websocket_urlpatterns`): "<app>.routing" when that
    # module exists, unless set to "" (none). Mounted by apps.core.realtime, behind its authenticator.
    websocket_urls: str | None = None
    navigation: Sequence[NavEntry] = ()
    # announce_key of a live UI action → the short notice a page shows and a screen reader speaks.
    announce: Mapping[str, Any] = {}
    tool_families: Sequence[ToolFamily] = ()
    # The OpenAPI tag of the app's REST operations, where it is not the app label.
    api_tag: str | None = None
    periodic_jobs: Sequence[PeriodicJob] = ()
    # "<owner app>.<extension point>" → dotted paths of what this app contributes to it.
    extends: Mapping[str, Sequence[str]] = {}
    # The extension points this app owns: name → what a contribution must be. Other apps fill
    # "<label>.<name>"; the start-up check rejects unknown names and wrong types.
    extension_points: Mapping[str, ExtensionPoint] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "default" not in cls.__dict__:
            cls.default = True

    def urls(self) -> str | None:
        if self.url_module is not None:
            return self.url_module or None
        return f"{self.name}.urls" if module_has_submodule(self.module, "urls") else None

    def api_url_module(self) -> str | None:
        if self.api_urls is not None:
            return self.api_urls or None
        return f"{self.name}.api_urls" if module_has_submodule(self.module, "api_urls") else None


def domain_apps() -> list[DomainApp]:
    return [c for c in apps.get_app_configs() if isinstance(c, DomainApp)]


def url_modules() -> list[str]:
    return [m for m in (c.urls() for c in domain_apps()) if m]


API_PREFIX = "api/v1/"


def app_routes() -> list[Any]:
    """Each app's routes, in INSTALLED_APPS order: its pages and, under `api/v1/` (the one place
    that prefix is written), its REST routes, both in the app's URL namespace (`app_name` of
    either module)."""
    from importlib import import_module

    from django.urls import include, path

    routes = []
    for config in domain_apps():
        modules = [import_module(m) for m in (config.urls(), config.api_url_module()) if m]
        if not modules:
            continue
        patterns: list[Any] = []
        for module in modules:
            if module.__name__ == config.api_url_module():
                patterns.append(path(API_PREFIX, include(module.urlpatterns)))
            else:
                patterns.extend(module.urlpatterns)
        app_name = next((m.app_name for m in modules if getattr(m, "app_name", None)), None)
        routes.append(path("", include((patterns, app_name) if app_name else patterns)))
    return routes


def navigation() -> list[NavEntry]:
    entries = [entry for c in domain_apps() for entry in c.navigation]
    return sorted(entries, key=lambda e: e.order)


def announce_catalog() -> dict[str, Any]:
    catalog: dict[str, Any] = {}
    for config in domain_apps():
        for key, message in config.announce.items():
            if key in catalog:
                raise ImproperlyDeclared(f"announce key {key!r} is declared twice ({config.label})")
            catalog[key] = message
    return catalog


@functools.cache
def tool_families() -> dict[str, ToolFamily]:
    families: dict[str, ToolFamily] = {}
    for config in domain_apps():
        for family in config.tool_families:
            if family.name in families:
                raise ImproperlyDeclared(f"tool family {family.name!r} is declared twice ({config.label})")
            families[family.name] = family
    return families


def periodic_jobs() -> list[PeriodicJob]:
    return [job for c in domain_apps() for job in c.periodic_jobs]


def extension_points() -> dict[str, ExtensionPoint]:
    """Every declared extension point by its full name ("<owner label>.<name>")."""
    return {f"{c.label}.{name}": point for c in domain_apps() for name, point in c.extension_points.items()}


@functools.cache
def contributions(point: str) -> tuple[Any, ...]:
    """Everything the installed apps contribute to one extension point, imported, in
    INSTALLED_APPS order. Cached: the app registry does not change while a process runs."""
    return tuple(import_string(path) for c in domain_apps() for path in c.extends.get(point, ()))


class ImproperlyDeclared(Exception):
    """Two apps claim the same name: a programming error, raised at start."""
