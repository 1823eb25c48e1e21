from collections.abc import Callable

from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint, ToolFamily


class ToolsConfig(DomainApp):
    name = "apps.tools"
    verbose_name = _("Tools")
    tool_families = [ToolFamily("core", start=True)]
    extends = {"core.error_codes": ["apps.tools.errors.ENVELOPE_CODES"]}
    extension_points = {
        "approval": ExtensionPoint(
            "apps.tools.approval.ApprovalStep", "the dispatcher's approval step", single=True
        ),
        "approval_tokens": ExtensionPoint(
            Callable, "(ctx, tool, args, *, action, summary) -> None, raises to refuse"
        ),
    }

    def ready(self) -> None:
        from apps.tools.registry import autodiscover

        autodiscover()
