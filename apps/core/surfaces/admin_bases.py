"""Admin bases every app's `admin.py` builds on.

* `ReadOnlyAdmin` / `ReadOnlyInline`: the admin looks, filters and searches; changes go through
  pages, API and tools, where the services validate and publish live events.
* `ServiceAdmin`: saves and deletes call the domain service (`service_save`, `service_delete`).
  A `DomainError` is shown as an admin error on the re-rendered form, never as "changed
  successfully"; whatever the service began is rolled back with the admin's transaction.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import widgets
from django.db import models
from django.http import HttpResponseRedirect

from apps.core.errors import DomainError
from apps.core.surfaces.forms import validate_year_range
from apps.core.surfaces.web import form_errors


class SplitDateTimeWidget(widgets.AdminSplitDateTime):
    """The admin's date and time inputs, showing a stored moment the viewer's zone cannot hold
    (year 9999 at 23:59 UTC, stored before dates were bounded) in UTC instead of failing the page."""

    def decompress(self, value):
        try:
            return super().decompress(value)
        except OverflowError:
            return [value.date(), value.time()]


class BoundedSplitDateTimeField(forms.SplitDateTimeField):
    """An admin moment: a year outside the date bound is a field error (`date_out_of_range`)."""

    default_validators = [validate_year_range]

    def prepare_value(self, value):
        try:
            return super().prepare_value(value)
        except OverflowError:
            return value


class BoundedDateAdminField(forms.DateField):
    default_validators = [validate_year_range]


# Every admin edit form: the one date bound, and stored out-of-range rows open instead of a 500.
DATE_OVERRIDES = {
    models.DateTimeField: {"form_class": BoundedSplitDateTimeField, "widget": SplitDateTimeWidget},
    models.DateField: {"form_class": BoundedDateAdminField, "widget": widgets.AdminDateWidget},
}


class ReadOnlyMixin:
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyAdmin(ReadOnlyMixin, admin.ModelAdmin):
    pass


def moment_column(field: str, label: Any) -> Any:
    """An admin column (and read-only field) for a stored moment that shows a date it cannot
    convert into the viewer's zone (a row at the very end of year 9999) as broken, instead of
    failing the whole page as the admin's own display does."""
    from apps.core.templatetags.dates import shown_date  # templatetags load after the apps

    @admin.display(description=label, ordering=field)
    def column(*args: Any) -> str:  # (obj), or (admin, obj) as the admin's attribute
        return shown_date(getattr(args[-1], field), "DATETIME_FORMAT")

    column.__name__ = f"{field}_shown"
    return column


class ReadOnlyInline(ReadOnlyMixin, admin.TabularInline):
    extra = 0
    show_change_link = False


class NoAddMixin:
    """Rows are created elsewhere (by the product), but admins may change or delete them."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class NoChangeMixin:
    """Rows are looked at (and may be deleted, e.g. for data protection), never edited here."""

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class _Refused(Exception):
    def __init__(self, error: DomainError) -> None:
        super().__init__(error.message)
        self.error = error


def refused(error: DomainError) -> Exception:
    """What a `ServiceAdmin` step other than `save_model` raises (e.g. its `save_formset` saving
    inline rows through a service): the form is rendered again with the service's answer."""
    return _Refused(error)


class ServiceAdmin(admin.ModelAdmin):
    """Subclasses define `service_save(request, obj, form, change) -> obj` where rows may be
    added or changed here, and `service_delete(request, obj)` where they may be deleted;
    `request.principal` is the acting admin. What a subclass does not define, the admin does
    not offer. A `service_save` builds the operation's input model from the edited row
    (`build(Model, ...)`), so the admin validates like every other surface."""

    formfield_overrides = DATE_OVERRIDES

    def _serves(self, name: str) -> bool:
        return callable(getattr(self, name, None))

    def has_add_permission(self, request) -> bool:
        return self._serves("service_save") and super().has_add_permission(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return self._serves("service_save") and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return self._serves("service_delete") and super().has_delete_permission(request, obj)

    def save_model(self, request, obj, form, change):
        try:
            saved = self.service_save(request, obj, form, change)
        except DomainError as exc:
            raise _Refused(exc) from None
        if saved is not None and saved is not obj:
            obj.pk = saved.pk

    def delete_model(self, request, obj):
        try:
            self.service_delete(request, obj)
        except DomainError as exc:
            raise _Refused(exc) from None

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except _Refused as refused:
            # Render the form again with the submitted values and the service's answer.
            request._service_refusal = refused.error
            return super().changeform_view(request, object_id, form_url, extra_context)

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except _Refused as refused:
            self.message_user(request, refused.error.message, messages.ERROR)
            return HttpResponseRedirect(request.path.rsplit("/delete/", 1)[0] + "/change/")

    def changelist_view(self, request, extra_context=None):
        try:
            return super().changelist_view(request, extra_context)
        except _Refused as refused:
            self.message_user(request, refused.error.message, messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def get_form(self, request, obj=None, change=False, **kwargs):
        form_class = super().get_form(request, obj, change, **kwargs)
        refusal = getattr(request, "_service_refusal", None)
        if refusal is None:
            return form_class

        class RefusedForm(form_class):
            def clean(self):
                cleaned = super().clean()
                form_errors(self, refusal)
                return cleaned

        return RefusedForm
