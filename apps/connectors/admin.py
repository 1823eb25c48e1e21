"""Connector configurations in the admin: saves through the services, the password write-only
(never shown, left empty keeps it), a "test connection" button, the tables and extensions found
at the live source as a picker aid, and guardian's object permissions for who may use one."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from guardian.admin import GuardedModelAdminMixin

from apps.connectors import services
from apps.connectors.models import Connector
from apps.core.errors import DomainError
from apps.core.surfaces.admin_bases import ServiceAdmin


class ConnectorForm(forms.ModelForm):  # type: ignore[type-arg]
    new_password = forms.CharField(
        label=_("password"),
        required=False,
        strip=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text=_("Stored encrypted and never shown again; leave empty to keep the stored one."),
    )

    class Meta:
        model = Connector
        fields = (
            "tool",
            "name",
            "specialist_id",
            "enabled",
            "kind",
            "host",
            "port",
            "database",
            "username",
            "allowed_tables",
            "max_rows",
            "max_bytes",
            "timeout_seconds",
            "path",
            "allow_write",
            "allowed_extensions",
        )


@admin.register(Connector)
class ConnectorAdmin(GuardedModelAdminMixin, ServiceAdmin):  # type: ignore[misc]
    form = ConnectorForm
    list_display = ("name", "tool", "kind", "specialist_id", "enabled")
    list_filter = ("tool", "kind", "enabled")
    search_fields = ("name",)
    readonly_fields = ("test_button", "at_the_source")
    actions = ("test_selected",)

    def service_save(self, request: Any, obj: Connector, form: Any, change: bool) -> Connector:
        password = form.cleaned_data.get("new_password") or None
        return services.save_connector(request.principal, obj, password=password)

    def service_delete(self, request: Any, obj: Connector) -> None:
        services.delete_connector(request.principal, obj)

    def get_urls(self) -> list[Any]:
        mine = [
            path(
                "<int:pk>/test/",
                self.admin_site.admin_view(self.test_view),
                name="connectors_connector_test",
            )
        ]
        inherited: list[Any] = super().get_urls()  # type: ignore[no-untyped-call]
        return mine + inherited

    def test_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        connector = get_object_or_404(Connector, pk=pk)
        if request.method != "POST" or not self.has_change_permission(request, connector):
            return HttpResponseRedirect(reverse("admin:connectors_connector_change", args=[pk]))
        self._test(request, connector)
        return HttpResponseRedirect(reverse("admin:connectors_connector_change", args=[pk]))

    def _test(self, request: Any, connector: Connector) -> None:
        try:
            line = services.test_connection(request.principal, connector)
        except DomainError as exc:
            self.message_user(request, f"{connector.name}: {exc.message}", messages.ERROR)
        else:
            self.message_user(request, f"{connector.name}: {line}", messages.SUCCESS)

    @admin.action(description=_("Test connection"))
    def test_selected(self, request: Any, queryset: Any) -> None:
        for connector in queryset:
            self._test(request, connector)

    @admin.display(description=_("Test connection"))
    def test_button(self, obj: Connector | None) -> str:
        if obj is None or obj.pk is None:
            return "-"
        url = reverse("admin:connectors_connector_test", args=[obj.pk])
        return format_html(
            '<button type="submit" formaction="{}" formmethod="post" class="button">{}</button>',
            url,
            _("Test connection"),
        )

    @admin.display(description=_("Found at the source"))
    def at_the_source(self, obj: Connector | None) -> str:
        if obj is None or obj.pk is None:
            return "-"
        try:
            if obj.tool == Connector.Tool.FILERW:
                found = services.source_extensions(obj)
            else:
                found = services.source_tables(obj)
        except DomainError as exc:
            return exc.message
        return format_html_join(", ", "<code>{}</code>", ((f,) for f in found)) or "-"
