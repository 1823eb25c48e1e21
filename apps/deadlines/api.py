"""REST API of deadline computation (`/api/v1/deadlines/…`): typed adapters over the services.

Closed to instance API keys (no `required_scopes`); a key reaches the computation through the
tool endpoint with `tools:execute`. Session and device-token requests act as the member."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse

from apps.core.contracts import ErrorOut
from apps.core.surfaces.api import ApiView, endpoint, listed
from apps.deadlines import contracts as c
from apps.deadlines import services
from apps.deadlines.records import deadline_record, rule_record

TAGS = ["deadlines"]


class ComputeView(ApiView):
    @endpoint(
        body=c.DeadlineCompute,
        output=c.DeadlineResult,
        operation_id="deadlines_compute",
        tags=TAGS,
        extra_responses={
            404: OpenApiResponse(ErrorOut, description="`deadline_rule_not_found` (names the known rules).")
        },
    )
    def post(self, request, body: c.DeadlineCompute):
        """Compute when a Frist ends (rule or duration), with its explanation; writes nothing"""
        result, rule, amount, unit = services.compute_deadline(**body.model_dump())
        return {"deadline": deadline_record(result, amount=amount, unit=unit, posted=body.posted, rule=rule)}


class RuleListView(ApiView):
    @endpoint(query=c.RuleFilter, output=c.RulePage, operation_id="deadlines_rules_list", tags=TAGS)
    def get(self, request, query: c.RuleFilter):
        """The active deadline rules (code, duration, legal basis)"""
        found = services.list_rules(query=query.query, limit=query.limit, offset=query.offset)
        return listed("rules", rule_record, found, query)


class WorkingDayView(ApiView):
    @endpoint(
        query=c.WorkingDayQuery, output=c.WorkingDayOut, operation_id="deadlines_working_day", tags=TAGS
    )
    def get(self, request, query: c.WorkingDayQuery):
        """Whether a day is a working day, and the day a Frist ending then really ends (form warning)"""
        return services.working_day(query.date, query.state)
