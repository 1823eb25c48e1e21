from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiKeysConfig(AppConfig):
    name = "apps.apikeys"
    verbose_name = _("API keys")

    def ready(self) -> None:
        from apps.apikeys import schema  # noqa: F401  (registers the OpenAPI security schemes)
