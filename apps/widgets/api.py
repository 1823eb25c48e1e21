"""REST API of widgets for mobile clients (`/api/v1/widgets/…`): thin typed adapters over the same
services, input models and records as the tools (see `apps.core.api.endpoint`)."""

from __future__ import annotations

from apps.core.api import ApiView, endpoint, refusal
from apps.widgets import contracts as c
from apps.widgets import services
from apps.widgets.records import widget_record


class WidgetListView(ApiView):
    @endpoint(query=c.WidgetFilter, output=c.WidgetList, operation_id="widgets_list")
    def get(self, request, query: c.WidgetFilter):
        """Your widgets"""
        widgets = services.list_widgets(
            request.principal, dashboard_only=query.dashboard_only, query=query.query
        )
        return {"widgets": [widget_record(w) for w in widgets], "count": len(widgets)}

    @endpoint(
        body=c.WidgetCreate,
        output=c.WidgetResult,
        status=201,
        operation_id="widgets_create",
        extra_responses={409: refusal("`slug_taken`: you already have a widget with that address.")},
    )
    def post(self, request, body: c.WidgetCreate):
        """Create a widget (type inferred from latest_data without a widget_definition)"""
        return {"widget": widget_record(services.create_widget(request.principal, **body.service_kwargs()))}


class WidgetDetailView(ApiView):
    @endpoint(output=c.WidgetResult, operation_id="widgets_retrieve")
    def get(self, request, widget_id: int):
        """One widget"""
        return {"widget": widget_record(services.get_widget(request.principal, widget_id=widget_id))}

    @endpoint(
        body=c.WidgetPatch,
        output=c.WidgetResult,
        operation_id="widgets_partial_update",
        extra_responses={409: refusal("`slug_taken`, or `version_conflict` (see `expected_version`).")},
    )
    def patch(self, request, widget_id: int, body: c.WidgetPatch):
        """Change some fields and/or replace the latest data; optional expected_version"""
        who, expected, widget = request.principal, body.expected_version, None
        changes = body.changes()
        if changes:
            widget = services.update_widget(who, changes, widget_id=widget_id, expected_version=expected)
            expected = None
        if "latest_data" in body.model_fields_set:
            widget = services.update_data(
                who, body.latest_data, widget_id=widget_id, expected_version=expected
            )
        if widget is None:
            widget = services.get_widget(who, widget_id=widget_id)
        return {"widget": widget_record(widget)}

    @endpoint(output=None, status=204, operation_id="widgets_destroy")
    def delete(self, request, widget_id: int):
        """Remove a widget"""
        services.delete_widget(request.principal, widget_id=widget_id)
