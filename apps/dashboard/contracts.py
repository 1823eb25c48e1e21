"""What the Heute page reads from its address."""

from __future__ import annotations

from typing import Literal

from apps.core.contracts import Input


class DayView(Input):
    """`?ansicht=kanzlei`: the whole office's day (admins and holders of view_office_day)."""

    ansicht: Literal["meine", "kanzlei"] = "meine"
