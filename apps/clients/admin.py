"""Clients and cases change through the pages, the API and the tools (the services validate and
publish live events); the admin looks, filters and searches."""

from django.contrib import admin

from apps.clients.models import Case, Client
from apps.core.surfaces.admin_bases import ReadOnlyAdmin, ReadOnlyInline


class CaseInline(ReadOnlyInline):
    model = Case
    fields = ("reference", "subject", "status", "responsible")
    readonly_fields = fields


@admin.register(Client)
class ClientAdmin(ReadOnlyAdmin):
    list_display = (
        "client_number",
        "name",
        "kind",
        "city",
        "responsible",
        "status",
        "neutralize_always",
        "updated_at",
    )
    list_filter = ("kind", "status", "neutralize_always")
    search_fields = ("name", "client_number", "tax_number", "email", "city")
    list_select_related = ("responsible",)
    inlines = [CaseInline]


@admin.register(Case)
class CaseAdmin(ReadOnlyAdmin):
    list_display = (
        "reference",
        "subject",
        "client",
        "status",
        "responsible",
        "neutralize_always",
        "updated_at",
    )
    list_filter = ("status", "neutralize_always")
    search_fields = ("reference", "subject", "client__name", "client__client_number")
    list_select_related = ("client", "responsible")
