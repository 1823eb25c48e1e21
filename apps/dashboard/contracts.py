"""What the Heute page and the header search read from their addresses."""

from __future__ import annotations

from typing import Literal

from pydantic import field_validator

from apps.core.contracts import Input

PROMPT_MAX = 4000  # the start page's prompt box: longer text is cut, as the box's maxlength does


class DayView(Input):
    """`?ansicht=kanzlei`: the whole office's day (admins and holders of view_office_day)."""

    ansicht: Literal["meine", "kanzlei"] = "meine"


class SearchQuery(Input):
    """`?q=`: the header search's words (checked by `search.clean`, which answers a refusal
    on the results page itself)."""

    q: str = ""


class AskPrompt(Input):
    """The start page's prompt: a new chat begins with it (an empty one is the chat's refusal)."""

    prompt: str = ""

    @field_validator("prompt")
    @classmethod
    def _cut(cls, value: str) -> str:
        return value[:PROMPT_MAX]
