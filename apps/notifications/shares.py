""" "Shared with me": a person who gains sight of a record through a share (a task board, a
folder, a note — whatever `apps.core.sharing` grants) gets a notification.

Shares are django-guardian object permissions, so this listens to the permission rows instead of
each domain's share service: the first permission a person gets on a record notifies (a level
upgrade or a grant of several rights does not again), the actor is never told, a grant written
outside any operation tells nobody, and a repeated grant writes no row and so sends nothing.
Group shares are not announced (a group can be the whole office).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models.signals import post_save
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from guardian.utils import get_user_obj_perms_model

from apps.mutations.origin import current_operation
from apps.notifications.services import notify

TITLE = _("%(who)s shared with you: %(title)s")


def connect() -> None:
    post_save.connect(
        on_permission, sender=get_user_obj_perms_model(), weak=False, dispatch_uid="notifications.shared"
    )


def on_permission(sender: Any, instance: Any, created: bool, raw: bool = False, **kwargs: Any) -> None:
    op = current_operation()
    if not created or raw or op is None or op.actor_id in (None, instance.user_id):
        return
    first = (
        not sender.objects.filter(
            user_id=instance.user_id, content_type_id=instance.content_type_id, object_pk=instance.object_pk
        )
        .exclude(pk=instance.pk)
        .exists()
    )
    if not first:
        return
    obj = instance.content_object
    person = get_user_model().objects.filter(pk=instance.user_id, is_active=True).first()
    actor = get_user_model().objects.filter(pk=op.actor_id).first()
    if obj is None or person is None or actor is None:
        return
    label = getattr(obj, "title", None) or getattr(obj, "name", None) or str(obj)
    with translation.override(getattr(person, "language", None) or settings.LANGUAGE_CODE):
        title = str(TITLE) % {"who": actor.get_full_name() or actor.email, "title": label}
    url = getattr(obj, "url", "")
    notify(
        person,
        kind="shared",
        title=title,
        url=url if isinstance(url, str) else "",
        data={"model": instance.content_type.model, "id": obj.pk},
        key=f"shared:{instance.content_type_id}:{instance.object_pk}:{instance.pk}",
    )
