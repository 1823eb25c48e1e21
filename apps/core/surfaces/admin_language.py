"""Admin texts in the viewer's language that no catalog entry alone can fix.

Django stores a permission's name in the database at migrate time ("Can add user"), in English
whatever the office speaks; the admin's permission widget showed those rows. The label is built
at display time instead: the standard actions from the model's translated verbose name, other
permissions through the catalogs (their names are msgids).

django-celery-beat names an interval with "every {} {}" and the lower-cased period ("jede 900
sekunden"): German nouns cannot survive that, so its display is replaced by whole sentences."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.models import Group, Permission
from django.db.models import ManyToManyField
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django_celery_beat.models import IntervalSchedule

ACTIONS = {
    "add": _("Can add %(model)s"),
    "change": _("Can change %(model)s"),
    "delete": _("Can delete %(model)s"),
    "view": _("Can view %(model)s"),
}


def permission_label(permission: Permission) -> str:
    """ "App | model | action" in the active language (the content type is select_related)."""
    content_type = permission.content_type
    model = content_type.model_class()
    if model is None:  # a stale content type: its stored names are all there is
        return str(permission)
    opts = model._meta
    # Third-party models name themselves without gettext: their names are msgids of our catalogs.
    app_name = gettext(str(opts.app_config.verbose_name))
    model_name = gettext(str(opts.verbose_name))
    action, _sep, model_part = permission.codename.partition("_")
    if action in ACTIONS and model_part == opts.model_name:
        name = ACTIONS[action] % {"model": model_name}
    else:
        name = gettext(permission.name)
    return f"{app_name} | {model_name} | {name}"


class PermissionChoiceField(forms.ModelMultipleChoiceField):  # type: ignore[type-arg]
    def label_from_instance(self, obj: Permission) -> str:
        return permission_label(obj)


class GroupAdmin(DjangoGroupAdmin):
    # Group's one many-to-many field is its permissions (Django's GroupAdmin select_relates them).
    formfield_overrides = {ManyToManyField: {"form_class": PermissionChoiceField}}


admin.site.unregister(Group)
admin.site.register(Group, GroupAdmin)


def interval_label(schedule: IntervalSchedule) -> str:
    """ "alle 15 Minuten", "jeden Tag": the interval as a sentence of the active language."""
    n, period = schedule.every, schedule.period
    if period == IntervalSchedule.DAYS:
        text = ngettext("every day", "every %(count)d days", n)
    elif period == IntervalSchedule.HOURS:
        text = ngettext("every hour", "every %(count)d hours", n)
    elif period == IntervalSchedule.MINUTES:
        text = ngettext("every minute", "every %(count)d minutes", n)
    elif period == IntervalSchedule.SECONDS:
        text = ngettext("every second", "every %(count)d seconds", n)
    else:
        text = ngettext("every microsecond", "every %(count)d microseconds", n)
    return text % {"count": n}


IntervalSchedule.__str__ = interval_label
