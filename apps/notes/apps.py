from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotesConfig(AppConfig):
    name = "apps.notes"
    label = "notes"
    verbose_name = _("Notes")

    def ready(self) -> None:
        from apps.notes import context

        context.register()  # a source of context_search / context_get
