"""Reasons the system writes into the Fristenbuch (a document naming a new date, …), stored as a
code with its values and rendered in the reader's language: a German reason must not appear on an
English or Italian page. A person's own reason is their words and is shown as typed."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _

# code -> message with %(name)s placeholders; a code, once written, is never renamed.
SYSTEM_REASONS = {
    "document_names_new_date": _("The document “%(title)s” names a new date."),
}


@dataclass(frozen=True)
class CodedReason:
    """A reason given to `services.update_event` by code (e.g. by the document workflow)."""

    code: str
    params: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.code not in SYSTEM_REASONS:
            raise ValueError(f"unknown Fristenbuch reason code {self.code!r}")

    def text(self) -> str:
        """In the active language (the writer's, for the stored fallback text)."""
        return shown_reason(self.code, self.params, "")


def shown_reason(code: str, params: dict, fallback: str) -> str:
    message = SYSTEM_REASONS.get(code)
    if message is None:
        return fallback
    try:
        return str(message) % {k: str(v) for k, v in (params or {}).items()}
    except (KeyError, TypeError, ValueError):  # values of an older message: the stored wording
        return fallback
