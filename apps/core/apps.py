from collections.abc import Callable, Mapping

from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint


class CoreConfig(DomainApp):
    name = "apps.core"
    verbose_name = _("System")
    websocket_urls = "apps.core.realtime.routing"  # the ping socket
    extension_points = {
        "error_codes": ExtensionPoint(
            Mapping, "code → (app, meaning): codes produced without an exception class"
        ),
        "instance_settings": ExtensionPoint(
            Mapping, "setting key → check(value) -> cleaned value (the admin form)"
        ),
        "websocket_credentials": ExtensionPoint(
            Callable, "(scheme, credential, api_key_scopes) -> user | None (apps.core.realtime)"
        ),
    }

    def ready(self) -> None:
        from apps.core import checks  # noqa: F401  (registers the declaration checks)
