"""Which optional modules are installed. A `ModuleInstall` row overrides the instance policy
(`legacy_all`: everything installed; `minimal`: only MINIMAL_MODULES). Read through a short cache
and failing open, so a database hiccup never hides the whole catalog."""

from __future__ import annotations

import logging
import threading
import time

from apps.core import caches

logger = logging.getLogger(__name__)

POLICY_KEY = "module_install_policy"
POLICIES = ("legacy_all", "minimal")
MINIMAL_MODULES = frozenset({"notizen", "excel-canvas", "word-canvas", "agents"})
CACHE_SECONDS = 5.0

_lock = threading.Lock()
_cache: tuple[float, str, dict[str, bool]] | None = None


def _load() -> tuple[str, dict[str, bool]]:
    from apps.core.services import get_setting
    from apps.tools.models import ModuleInstall

    policy = get_setting(POLICY_KEY, "legacy_all")
    overrides = dict(ModuleInstall.objects.values_list("slug", "installed"))
    return (policy if policy in POLICIES else "legacy_all"), overrides


def _state() -> tuple[str, dict[str, bool]] | None:
    global _cache
    now = time.monotonic()
    with _lock:
        if _cache is not None and now - _cache[0] < CACHE_SECONDS:
            return _cache[1], _cache[2]
    try:
        policy, overrides = _load()
    except Exception as exc:  # fail open: transient infrastructure failure keeps the catalog
        logger.warning("module install state unavailable, failing open: %s", type(exc).__name__)
        return None
    with _lock:
        _cache = (now, policy, overrides)
    return policy, overrides


@caches.register
def invalidate() -> None:
    global _cache
    with _lock:
        _cache = None


def is_installed(slug: str) -> bool:
    state = _state()
    if state is None:
        return True
    policy, overrides = state
    if slug in overrides:
        return overrides[slug]
    return policy == "legacy_all" or slug in MINIMAL_MODULES


def set_installed(slug: str, installed: bool) -> None:
    """The one writer of module install state (admin, CLI)."""
    from apps.tools.models import ModuleInstall

    ModuleInstall.objects.update_or_create(slug=slug, defaults={"installed": installed})
    invalidate()


def reset_installed(slug: str) -> None:
    """Drop a module's override: it follows the instance policy again (admin)."""
    from apps.tools.models import ModuleInstall

    ModuleInstall.objects.filter(slug=slug).delete()
    invalidate()


def set_policy(policy: str) -> None:
    from apps.core.services import set_setting

    if policy not in POLICIES:
        raise ValueError(f"unknown module install policy {policy!r}")
    set_setting(POLICY_KEY, policy)
    invalidate()
