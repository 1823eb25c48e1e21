from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ToolFamily


class WidgetsConfig(DomainApp):
    name = "apps.widgets"
    label = "widgets"
    verbose_name = _("Widgets")
    tool_families = [ToolFamily("widgets"), ToolFamily("mini_apps")]
    announce = {
        "widgets.widget.created": _("Widget added"),
        "widgets.widget.updated": _("Widget changed"),
        "widgets.widget.data_updated": _("Widget data updated"),
        "widgets.widget.deleted": _("Widget removed"),
    }
