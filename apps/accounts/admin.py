from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.utils.translation import gettext_lazy as _

from apps.accounts import services
from apps.accounts.contracts import ServicePrincipalSave
from apps.accounts.models import ServicePrincipal, User
from apps.accounts.services import set_service_principals_active
from apps.core.inputs import build
from apps.core.surfaces.admin_bases import ServiceAdmin


class UserCreationForm(AdminUserCreationForm):
    class Meta:
        model = User
        fields = ("email", "full_name", "role")


class UserEditForm(UserChangeForm):
    class Meta:
        model = User
        fields = "__all__"


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = UserEditForm
    add_form = UserCreationForm
    ordering = ("email",)
    list_display = ("email", "full_name", "role", "language", "is_active", "last_login")
    list_filter = ("role", "is_active", "language", "morning_digest")
    filter_horizontal = ()
    search_fields = ("email", "full_name")
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        (_("Profile"), {"fields": ("full_name", "language", "time_zone", "morning_digest", "mute_toasts")}),
        # The role decides admin access (`User.save` keeps `is_superuser` in step with it).
        (_("Access"), {"fields": ("role", "is_active")}),
        (_("Dates"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (None, {"classes": ("wide",), "fields": ("email", "full_name", "role", "password1", "password2")}),
    )
    readonly_fields = ("last_login", "date_joined")


@admin.register(ServicePrincipal)
class ServicePrincipalAdmin(ServiceAdmin):
    """Saved and deleted through the service (admins only; a taken name is a form error)."""

    list_display = ("name", "kind", "is_active", "created_at")
    list_filter = ("kind", "is_active")
    search_fields = ("name", "description")
    actions = ["deactivate", "activate"]

    def service_save(self, request: Any, obj: ServicePrincipal, form: Any, change: bool) -> ServicePrincipal:
        values = {name: getattr(obj, name) for name in ServicePrincipalSave.model_fields}
        return services.save_service_principal(
            request.principal, build(ServicePrincipalSave, **values), obj.pk
        )

    def service_delete(self, request: Any, obj: ServicePrincipal) -> None:
        services.delete_service_principal(request.principal, obj.pk)

    @admin.action(description=_("Deactivate selected service principals"))
    def deactivate(self, request, queryset):
        set_service_principals_active(list(queryset.values_list("id", flat=True)), False)

    @admin.action(description=_("Activate selected service principals"))
    def activate(self, request, queryset):
        set_service_principals_active(list(queryset.values_list("id", flat=True)), True)
