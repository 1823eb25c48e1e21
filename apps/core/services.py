"""Housekeeping services: heartbeats and the periodic schedule that drives them; the instance
settings (key → JSON value) admins edit."""

from __future__ import annotations

import json
import socket
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core import plugins
from apps.core.contracts import InstanceSettingSave
from apps.core.db.lookup import delete_existing, new_or_existing
from apps.core.db.saving import save_unique
from apps.core.errors import Forbidden, InvalidInput
from apps.core.models import Heartbeat, InstanceSetting

# An `apps.accounts.principal.Principal` (core imports no app).
Principal = Any


def record_heartbeat(component: str, using: str = DEFAULT_DB_ALIAS) -> Heartbeat:
    """Upsert the component's heartbeat in one statement-safe transaction (`using`: another alias
    of the same database, e.g. one without a connection pool)."""
    now = timezone.now()
    rows = Heartbeat.objects.using(using)
    with transaction.atomic(using=using):
        updated = rows.filter(component=component).update(
            beat_at=now, hostname=socket.gethostname(), count=F("count") + 1
        )
        if not updated:
            rows.get_or_create(
                component=component, defaults={"beat_at": now, "hostname": socket.gethostname(), "count": 1}
            )
    return rows.get(component=component)


def heartbeat_age_seconds(component: str) -> float | None:
    beat = Heartbeat.objects.filter(component=component).values_list("beat_at", flat=True).first()
    return None if beat is None else (timezone.now() - beat).total_seconds()


def ensure_periodic_tasks() -> None:
    """Register every app's periodic jobs with django-celery-beat (idempotent): the one writer of
    beat rows. Admins may disable or retime them in the admin; we only create what is missing,
    and mark the protected ones, which nobody may delete."""
    from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

    from apps.core.models import ProtectedJob

    for app, job in ((c.label, job) for c in plugins.domain_apps() for job in c.periodic_jobs):
        schedule: dict = {}
        if job.every_seconds is not None:
            schedule["interval"], _ = IntervalSchedule.objects.get_or_create(
                every=job.every_seconds, period=IntervalSchedule.SECONDS
            )
        else:
            minute, hour, day_of_month, month, day_of_week = (job.crontab or "0 3 * * *").split()
            schedule["crontab"], _ = CrontabSchedule.objects.get_or_create(
                minute=minute,
                hour=hour,
                day_of_month=day_of_month,
                month_of_year=month,
                day_of_week=day_of_week,
                timezone=settings.TIME_ZONE,
            )
        task, _ = PeriodicTask.objects.get_or_create(
            name=job.name, defaults={"task": job.task, "kwargs": json.dumps(job.kwargs), **schedule}
        )
        if job.protected:
            ProtectedJob.objects.get_or_create(task=task, defaults={"app": app})


def get_setting(key: str, default=None):
    from apps.core.models import InstanceSetting

    row = InstanceSetting.objects.filter(key=key).values_list("value", flat=True).first()
    return default if row is None else row


def set_setting(key: str, value) -> None:
    from apps.core.models import InstanceSetting

    InstanceSetting.objects.update_or_create(key=key, defaults={"value": value})


def checked_setting_value(key: str, value: Any) -> Any:
    """The value to store for `key`: an app that declares the key (`core.instance_settings`: a
    dict key → check) checks it and may normalize it; a refusal is its `DomainError` (a Django
    `ValidationError` from a check becomes `invalid_input` on `value`)."""
    for checks in plugins.contributions("core.instance_settings"):
        if key in checks:
            try:
                value = checks[key](value)
            except ValidationError as exc:
                raise InvalidInput.field("value", " ".join(exc.messages)) from None
    return value


def save_instance_setting(
    principal: Principal, data: InstanceSettingSave, setting_id: int | None = None
) -> InstanceSetting:
    """An admin adds a setting (setting_id None) or changes one, checked by the app that declares
    its key; a taken key is `invalid_input` on `key`."""
    _require_admin(principal)
    value = checked_setting_value(data.key, data.value)
    row = new_or_existing(InstanceSetting, setting_id, _("There is no instance setting with id %(id)s."))
    row.key, row.value = data.key, value
    save_unique(row, lambda: InvalidInput.field("key", _("is already used by another setting")))
    return row


@transaction.atomic
def delete_instance_setting(principal: Principal, setting_id: int) -> None:
    """The app's default applies again (`get_setting`'s default)."""
    _require_admin(principal)
    delete_existing(InstanceSetting, setting_id, _("There is no instance setting with id %(id)s."))


def _require_admin(principal: Principal) -> None:
    user = getattr(principal, "user", None)
    if user is None or not user.is_active or not user.is_admin:
        raise Forbidden(_("Only an administrator of the office may do this."))
