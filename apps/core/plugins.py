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
store's source loaders, the client page's sections …) are named `"<owner>.<point>"` and filled
through `extends`, with dotted paths that are imported only when the owner asks for them, so a
declaration never creates an import between apps.
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
    """A job an app wants beat to run (registered idempotently at start; admins may retime it)."""

    name: str
    task: str
    every_seconds: int | None = None
    crontab: str | None = None  # "minute hour day_of_month month day_of_week", in TIME_ZONE
    kwargs: dict = field(default_factory=dict)


class DomainApp(AppConfig):
    """Base of every Clapilot app config. All attributes are optional."""

    # Django picks an apps.py's config among the AppConfig subclasses it defines or imports:
    # this base never, each subclass always (see __init_subclass__).
    default = False
    # The app's page/API routes: "<app>.urls" when that module exists, unless set to "" (none).
    url_module: str | None = None
    navigation: Sequence[NavEntry] = ()
    # announce_key of a live UI action → the short notice a page shows and a screen reader speaks.
    announce: Mapping[str, Any] = {}
    tool_families: Sequence[ToolFamily] = ()
    # The OpenAPI tag of the app's REST operations, where it is not the app label.
    api_tag: str | None = None
    periodic_jobs: Sequence[PeriodicJob] = ()
    # "<owner app>.<extension point>" → dotted paths of what this app contributes to it.
    extends: Mapping[str, Sequence[str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "default" not in cls.__dict__:
            cls.default = True

    def urls(self) -> str | None:
        if self.url_module is not None:
            return self.url_module or None
        return f"{self.name}.urls" if module_has_submodule(self.module, "urls") else None


def domain_apps() -> list[DomainApp]:
    return [c for c in apps.get_app_configs() if isinstance(c, DomainApp)]


def url_modules() -> list[str]:
    return [m for m in (c.urls() for c in domain_apps()) if m]


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


@functools.cache
def contributions(point: str) -> tuple[Any, ...]:
    """Everything the installed apps contribute to one extension point, imported, in
    INSTALLED_APPS order. Cached: the app registry does not change while a process runs."""
    return tuple(import_string(path) for c in domain_apps() for path in c.extends.get(point, ()))


class ImproperlyDeclared(Exception):
    """Two apps claim the same name: a programming error, raised at start."""
