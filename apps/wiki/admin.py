"""Admin control plane of the wiki. Content changes through the pages and services (revisions,
live events); the admin looks, deletes pages through the service and decides on proposals
through the same service functions."""

from django.contrib import admin, messages
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from apps.core.errors import DomainError
from apps.core.inputs import build
from apps.core.surfaces.admin_bases import NoAddMixin, ReadOnlyAdmin, ReadOnlyInline, ServiceAdmin
from apps.wiki import proposals, services
from apps.wiki.contracts import WikiProposalReject
from apps.wiki.models import WikiPage, WikiProposal, WikiRevision


class RevisionInline(ReadOnlyInline):
    model = WikiRevision
    fk_name = "page"
    fields = ("number", "title", "author", "comment", "created_at")
    readonly_fields = fields
    ordering = ("-number",)


@admin.register(WikiPage)
class WikiPageAdmin(NoAddMixin, ServiceAdmin):
    list_display = ("title", "slug", "updated_by", "updated_at")
    search_fields = ("title", "slug", "body")
    list_select_related = ("updated_by",)
    readonly_fields = ("slug", "title", "body", "current_revision", "created_by", "updated_by")
    exclude = ("search",)
    inlines = [RevisionInline]

    def has_change_permission(self, request, obj=None):
        return False  # pages are edited on the wiki itself (revisions, live events)

    def get_deleted_objects(self, objs, request):
        """A page's revisions and proposals go with it; they are not deletable on their own."""
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def service_delete(self, request, obj):
        services.delete_page(request.principal, page_id=obj.pk)


@admin.register(WikiRevision)
class WikiRevisionAdmin(ReadOnlyAdmin):
    list_display = ("page", "number", "author", "comment", "created_at")
    list_select_related = ("page", "author")
    search_fields = ("page__title", "comment")


@admin.register(WikiProposal)
class WikiProposalAdmin(ReadOnlyAdmin):
    list_display = ("title", "slug", "status", "proposed_by", "proposed_by_service", "created_at", "reviewer")
    list_filter = ("status",)
    search_fields = ("title", "slug", "body", "comment")
    list_select_related = ("proposed_by", "proposed_by_service", "reviewer")
    actions = ["accept", "reject"]

    def _decide(self, request, queryset, decide, done_message):
        """Each proposal is decided on its own: one refusal (already decided, page moved on) is
        reported with the proposal's name and does not stop the others."""
        done = 0
        for proposal in queryset:
            try:
                decide(request.principal, proposal.pk)
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
        reason = build(WikiProposalReject, reason=_("Rejected in the administration."))
        self._decide(
            request,
            queryset,
            lambda principal, pk: proposals.reject_proposal(principal, pk, reason),
            lambda n: ngettext("%(n)d proposal rejected.", "%(n)d proposals rejected.", n),
        )
