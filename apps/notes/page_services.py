"""Page writes of Notizen (re-exported by `apps.notes.services`, the domain's one entry point).

Every HTML value is sanitized here, whoever sends it; the plain text beside it feeds search.
Anyone who sees a note may write its pages: shared notes are the office's, private ones their
owner's.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.db.lookup import get_by_id
from apps.core.db.ordering import make_room, next_position
from apps.core.db.versioning import Versioned
from apps.core.errors import InvalidInput
from apps.notes import attachments, events
from apps.notes import html as rich
from apps.notes.contracts import NotePageCreate, NotePageUpdate
from apps.notes.errors import PageNotFound
from apps.notes.models import PAGE_HTML_MAX, PAGE_TITLE_MAX, Note, NotePage
from apps.notes.reads import get_note
from apps.notes.records import page_record
from apps.notes.visibility import visible_pages

FONT_SIZES = (6, 96)
PAGE_VERSION = Versioned(
    "page", page_record, gettext_lazy("The page was changed by someone else in the meantime.")
)
_FONT_FAMILY = re.compile(r"^[\w\s,'\"-]{1,60}$", re.UNICODE)


def _title(value: Any) -> str:
    return validation.text(value, "title", max_length=PAGE_TITLE_MAX)


def content(html: Any = None, text: Any = None) -> tuple[str, str] | None:
    """(sanitized html, plain text) from either HTML or plain text; None when neither was sent."""
    if html is not None and text is not None:
        raise validation.invalid("html", _("send either html or text, not both"))
    if html is None and text is None:
        return None
    field, value = ("html", html) if html is not None else ("text", text)
    if not isinstance(value, str):
        raise validation.invalid(field, _("must be text"))
    if len(value) > PAGE_HTML_MAX:
        raise validation.invalid(field, _("may have at most %(n)d characters") % {"n": PAGE_HTML_MAX})
    clean = rich.sanitize(value) if field == "html" else rich.from_text(value)
    return clean, rich.plain_text(clean)


def _font_family(value: Any) -> str:
    if value in (None, ""):
        return ""
    if not isinstance(value, str) or not _FONT_FAMILY.match(value.strip()):
        raise validation.invalid("font_family", _("must be a font name like Arial or Georgia, serif"))
    return value.strip()


def _font_size(value: Any) -> int | None:
    if value in (None, ""):
        return None
    low, high = FONT_SIZES
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise validation.invalid(
            "font_size", _("must be a size in points from %(low)d to %(high)d") % {"low": low, "high": high}
        )
    return value


def get_page(principal: Principal, page_id: int, *, for_update: bool = False) -> NotePage:
    qs = visible_pages(principal).select_related("note")
    if for_update:
        qs = qs.select_for_update(of=("self",))
    return get_by_id(qs, page_id, PageNotFound, _("There is no note page with id %(id)s."))


def new_page(
    note: Note, *, ordinal: int, title: Any = "", html: Any = None, text: Any = None, **extra: Any
) -> NotePage:
    """Validate and insert one page (no event: the calling service announces the change)."""
    body = content(html, text) or ("", "")
    return NotePage.objects.create(
        note=note,
        ordinal=ordinal,
        title=_title(title),
        html=body[0],
        text=body[1],
        font_family=_font_family(extra.get("font_family")),
        font_size=_font_size(extra.get("font_size")),
        asset_items=attachments.asset_items(extra.get("asset_items")),
        audio_attachments=attachments.audio_attachments(extra.get("audio_attachments")),
    )


def _touch(note: Note) -> None:
    """The note moves to the top of "recently changed" lists when one of its pages changes."""
    Note.objects.filter(pk=note.pk).update(updated_at=timezone.now())


@transaction.atomic
def create_page(principal: Principal, note_id: int, data: NotePageCreate) -> NotePage:
    """Append a page, or insert it at `position` (0 = first) and shift the later ones."""
    note = get_note(principal, note_id, for_update=True)  # serializes ordinals per note
    ordinal = next_position(note.pages, "ordinal")
    if data.position is not None:
        ordinal = min(data.position, ordinal)
        make_room(note.pages, ordinal, "ordinal")
    values = data.content()
    page = new_page(note, ordinal=ordinal, **(values | {"title": values["title"] or ""}))
    _touch(note)
    events.page_changed(page, note, "notizen.page.created")
    return page


@transaction.atomic
def update_page(principal: Principal, page_id: int, data: NotePageUpdate) -> NotePage:
    """Partial update: fields not sent (`NotePageUpdate.changes()`) stay exactly as they are.
    `html` or `text` replace the content (sanitized); attachment lists replace the stored lists
    when sent. Fonts and attachments are checked here: the REST contract leaves them loose."""
    changes = data.changes()
    page = get_page(principal, page_id, for_update=True)
    PAGE_VERSION.check(page, data.expected_version)
    if "title" in changes:
        page.title = _title(changes["title"])
    body = content(changes.get("html"), changes.get("text"))
    if body is not None:
        page.html, page.text = body
    if "font_family" in changes:
        page.font_family = _font_family(changes["font_family"])
    if "font_size" in changes:
        page.font_size = _font_size(changes["font_size"])
    if "asset_items" in changes:
        page.asset_items = attachments.asset_items(changes["asset_items"])
    if "audio_attachments" in changes:
        page.audio_attachments = attachments.audio_attachments(changes["audio_attachments"])
    page.version += 1
    page.save()
    _touch(page.note)
    events.page_changed(page, page.note, "notizen.page.updated")
    return page


@transaction.atomic
def delete_page(principal: Principal, page_id: int) -> int:
    """A note keeps at least one page."""
    page = get_page(principal, page_id, for_update=True)
    if not page.note.pages.exclude(pk=page.pk).exists():
        raise InvalidInput(_("A note needs at least one page; delete the note instead."))
    pk, note = page.pk, page.note
    page.delete()
    _touch(note)
    events.page_deleted(pk, note)
    return pk
