"""REST API of the Kalender for mobile clients (`/api/v1/calendar/…`): thin typed adapters over the
same services, input models and records as the tools and pages (see `apps.core.surfaces.api.endpoint`),
and the public `.ics` subscription feed that Outlook and Apple Calendar poll."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer

from apps.calendar import contracts as c
from apps.calendar import feed, lifecycle, services
from apps.calendar.records import event_record, history_record
from apps.core.contracts import page
from apps.core.origin import Origin
from apps.core.surfaces.api import ApiView, endpoint, listed


class EventListView(ApiView):
    @endpoint(query=c.EventFilter, output=c.EventPage, operation_id="calendar_events_list")
    def get(self, request, query: c.EventFilter):
        """Occurrences in a window (series expanded), with total"""
        found = services.list_events(request.principal, query)
        return listed("events", lambda o: event_record(o.event, o), found, query)

    @endpoint(body=c.EventCreate, output=c.EventResult, status=201, operation_id="calendar_events_create")
    def post(self, request, body: c.EventCreate):
        """Create an appointment or a Frist"""
        event = services.create_event(request.principal, body, origin=Origin.of_request(request))
        return {"event": event_record(event)}


class EventDetailView(ApiView):
    @endpoint(output=c.EventResult, operation_id="calendar_events_retrieve")
    def get(self, request, event_id: int):
        """One entry"""
        return {"event": event_record(services.get_event(request.principal, event_id))}

    @endpoint(body=c.EventUpdate, output=c.EventResult, operation_id="calendar_events_partial_update")
    def patch(self, request, event_id: int, body: c.EventUpdate):
        """Change some fields (partial); optional expected_version (409 version_conflict)"""
        event = services.update_event(request.principal, event_id, body)
        return {"event": event_record(event)}

    @endpoint(output=None, status=204, operation_id="calendar_events_destroy")
    def delete(self, request, event_id: int):
        """Delete an appointment (a Frist answers 409 deadline_not_deletable: cancel it)"""
        services.delete_event(request.principal, event_id)


class DeadlineListView(ApiView):
    @endpoint(query=c.DeadlineFilter, output=c.DeadlinePage, operation_id="calendar_deadlines_list")
    def get(self, request, query: c.DeadlineFilter):
        """The Fristenkontrolle: filtered Fristen, overdue first, then by due date"""
        records, total = services.deadline_page(
            request.principal, query.filters(), limit=query.limit, offset=query.offset
        )
        return page("deadlines", records, total, limit=query.limit, offset=query.offset)


class DeadlineCompleteView(ApiView):
    @endpoint(body=c.DeadlineComplete, output=c.EventResult, operation_id="calendar_deadlines_complete")
    def post(self, request, event_id: int, body: c.DeadlineComplete):
        """Mark an open Frist done (how, optional link); 409 deadline_not_open otherwise"""
        return {"event": event_record(lifecycle.complete_deadline(request.principal, event_id, body))}


class DeadlineCancelView(ApiView):
    @endpoint(body=c.DeadlineCancel, output=c.EventResult, operation_id="calendar_deadlines_cancel")
    def post(self, request, event_id: int, body: c.DeadlineCancel):
        """Cancel an open Frist with a reason; 409 deadline_not_open otherwise"""
        return {"event": event_record(lifecycle.cancel_deadline(request.principal, event_id, body))}


class DeadlineReopenView(ApiView):
    @endpoint(body=c.DeadlineReopen, output=c.EventResult, operation_id="calendar_deadlines_reopen")
    def post(self, request, event_id: int, body: c.DeadlineReopen):
        """Open a done or cancelled Frist again with a reason; 409 deadline_not_closed when open"""
        return {"event": event_record(lifecycle.reopen_deadline(request.principal, event_id, body))}


class DeadlineHistoryView(ApiView):
    @endpoint(output=c.DeadlineHistory, operation_id="calendar_deadlines_history")
    def get(self, request, event_id: int):
        """A Frist's Fristenbuch: every change of due date, people, status and Vorfristen"""
        event = services.get_event(request.principal, event_id)
        return {"history": [history_record(row) for row in lifecycle.history(event)]}


# --- the .ics feed --------------------------------------------------------------------------------
class ICalendarRenderer(BaseRenderer):
    """The feed's media type. The feed answers with its own response; this renders only DRF's
    own refusals (an unknown link's 404, a 405), as their text."""

    media_type = "text/calendar"
    format = "ics"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if isinstance(data, dict):
            data = data.get("detail") or data.get("message") or ""
        return str(data or "").encode(self.charset)


class AnyAccept(BaseContentNegotiation):
    """Calendar clients send whatever Accept header they like: the feed is always text/calendar."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class FeedView(ApiView):
    """Public (no login, no rate limit): the secret in the path is the credential."""

    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = ()
    renderer_classes = (ICalendarRenderer,)
    content_negotiation_class = AnyAccept
    http_method_names = ["get"]

    @endpoint(
        output=None,
        operation_id="calendar_feed",
        extra_responses={
            200: OpenApiResponse(OpenApiTypes.STR, description="VCALENDAR text (RFC 5545)."),
            404: OpenApiResponse(description="Unknown, revoked or disabled link."),
        },
    )
    def get(self, request, token: str):
        """A person's calendar as an iCalendar subscription (series as RRULE)"""
        user = feed.user_for_token(token)
        if user is None:
            raise Http404
        response = HttpResponse(feed.render_feed(user), content_type="text/calendar; charset=utf-8")
        response["Content-Disposition"] = 'inline; filename="clapilot.ics"'
        response["Cache-Control"] = "private, max-age=300"
        response["X-Robots-Tag"] = "noindex"
        return response
