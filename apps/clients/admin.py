from django.contrib import admin

from apps.clients.models import Case, Client


class CaseInline(admin.TabularInline):
    model = Case
    extra = 0
    fields = ("reference", "subject", "status", "responsible")
    readonly_fields = fields
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Client)
class ClientAdmin(admin.ModelAdmin):
    """Clients change through the pages, the API and the tools (services validate and publish
    live events); the admin looks, filters and searches."""

    list_display = ("client_number", "name", "kind", "city", "responsible", "status", "updated_at")
    list_filter = ("kind", "status")
    search_fields = ("name", "client_number", "tax_number", "email", "city")
    list_select_related = ("responsible",)
    inlines = [CaseInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Case)
class CaseAdmin(admin.ModelAdmin):
    list_display = ("reference", "subject", "client", "status", "responsible", "updated_at")
    list_filter = ("status",)
    search_fields = ("reference", "subject", "client__name", "client__client_number")
    list_select_related = ("client", "responsible")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
