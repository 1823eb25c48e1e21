from django.contrib import admin

from apps.core.surfaces.admin_bases import ReadOnlyAdmin
from apps.widgets.models import Widget


@admin.register(Widget)
class WidgetAdmin(ReadOnlyAdmin):
    """Widgets are personal: the admin looks (support), people and the copilot change them."""

    list_display = ("title", "owner", "type", "show_on_dashboard", "data_updated_at", "updated_at")
    list_filter = ("type", "show_on_dashboard")
    search_fields = ("title", "slug", "owner__email")
    list_select_related = ("owner",)
    readonly_fields = [f.name for f in Widget._meta.fields]
