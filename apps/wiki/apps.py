from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WikiConfig(AppConfig):
    name = "apps.wiki"
    label = "wiki"
    verbose_name = _("Wiki")

    def ready(self) -> None:
        from apps.wiki import context

        context.register()  # a source of context_search / context_get
