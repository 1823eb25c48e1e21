"""A person @-mentioned in a note's page hears of it (see `apps.notifications.mentions`).

The rule, the same as in task comments: `@Vorname Nachname` (the person's full name, one or two
words, any case) or `@email` of an active colleague. The watched text is the page's plain text
(`NotePage.text`, derived from the sanitized HTML), so markup never hides or fakes a mention.
Only people who may see the note are told: everybody for a note shared with the office; for a
private note its owner and whoever it (or its private folder) is shared with — a mention never
reveals a private note. The author is never told, and a page saved again with the same mention
tells nobody twice.
"""

from __future__ import annotations

from apps.mutations.audience import EVERYONE
from apps.notes.models import Note
from apps.notes.visibility import viewers
from apps.notifications.mentions import MentionWatch


def _can_see(note: Note, user) -> bool:
    note_viewers = viewers(note)
    return note_viewers == EVERYONE or user.pk in note_viewers


PAGE_MENTIONS = MentionWatch(
    model="notes.NotePage",
    text="text",
    record=lambda page: page.note,
    url=lambda note: note.url,
    can_see=_can_see,
    label=lambda note: note.name,
)
