"""UI mutation events: the persisted, replayable record of user-visible changes.

One row per change and audience (never one row per recipient), so a change to shared data costs
one insert however many users are online, and a reconnecting client can replay by id cursor.
"""

from __future__ import annotations

from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.db.models import Func, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import user_link

# SQL functions created by migration 0001 (they read pg_stat_activity, which a column DEFAULT
# cannot query directly). Both look at other sessions of this database only.
RUNNING_XID_MAX = "mutation_event_running_xid_max"
RUNNING_XID_MIN = "mutation_event_running_xid_min"


class MutationEvent(models.Model):
    class Audience(models.TextChoices):
        USER = "user", _("One user")
        ALL = "all", _("All users")
        ALL_EXCEPT = "all_except", _("All users except one")

    # The id doubles as the replay cursor: it must only ever grow (BigAutoField sequence).
    id = models.BigAutoField(primary_key=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    audience = models.CharField(_("audience"), max_length=16, choices=Audience.choices)
    # The one recipient for USER, the one excluded user for ALL_EXCEPT, empty for ALL. Deleting a
    # user deletes the events that name them: their private events must not outlive them.
    user = user_link(_("user"), on_delete=models.CASCADE)
    topic = models.CharField(_("topic"), max_length=100)
    ui_actions = models.JSONField(_("UI actions"), default=list, blank=True)
    trigger_reload = models.BooleanField(_("reload views"), default=False)
    refresh_topic = models.CharField(_("refresh topic"), max_length=100, blank=True)
    origin_tool = models.CharField(_("origin tool"), max_length=100, blank=True)
    origin_run = models.CharField(_("origin run"), max_length=64, blank=True)
    # Who caused the change (NULL: the system) and the one operation it belongs to: a page shows
    # one notice per operation and none for the viewer's own changes (apps/mutations/origin.py).
    # A plain id, not a foreign key: a job may record an event for an actor deleted meanwhile,
    # and a notice filter needs nothing but the number.
    actor_id = models.PositiveBigIntegerField(_("actor"), null=True, blank=True)
    operation = models.CharField(_("operation"), max_length=32, blank=True)
    # The newest transaction id of this database still running when the row was inserted (NULL:
    # none). Such a transaction may hold a smaller event id that is not committed yet; cursor
    # readers stop before this row until it has finished (see services._first_unsettled).
    pending_xid = models.BigIntegerField(
        _("pending transaction"),
        null=True,
        blank=True,
        editable=False,
        db_default=Func(function=RUNNING_XID_MAX, output_field=models.BigIntegerField()),
    )

    class Meta:
        verbose_name = _("UI mutation event")
        verbose_name_plural = _("UI mutation events")
        ordering = ["-id"]
        constraints = [
            # The audience/user combination is what keeps private data private; enforce it in the
            # database too, not only in the service.
            models.CheckConstraint(
                condition=(Q(audience="all", user__isnull=True))
                | (Q(audience__in=["user", "all_except"], user__isnull=False)),
                name="mutation_event_audience_user",
            ),
        ]
        indexes = [
            # Cursor reads scan by id and test audience/user from the index, skipping the heap
            # for other users' private rows.
            models.Index(fields=["id", "audience", "user"], name="mutation_event_visibility"),
            # Retention deletes by age; rows arrive in time order, so a tiny BRIN index suffices.
            BrinIndex(fields=["created_at"], name="mutation_event_created_brin"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.topic} ({self.get_audience_display()})"
