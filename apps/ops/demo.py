"""Demo office data, loaded on the first start unless CLAPILOT_DEMO_DATA=0.

Each app may ship `apps/<app>/demo.py` with `load(office: DemoOffice)`; they run in
INSTALLED_APPS order inside one transaction, so later domains can use earlier ones' rows.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.module_loading import module_has_submodule

from apps.core import plugins
from apps.core.services import get_setting, set_setting

logger = logging.getLogger(__name__)
MARKER = "demo_data_loaded"


@dataclass
class DemoOffice:
    admin: object
    password: str | None
    users: dict = field(default_factory=dict)  # short name → User
    extra: dict = field(default_factory=dict)  # rows later loaders want to reference


def load_once(admin, password: str | None) -> DemoOffice | None:
    """Run each app's demo loader once per instance (a marker per app), so a domain added by an
    upgrade fills in its demo data on the next start. Loaders marked IDEMPOTENT (the demo staff)
    run every time, so later loaders can always refer to the same people."""
    office = DemoOffice(admin=admin, password=password)
    loaded_any = False
    with transaction.atomic():
        for config in plugins.domain_apps():
            if config.name == "apps.ops" or not module_has_submodule(config.module, "demo"):
                continue
            module = importlib.import_module(f"{config.name}.demo")
            marker = f"{MARKER}:{config.label}"
            if getattr(module, "IDEMPOTENT", False):
                module.load(office)
            elif not get_setting(marker):
                module.load(office)
                set_setting(marker, True)
                loaded_any = True
    return office if loaded_any else None
