"""The review queue in the admin: the same queues, filters, bulk decisions and audit as the staff
page, on one admin page (Review → Review queue). Decisions go through the same service."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse

from apps.accounts.principal import Principal
from apps.review import services
from apps.review.errors import NotAReviewer
from apps.review.models import ReviewQueue
from apps.review.views import back_to, decide_from_post, queue_context


@admin.register(ReviewQueue)
class ReviewQueueAdmin(admin.ModelAdmin):
    def _reviewer(self, request) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and services.kinds_for(Principal.for_user(user)))

    def has_module_permission(self, request) -> bool:
        return self._reviewer(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return self._reviewer(request)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def changelist_view(self, request, extra_context=None):
        if not self._reviewer(request):
            raise PermissionDenied
        if request.method == "POST":
            decide_from_post(request)
            return back_to(request, request.path)
        try:
            queue = queue_context(request, request.principal, decide_url=request.path)
        except NotAReviewer:
            raise PermissionDenied from None
        context = {
            **self.admin_site.each_context(request),
            **queue,
            "opts": self.model._meta,
            "title": self.model._meta.verbose_name_plural,
        }
        partial = request.htmx and request.htmx.target == "review-queue"
        template = "review/_queue.html" if partial else "admin/review/queue.html"
        return TemplateResponse(request, template, context)
