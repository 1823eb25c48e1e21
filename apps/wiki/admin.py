from django.contrib import admin, messages
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from apps.accounts.principal import Principal
from apps.core.errors import DomainError
from apps.wiki import proposals, services
from apps.wiki.models import WikiPage, WikiProposal, WikiRevision


class ReadOnlyAdmin(admin.ModelAdmin):
    """Wiki content changes through the pages and services (revisions, live events); the admin
    looks, and decides on proposals through the same service functions."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class RevisionInline(admin.TabularInline):
    model = WikiRevision
    fk_name = "page"
    extra = 0
    fields = ("number", "title", "author", "comment", "created_at")
    readonly_fields = fields
    can_delete = False
    ordering = ("-number",)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(WikiPage)
class WikiPageAdmin(ReadOnlyAdmin):
    list_display = ("title", "slug", "updated_by", "updated_at")
    search_fields = ("title", "slug", "body")
    list_select_related = ("updated_by",)
    readonly_fields = ("slug", "title", "body", "current_revision", "created_by", "updated_by")
    exclude = ("search",)
    inlines = [RevisionInline]

    def get_deleted_objects(self, objs, request):
        """A page's revisions and proposals go with it; they are not deletable on their own."""
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_model(self, request, obj):
        try:
            services.delete_page(Principal.for_user(request.user), page_id=obj.pk)
        except DomainError as exc:
            messages.error(request, exc.message)

    def delete_queryset(self, request, queryset):
        for page in queryset:
            self.delete_model(request, page)


@admin.register(WikiRevision)
class WikiRevisionAdmin(ReadOnlyAdmin):
    list_display = ("page", "number", "author", "comment", "created_at")
    list_select_related = ("page", "author")
    search_fields = ("page__title", "comment")

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(WikiProposal)
class WikiProposalAdmin(ReadOnlyAdmin):
    list_display = ("title", "slug", "status", "proposed_by", "proposed_by_service", "created_at", "reviewer")
    list_filter = ("status",)
    search_fields = ("title", "slug", "body", "comment")
    list_select_related = ("proposed_by", "proposed_by_service", "reviewer")
    actions = ["accept", "reject"]

    def _decide(self, request, queryset, decide, done_message):
        principal = Principal.for_user(request.user)
        done = 0
        for proposal in queryset:
            try:
                decide(principal, proposal.pk)
                done += 1
            except DomainError as exc:
                messages.error(request, f"{proposal}: {exc.message}")
        if done:
            messages.success(request, done_message(done) % {"n": done})

    @admin.action(description=gettext_lazy("Accept the selected proposals"))
    def accept(self, request, queryset):
        self._decide(
            request,
            queryset,
            proposals.accept_proposal,
            lambda n: ngettext("%(n)d proposal accepted.", "%(n)d proposals accepted.", n),
        )

    @admin.action(description=gettext_lazy("Reject the selected proposals"))
    def reject(self, request, queryset):
        reason = _("Rejected in the administration.")
        self._decide(
            request,
            queryset,
            lambda principal, pk: proposals.reject_proposal(principal, pk, reason=reason),
            lambda n: ngettext("%(n)d proposal rejected.", "%(n)d proposals rejected.", n),
        )
