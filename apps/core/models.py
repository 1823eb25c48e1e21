"""Instance-level housekeeping state, and the abstract bases the domain apps' tables share."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class Timestamped(models.Model):
    """When a row was created and last saved, labelled in the viewer's language wherever the admin
    or a form shows them.

    Abstract fields sort before the model's own in `_meta.fields` (their creation counter is
    older); columns are unaffected (the labels are migration state only)."""

    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        abstract = True


class Versioned(models.Model):
    """Optimistic concurrency (`apps.core.db.versioning`): bumped by every write; clients send it back
    so a stale save is detected."""

    version = models.PositiveIntegerField(default=1)

    class Meta:
        abstract = True


class CreatedAt(models.Model):
    """When the row was made, labelled "created" where the admin shows it (events, logs,
    proposals, definitions)."""

    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        abstract = True


class UpdatedAt(models.Model):
    """When the row was last saved, labelled "updated" (settings and switches edited in place)."""

    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        abstract = True


class StartedFinished(models.Model):
    """When a run or job began and ended; empty until it does."""

    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        abstract = True


class Heartbeat(models.Model):
    """One row per component that proves it is alive (e.g. beat → worker → database)."""

    component = models.CharField(_("component"), max_length=64, unique=True)
    beat_at = models.DateTimeField(_("last beat"))
    hostname = models.CharField(_("host"), max_length=255, blank=True)
    count = models.PositiveBigIntegerField(_("beats"), default=0)

    class Meta:
        verbose_name = _("heartbeat")
        verbose_name_plural = _("heartbeats")

    def __str__(self) -> str:
        return f"{self.component} @ {self.beat_at:%Y-%m-%d %H:%M:%S}"


class InstanceSetting(UpdatedAt):
    """Instance-wide settings and one-time markers (key → JSON value), edited in the admin."""

    key = models.CharField(_("key"), max_length=100, unique=True)
    value = models.JSONField(_("value"), default=dict, blank=True)

    class Meta:
        verbose_name = _("instance setting")
        verbose_name_plural = _("instance settings")
        ordering = ["key"]

    def __str__(self) -> str:
        return self.key


class ProtectedJob(models.Model):
    """A beat entry an app declared `protected` (`PeriodicJob(protected=True)`): the admin may
    pause or retime it, never delete it. Written only by `ensure_periodic_tasks`, the one writer
    of beat rows; the database refuses the delete (PROTECT), whichever way it comes."""

    task = models.OneToOneField(
        "django_celery_beat.PeriodicTask",
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="+",
        verbose_name=_("schedule"),
    )
    app = models.CharField(_("app"), max_length=100)

    class Meta:
        verbose_name = _("protected schedule")
        verbose_name_plural = _("protected schedules")

    def __str__(self) -> str:
        return str(self.task_id)
