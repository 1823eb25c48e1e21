from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import ServicePrincipal, User
from apps.accounts.services import set_service_principals_active


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
    list_filter = ("role", "is_active", "language")
    filter_horizontal = ()
    search_fields = ("email", "full_name")
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        (_("Profile"), {"fields": ("full_name", "language", "time_zone")}),
        # The role decides admin access (`User.save` keeps `is_superuser` in step with it).
        (_("Access"), {"fields": ("role", "is_active")}),
        (_("Dates"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (None, {"classes": ("wide",), "fields": ("email", "full_name", "role", "password1", "password2")}),
    )
    readonly_fields = ("last_login", "date_joined")


@admin.register(ServicePrincipal)
class ServicePrincipalAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "is_active", "created_at")
    list_filter = ("kind", "is_active")
    search_fields = ("name", "description")
    actions = ["deactivate", "activate"]

    @admin.action(description=_("Deactivate selected service principals"))
    def deactivate(self, request, queryset):
        set_service_principals_active(list(queryset.values_list("id", flat=True)), False)

    @admin.action(description=_("Activate selected service principals"))
    def activate(self, request, queryset):
        set_service_principals_active(list(queryset.values_list("id", flat=True)), True)
