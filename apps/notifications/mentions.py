"""@-mentions: a person named in a text (`@Vorname Nachname` or `@email`) of a comment or note
hears of it — if, and only if, they may see the record the text belongs to (never a leak).

Apps contribute a `MentionWatch` to `notifications.mention_watches`; model signals find the names
that are new in the saved text (an edit that keeps a mention does not repeat it). The author is
never told; text written outside any operation tells nobody; the key keeps one notification per
person and text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Model, Q
from django.db.models.signals import post_init, post_save
from django.utils import translation
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from apps.mutations.origin import current_operation
from apps.notifications.services import notify

TITLE = _("%(who)s mentioned you: %(title)s")
MAX_MENTIONS = 20  # names looked up per text; a longer list is not a mention but a mailing
EXCERPT = 200
_SNAPSHOT = "_notifications_mention_text"
_EMAIL = re.compile(r"@([\w.+-]+@[\w-]+(?:\.[\w-]+)+)")
_NAME = re.compile(r"(?<![\w@])@(\w[\w'-]*(?:\s+\w[\w'-]*)?)")


@dataclass(frozen=True)
class MentionWatch:
    """`model`: "app_label.ModelName"; `text`: the field holding the text. `record(obj)` is what
    the text is about (a comment's task; a note itself), `url(record)` links it, `can_see(record,
    user)` decides who may be told, `label(record)` names it."""

    model: str
    text: str
    url: Callable[[Any], str]
    can_see: Callable[[Any, Any], bool]
    record: Callable[[Any], Any] = field(default=lambda obj: obj)
    label: Callable[[Any], str] = field(default=lambda record: getattr(record, "title", "") or str(record))


def mentioned(text: str) -> tuple[set[str], set[str]]:
    """The e-mail addresses and the names ("Vorname Nachname", lower-case) written after an @."""
    emails = {m.lower() for m in _EMAIL.findall(text or "")}
    names = {" ".join(m.split()).lower() for m in _NAME.findall(_EMAIL.sub(" ", text or ""))}
    return emails, names


def people(text: str) -> list[Any]:
    """The active people a text mentions, in one query."""
    emails, names = mentioned(text)
    terms = [Q(email__iexact=e) for e in sorted(emails)] + [Q(full_name__iexact=n) for n in sorted(names)]
    if not terms:
        return []
    return list(get_user_model().objects.filter(reduce(or_, terms[:MAX_MENTIONS]), is_active=True))


def connect(watches: tuple[MentionWatch, ...]) -> None:
    for watch in watches:
        model = apps.get_model(watch.model)
        uid = f"notifications.mentions.{watch.model}"
        post_init.connect(_remember(watch), sender=model, weak=False, dispatch_uid=f"{uid}.init")
        post_save.connect(_on_save(watch), sender=model, weak=False, dispatch_uid=f"{uid}.save")


def _remember(watch: MentionWatch) -> Callable[..., None]:
    def receiver(sender: type, instance: Model, **kwargs: Any) -> None:
        instance.__dict__[_SNAPSHOT] = instance.__dict__.get(watch.text)  # no query for a deferred field

    return receiver


def _on_save(watch: MentionWatch) -> Callable[..., None]:
    def receiver(sender: type, instance: Model, created: bool, raw: bool = False, **kwargs: Any) -> None:
        before = "" if created else instance.__dict__.get(_SNAPSHOT)
        text = instance.__dict__.get(watch.text) or ""
        instance.__dict__[_SNAPSHOT] = text
        op = current_operation()
        if raw or op is None or before is None or text == before or "@" not in text:
            return
        already = {p.pk for p in people(before)} if before else set()
        found = [p for p in people(text) if p.pk not in already and p.pk != op.actor_id]
        if found:
            _tell(watch, instance, text, found, op.actor_id)

    return receiver


def _tell(watch: MentionWatch, obj: Model, text: str, found: list[Any], actor_id: int | None) -> None:
    record = watch.record(obj)
    actor = get_user_model().objects.filter(pk=actor_id).first() if actor_id else None
    who = (actor.get_full_name() if actor else "") or "Clapilot"
    for person in found:
        if not watch.can_see(record, person):
            continue  # no leak: they would learn of a record they may not see
        with translation.override(getattr(person, "language", None) or settings.LANGUAGE_CODE):
            title = str(TITLE) % {"who": who, "title": watch.label(record)}
        notify(
            person,
            kind="mention",
            title=title,
            body=Truncator(text).chars(EXCERPT),
            url=watch.url(record),
            data={"model": watch.model, "id": obj.pk},
            key=f"mention:{watch.model}:{obj.pk}",
        )
