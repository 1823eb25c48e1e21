"""Stable failure codes of deadline computation and the rule catalog."""

from apps.core.errors import InvalidInput, NotFound


class DeadlineRuleNotFound(NotFound):
    """No deadline rule with that code (or it is inactive)."""

    code = "deadline_rule_not_found"


class DeadlineTriggerMissing(InvalidInput):
    """A deadline needs the date of its triggering event (Bekanntgabe, Zustellung, Verkündung, posting)."""

    code = "deadline_trigger_missing"


class DeadlineDurationInvalid(InvalidInput):
    """A deadline's duration must be at least one day and at most ten years, in days, weeks, months or years."""

    code = "deadline_duration_invalid"


class DeadlineBundeslandUnknown(InvalidInput):
    """Not one of the 16 German Länder codes (BW, BY, BE, BB, HB, HH, HE, MV, NI, NW, RP, SL, SN, ST, SH, TH)."""

    code = "deadline_bundesland_unknown"
