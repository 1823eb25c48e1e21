"""What the Heute page and the header search read from their addresses."""

from __future__ import annotations

from typing import Literal

from apps.core.contracts import Input


class DayView(Input):
    """`?ansicht=kanzlei`: the whole office's day (admins and holders of view_office_day)."""

    ansicht: Literal["meine", "kanzlei"] = "meine"


class SearchQuery(Input):
    """`?q=`: the header search's words (checked by `search.clean`, which answers a refusal
    on the results page itself)."""

    q: str = ""
