from django.contrib import admin, messages
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.calendar import feed, fristenbuch
from apps.calendar.models import CalendarEvent, CalendarFeedToken, DeadlineChange, PreDeadline
from apps.core.surfaces.admin_bases import ReadOnlyAdmin, ReadOnlyInline, moment_column
from apps.core.surfaces.web import reported


class ResponsibleGoneFilter(admin.SimpleListFilter):
    """Open Fristen whose responsible person was deactivated (or who have none): to reassign."""

    title = _("responsible person")
    parameter_name = "responsible_gone"

    def lookups(self, request, model_admin):
        return [("1", _("deactivated or nobody (open Fristen)"))]

    def queryset(self, request, queryset):
        if self.value() != "1":
            return queryset
        return queryset.filter(kind="deadline", status="open").filter(
            Q(responsible__isnull=True) | Q(responsible__is_active=False)
        )


class PreDeadlineInline(ReadOnlyInline):
    model = PreDeadline
    fields = ("due_date", "note", "reminded_at")


class DeadlineChangeInline(ReadOnlyInline):
    model = DeadlineChange
    fields = ("at", "actor", "actor_label", "field", "old", "new", "reason")


@admin.register(CalendarEvent)
class CalendarEventAdmin(ReadOnlyAdmin):
    """Entries change through the pages, the API and the tools (services publish live events and
    keep private entries private); the admin looks, filters and searches. Nothing is deleted
    here: a Frist is cancelled with a reason on its page (ReadOnlyAdmin refuses deletion)."""

    list_display = (
        "title",
        "kind",
        "start_shown",
        "end_shown",
        "client",
        "visibility",
        "owner",
        "criticality",
        "status",
        "responsible",
        "source_origin",
    )
    list_filter = (
        "kind",
        "status",
        "start",
        ResponsibleGoneFilter,
        "visibility",
        "criticality",
        "source_origin",
        "all_day",
    )
    inlines = (PreDeadlineInline, DeadlineChangeInline)
    search_fields = (
        "title",
        "description",
        "location",
        "client__name",
        "client__client_number",
        "source_label",
    )
    list_select_related = ("owner", "client", "responsible")
    start_shown = moment_column("start", _("start"))
    end_shown = moment_column("end", _("end"))

    def get_fields(self, request, obj=None):
        # The change view shows every field read-only, the moments through the same safe columns
        # (listed from the model: nothing here is edited, so no form is built for it).
        shown = {"start": "start_shown", "end": "end_shown"}
        names = [f.name for f in self.model._meta.concrete_fields if f.editable and not f.primary_key]
        return [shown.get(name, name) for name in names]

    # No date_hierarchy: its year links are computed in the viewer's zone from the data, and one
    # stored entry at the very end of year 9999 overflowed into a 500 for the whole list. The
    # `start` filter offers fixed ranges (today, 7 days, this month, this year) instead.
    readonly_fields = (
        "created_by",
        "created_by_service",
        "recurrence_end",
        "remind_at",
        "reminded_at",
        "version",
    )


@admin.register(CalendarFeedToken)
class CalendarFeedTokenAdmin(ReadOnlyAdmin):
    """Admins can see who subscribed and revoke a link (the action, through `feed.revoke_token`);
    tokens are only ever shown once."""

    list_display = ("user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("user__email", "user__full_name", "prefix")
    list_select_related = ("user",)
    readonly_fields = ("user", "token_hash", "prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    @admin.action(description="Revoke selected links")
    def revoke(self, request, queryset):
        done = 0
        for row in queryset.filter(revoked_at__isnull=True).select_related("user"):
            with reported(request) as outcome:
                feed.revoke_token(Principal.for_user(row.user), row.pk)
            done += not outcome.failed
        messages.success(request, _("%(count)d revoked.") % {"count": done})


class ChangedFieldFilter(admin.SimpleListFilter):
    """The Fristenbuch's changed field, by its label in the viewer's language (rows store codes)."""

    title = _("field")
    parameter_name = "field"

    def lookups(self, request, model_admin):
        return [(code, fristenbuch.field_label(code)) for code in fristenbuch.FIELDS]

    def queryset(self, request, queryset):
        return queryset.filter(field=self.value()) if self.value() else queryset


@admin.register(DeadlineChange)
class DeadlineChangeAdmin(ReadOnlyAdmin):
    """The Fristenbuch: written by the services with every change, never edited or deleted. Field
    and status values are stored as codes and shown in the viewer's language."""

    list_display = (
        "at",
        "event",
        "field_shown",
        "old_shown",
        "new_shown",
        "reason_shown",
        "actor",
        "actor_label",
    )
    # The change form too shows field and values in the viewer's language, never the stored codes.
    fields = ("at", "event", "field_shown", "old_shown", "new_shown", "reason_shown", "actor", "actor_label")
    readonly_fields = fields
    list_filter = (ChangedFieldFilter,)
    search_fields = ("event__title", "reason", "old", "new", "actor_label")
    list_select_related = ("event", "actor")
    date_hierarchy = "at"

    @admin.display(description=_("field"), ordering="field")
    def field_shown(self, row):
        return fristenbuch.field_label(row.field)

    @admin.display(description=_("before"))
    def old_shown(self, row):
        return fristenbuch.shown_value(row.field, row.old)

    @admin.display(description=_("after"))
    def new_shown(self, row):
        return fristenbuch.shown_value(row.field, row.new)

    @admin.display(description=_("reason"), ordering="reason")
    def reason_shown(self, row):
        return row.reason_shown
