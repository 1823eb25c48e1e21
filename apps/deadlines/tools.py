"""The agent tool of deadline computation (family `calendar`: it sits beside the Kalender's tools)."""

from __future__ import annotations

from apps.deadlines import contracts as c
from apps.deadlines import services
from apps.deadlines.records import deadline_record
from apps.tools.context import ToolContext
from apps.tools.registry import WITH_LIVE, tool


@tool(
    name="calendar_compute_deadline",
    output=c.DeadlineResult,
    family="calendar",
    surfaces=WITH_LIVE,
    read_only=True,
)
def compute_deadline(ctx: ToolContext, args: c.DeadlineCompute) -> dict:
    """Compute when a German Frist ends, with the explanation for the Fristenbuch: from trigger_date
    (Bekanntgabe, Zustellung, Verkündung; with posted=true the posting day, Bekanntgabe fiction) and a
    rule code (e.g. einspruch_ao, klage_fgo, berufung_zpo) or amount + unit. Applies §§ 187, 188 BGB and
    moves an end off weekends and the Bundesland's public holidays. Writes nothing; create the Frist
    with calendar_create_event afterwards."""
    result, rule, amount, unit = services.compute_deadline(**args.model_dump())
    return {"deadline": deadline_record(result, amount=amount, unit=unit, posted=args.posted, rule=rule)}
