""" "You were put in charge": a person newly named in a person field of some record (the
Zuständig or Vertretung of a Frist, the assignee of a task) gets a notification.

Apps above this one contribute a `PeopleWatch` to the `notifications.people_watches` extension
point; at start-up each watch connects model signals, so the owning app's services stay
untouched and this app imports none of them. Rules:

* the actor never hears of their own action (the actor is the current mutation operation's);
  rows written outside any operation (a shell, fixtures, test data) notify nobody;
* only a change notifies: a save that keeps the person (a redelivered job, an edit of the title)
  sends nothing, and the key (record, field, person, version) keeps a repeat once;
* a person who may not see the record is not told about it (`can_see`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Model
from django.db.models.signals import post_init, post_save
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from apps.mutations.origin import current_operation
from apps.notifications.services import notify

_SNAPSHOT = "_notifications_people"

# The wording lives here, with the other notification texts; a watch names a kind of these.
TITLES = {
    "deadline.responsible": _("You are responsible for the Frist: %(title)s"),
    "deadline.deputy": _("You are the deputy for the Frist: %(title)s"),
    "task.assigned": _("A task was assigned to you: %(title)s"),
}


@dataclass(frozen=True)
class PeopleWatch:
    """`model`: "app_label.ModelName". `fields`: foreign-key field name → notification kind.
    Each kind must be one of `TITLES`; `url(obj)` links the record (its `title` names it).
    `applies(obj)` narrows the records (e.g. only Fristen); `can_see(obj, user)` guards leaks."""

    model: str
    fields: dict[str, str]
    url: Callable[[Any], str]
    applies: Callable[[Any], bool] = field(default=lambda obj: True)
    can_see: Callable[[Any, Any], bool] = field(default=lambda obj, user: True)


def connect(watches: tuple[PeopleWatch, ...]) -> None:
    for watch in watches:
        unknown = set(watch.fields.values()) - set(TITLES)
        if unknown:
            raise ValueError(f"{watch.model}: notification kinds without a text: {sorted(unknown)}")
        model = apps.get_model(watch.model)
        uid = f"notifications.watch.{watch.model}"
        # Field name → attribute ("assignee" → "assignee_id"), looked up once: the snapshot is
        # taken for every row loaded, dozens per list.
        attnames = {name: getattr(model._meta.get_field(name), "attname", name) for name in watch.fields}
        post_init.connect(_remember(attnames), sender=model, weak=False, dispatch_uid=f"{uid}.init")
        post_save.connect(_on_save(watch, attnames), sender=model, weak=False, dispatch_uid=f"{uid}.save")


def _remember(attnames: dict[str, str]) -> Callable[..., None]:
    watched = tuple(attnames.values())

    def receiver(sender: type, instance: Model, **kwargs: Any) -> None:
        # Read the loaded values only: touching a deferred field here would cost a query per row.
        loaded = instance.__dict__
        loaded[_SNAPSHOT] = {attname: loaded[attname] for attname in watched if attname in loaded}

    return receiver


def _on_save(watch: PeopleWatch, attnames: dict[str, str]) -> Callable[..., None]:
    def receiver(sender: type, instance: Model, created: bool, raw: bool = False, **kwargs: Any) -> None:
        if raw:
            return  # fixtures load data, nobody was put in charge
        before = {} if created else instance.__dict__.get(_SNAPSHOT, {})
        now = {attname: instance.__dict__.get(attname) for attname in attnames.values()}
        instance.__dict__[_SNAPSHOT] = dict(now)
        if not watch.applies(instance):
            return
        op = current_operation()
        if op is None:
            return  # written outside any request, tool or job (a shell, fixtures): nobody acted
        actor_id = op.actor_id
        for name, attname in attnames.items():
            person_id = now[attname]
            if person_id is None or person_id == actor_id:
                continue
            if not created and (attname not in before or before[attname] == person_id):
                continue  # unchanged, or not known to have changed (a partial load)
            _tell(watch, instance, name, person_id)

    return receiver


def _tell(watch: PeopleWatch, obj: Model, name: str, person_id: int) -> None:
    person = get_user_model().objects.filter(pk=person_id, is_active=True).first()
    if person is None or not watch.can_see(obj, person):
        return
    version = getattr(obj, "version", "")
    kind = watch.fields[name]
    with translation.override(getattr(person, "language", None) or settings.LANGUAGE_CODE):
        title = str(TITLES[kind]) % {"title": getattr(obj, "title", None) or str(obj)}
    notify(
        person,
        kind=kind,
        title=title,
        url=watch.url(obj),
        data={"model": watch.model, "id": obj.pk, "field": name},
        key=f"{kind}:{watch.model}:{obj.pk}:{version}",
    )
