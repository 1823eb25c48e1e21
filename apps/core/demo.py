"""Demo office data, loaded on the first start unless CLAPILOT_DEMO_DATA=0.

Each app may ship `apps/<app>/demo.py` with `load(office: DemoOffice)`; they run in
INSTALLED_APPS order inside one transaction, so later domains can use earlier ones' rows.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field

from django.apps import apps as django_apps
from django.db import transaction

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
    if get_setting(MARKER):
        return None
    office = DemoOffice(admin=admin, password=password)
    with transaction.atomic():
        for config in django_apps.get_app_configs():
            if not config.name.startswith("apps."):
                continue
            try:
                module = importlib.import_module(f"{config.name}.demo")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.demo":
                    raise
                continue
            if module.__name__ != __name__:
                module.load(office)
        set_setting(MARKER, True)
    return office
