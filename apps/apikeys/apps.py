from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class ApiKeysConfig(DomainApp):
    name = "apps.apikeys"
    verbose_name = _("API keys")
    api_tag = "auth"
    extends = {
        "core.error_codes": ["apps.apikeys.errors.DRF_CODES"],
        "core.websocket_credentials": ["apps.apikeys.websocket.credential_user"],
    }

    def ready(self) -> None:
        from apps.apikeys import schema  # noqa: F401  (registers the OpenAPI security schemes)
