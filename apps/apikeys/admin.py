"""Control plane for credentials. Rows are never edited or deleted here (revocation keeps the
audit trail); creating a key goes through the service (`ServiceAdmin`: a refusal is shown on the
form) and the key is shown once, in the response to the add form itself."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Q
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.apikeys import services
from apps.apikeys.forms import ApiKeyCreateForm
from apps.apikeys.models import ApiKey, DeviceToken
from apps.core.surfaces.admin_bases import ReadOnlyAdmin, ServiceAdmin
from apps.core.surfaces.web import reported

READONLY_KEY_FIELDS = (
    "name",
    "prefix",
    "created_by",
    "scopes",
    "expires_at",
    "revoked_at",
    "revoked_by",
    "last_used_at",
    "created_at",
)


class ApiKeyStatusFilter(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("active", _("active")), ("expired", _("expired")), ("revoked", _("revoked"))]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "active":
            return queryset.filter(revoked_at__isnull=True).filter(
                Q(expires_at__isnull=True) | Q(expires_at__gt=now)
            )
        if self.value() == "expired":
            return queryset.filter(revoked_at__isnull=True, expires_at__lte=now)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


class ApiKeyAdminAddForm(forms.ModelForm):
    """The Developer page's fields; validation is repeated by the service."""

    scopes = ApiKeyCreateForm.base_fields["scopes"]
    expires_in_days = ApiKeyCreateForm.base_fields["expires_in_days"]

    class Meta:
        model = ApiKey
        fields = ["name"]


class RevokeMixin:
    """The `revoke` action permission: administrators only (the service checks it again)."""

    def has_revoke_permission(self, request) -> bool:
        return bool(getattr(request.user, "is_admin", False)) and self.has_view_permission(request)


@admin.register(ApiKey)
class ApiKeyAdmin(RevokeMixin, ServiceAdmin):
    list_display = (
        "prefix",
        "name",
        "created_by",
        "scope_list",
        "expires_at",
        "last_used_at",
        "status_label",
        "created_at",
    )
    list_filter = (ApiKeyStatusFilter, "created_at")
    search_fields = ("name", "prefix", "created_by__email")
    list_select_related = ("created_by",)
    readonly_fields = READONLY_KEY_FIELDS
    actions = ["revoke_selected"]
    add_fieldsets = ((None, {"fields": ("name", "scopes", "expires_in_days")}),)
    fieldsets = ((None, {"fields": READONLY_KEY_FIELDS}),)

    @admin.display(description=_("scopes"))
    def scope_list(self, obj: ApiKey) -> str:
        return ", ".join(obj.scopes)

    @admin.display(description=_("status"))
    def status_label(self, obj: ApiKey) -> str:
        return {"active": _("active"), "expired": _("expired"), "revoked": _("revoked")}[obj.status]

    # --- permissions: view, add and revoke only (a key is never edited or deleted) -----------
    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    # --- add: through the service, key shown once -------------------------------------------
    def get_fieldsets(self, request, obj=None):
        return self.add_fieldsets if obj is None else self.fieldsets

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.readonly_fields

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = ApiKeyAdminAddForm
        return super().get_form(request, obj, **kwargs)

    def service_save(self, request, obj, form, change):
        key, plaintext = services.create_api_key(
            request.principal,
            name=form.cleaned_data["name"],
            scopes=form.cleaned_data["scopes"],
            expires_in_days=form.cleaned_data.get("expires_in_days"),
        )
        for field in ApiKey._meta.concrete_fields:
            setattr(obj, field.attname, getattr(key, field.attname))
        obj._state.adding = False
        obj._state.db = key._state.db
        request._apikeys_plaintext = plaintext
        return obj

    def response_add(self, request, obj, post_url_continue=None):
        """Render the key in this response (never via session or cookie storage)."""
        plaintext = getattr(request, "_apikeys_plaintext", "")
        messages.warning(
            request,
            format_html(
                "{} <code>{}</code>",
                _("API key created. Copy it now, it will not be shown again:"),
                plaintext,
            ),
        )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("API key created"),
            "key": obj,
            "changelist_url": reverse("admin:apikeys_apikey_changelist"),
        }
        response = TemplateResponse(request, "apikeys/admin_key_created.html", context)
        response["Cache-Control"] = "no-store"
        return response

    @admin.action(description=_("Revoke selected API keys"), permissions=["revoke"])
    def revoke_selected(self, request, queryset) -> None:
        count = 0
        with reported(request) as outcome:
            for key in queryset.filter(revoked_at__isnull=True):
                services.revoke_api_key(request.principal, key_id=key.pk)
                count += 1
        if outcome.failed:
            return
        self.message_user(
            request,
            ngettext("%(count)d API key revoked.", "%(count)d API keys revoked.", count) % {"count": count},
            messages.SUCCESS,
        )


@admin.register(DeviceToken)
class DeviceTokenAdmin(RevokeMixin, ReadOnlyAdmin):
    """Tokens are issued by signing in on a device; here they are only looked at and revoked."""

    list_display = ("device_name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter), "created_at")
    search_fields = ("device_name", "prefix", "user__email")
    list_select_related = ("user",)
    fields = ("user", "device_name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    actions = ["revoke_selected"]

    @admin.action(description=_("Sign out selected devices"), permissions=["revoke"])
    def revoke_selected(self, request, queryset) -> None:
        with reported(request) as outcome:
            count = services.revoke_device_tokens_as_admin(
                request.principal, queryset.values_list("pk", flat=True)
            )
        if outcome.failed:
            return
        self.message_user(
            request,
            ngettext("%(count)d device signed out.", "%(count)d devices signed out.", count)
            % {"count": count},
            messages.SUCCESS,
        )
