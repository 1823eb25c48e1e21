"""The admin's "Share" page of a record: the same grants as the share dialog, written through the
domain's service (so the people who lose access get their removal event, and refusals such as
`share_last_owner` show as admin errors). Replaces guardian's object-permission pages, which
wrote the grants directly and announced nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _

from apps.core.errors import DomainError


class SharingAdminMixin:
    """Subclasses set `share_read(principal, pk, *, as_admin)`, `share_grant(principal, pk,
    target, level, *, as_admin)` and `share_revoke(principal, pk, target, *, as_admin)` (as
    staticmethods: the domain's service functions)."""

    change_form_template = "admin/sharing/change_form.html"
    share_read: ClassVar[Callable[..., dict]]
    share_grant: ClassVar[Callable[..., Any]]
    share_revoke: ClassVar[Callable[..., Any]]

    def get_urls(self):
        info = self.model._meta.app_label, self.model._meta.model_name
        own = [
            path(
                "<path:object_id>/teilen/",
                self.admin_site.admin_view(self.share_view),
                name="{}_{}_share".format(*info),
            )
        ]
        return own + super().get_urls()

    def share_view(self, request, object_id):
        obj = self.get_object(request, object_id)
        if obj is None or not self.has_view_permission(request, obj) or not request.user.is_admin:
            raise PermissionDenied
        principal = request.principal
        if request.method == "POST":
            action, target = request.POST.get("action"), request.POST.get("target", "")
            try:
                with transaction.atomic():
                    if action == "grant":
                        self.share_grant(
                            principal, obj.pk, target, request.POST.get("level") or "view", as_admin=True
                        )
                    else:
                        self.share_revoke(principal, obj.pk, target, as_admin=True)
            except DomainError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, _("Sharing saved."))
            return redirect(request.path)
        try:
            shares = self.share_read(principal, obj.pk, as_admin=True)
        except DomainError as exc:
            messages.error(request, exc.message)
            shares = {"grants": [], "levels": [], "owner": None, "can_manage": False}
        labels = {level["key"]: level["label"] for level in shares["levels"]}
        for grant in shares["grants"]:
            grant["level_label"] = labels.get(grant["level"], grant["level"])
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": obj,
            "title": _("Share “%(name)s”") % {"name": obj},
            "shares": shares,
            "people": get_user_model().objects.filter(is_active=True).order_by("full_name", "email"),
            "groups": Group.objects.order_by("name"),
            "change_url": reverse(
                f"admin:{self.model._meta.app_label}_{self.model._meta.model_name}_change", args=[obj.pk]
            ),
        }
        return TemplateResponse(request, "admin/sharing/share.html", context)


def share_admin_url(obj) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_share", args=[obj.pk])
