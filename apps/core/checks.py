"""System checks of the apps' declarations (`manage.py check`, and every start): a declaration
that cannot work fails here, at start, instead of the first time someone uses it."""

from __future__ import annotations

from typing import Any

from django.core.checks import Error, Tags, register
from django.db import connections
from django.db.migrations.loader import MigrationLoader
from django.utils.module_loading import import_string

from apps.core import plugins


@register()
def declarations(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    errors: list[Error] = []
    points = plugins.extension_points()
    counts: dict[str, int] = {}
    for config in plugins.domain_apps():
        for point, paths in config.extends.items():
            declared = points.get(point)
            if declared is None:
                errors.append(
                    Error(
                        f"{config.label}: extends[{point!r}] names an extension point no installed app declares",
                        hint=f"Known: {', '.join(sorted(points))}",
                        obj=config,
                        id="clapilot.E004",
                    )
                )
            counts[point] = counts.get(point, 0) + len(paths)
            for path in paths:
                try:
                    value = import_string(path)
                except ImportError as exc:
                    errors.append(
                        Error(
                            f"{config.label}: extends[{point!r}] names {path!r}, which cannot be imported",
                            hint=str(exc),
                            obj=config,
                            id="clapilot.E001",
                        )
                    )
                    continue
                if declared is not None and not declared.accepts(value):
                    errors.append(
                        Error(
                            f"{config.label}: extends[{point!r}] names {path!r}, which is not a "
                            f"{declared.contract_class().__qualname__}",
                            hint=declared.doc or None,
                            obj=config,
                            id="clapilot.E005",
                        )
                    )
    for point, count in counts.items():
        if point in points and points[point].single and count > 1:
            errors.append(Error(f"{point} takes one contribution, {count} are declared", id="clapilot.E006"))
    for collect in (plugins.announce_catalog, plugins.tool_families):
        try:
            collect()
        except plugins.ImproperlyDeclared as exc:
            errors.append(Error(str(exc), id="clapilot.E002"))
    return errors


@register(Tags.database)
def squashed_history(databases: Any = None, **kwargs: Any) -> list[Error]:
    """An installation part-way through the migrations a squashed one replaces (the replaced files
    are gone) would see its app silently dropped from `migrate`'s plan: refuse instead."""
    errors: list[Error] = []
    for alias in databases or []:
        loader = MigrationLoader(connections[alias], ignore_no_migrations=True)
        applied = set(loader.applied_migrations)
        for key, migration in loader.replacements.items():
            done = [old for old in migration.replaces if old in applied]
            if done and len(done) < len(migration.replaces):
                errors.append(
                    Error(
                        f"{key[0]}: this database applied {len(done)} of the {len(migration.replaces)} "
                        f"migrations that {key[1]} replaces, up to {done[-1][1]}",
                        hint="Check out Clapilot 5fd30c7 (the last commit before the squash), run "
                        "`manage.py migrate` there, then upgrade to this one.",
                        id="clapilot.E003",
                    )
                )
    return errors
