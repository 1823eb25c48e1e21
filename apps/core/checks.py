"""System checks of the apps' declarations (`manage.py check`, and every start): a declaration
that cannot work fails here, at start, instead of the first time someone uses it."""

from __future__ import annotations

from django.core.checks import Error, register
from django.utils.module_loading import import_string

from apps.core import plugins


@register()
def declarations(app_configs=None, **kwargs) -> list[Error]:
    errors: list[Error] = []
    for config in plugins.domain_apps():
        for point, paths in config.extends.items():
            for path in paths:
                try:
                    import_string(path)
                except ImportError as exc:
                    errors.append(
                        Error(
                            f"{config.label}: extends[{point!r}] names {path!r}, which cannot be imported",
                            hint=str(exc),
                            obj=config,
                            id="clapilot.E001",
                        )
                    )
    for collect in (plugins.announce_catalog, plugins.tool_families):
        try:
            collect()
        except plugins.ImproperlyDeclared as exc:
            errors.append(Error(str(exc), id="clapilot.E002"))
    return errors
