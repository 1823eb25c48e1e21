"""REST API of widgets for mobile clients (`/api/v1/widgets/…`): thin typed adapters over the same
services, input and output models as the tools (see `apps.core.surfaces.api.endpoint`)."""

from __future__ import annotations

from apps.core.surfaces.api import ApiView, endpoint, refusal
from apps.widgets import contracts as c
from apps.widgets import services


class WidgetListView(ApiView):
    @endpoint(query=c.WidgetFilter, output=c.WidgetList, operation_id="widgets_list")
    def get(self, request, query: c.WidgetFilter):
        """Your widgets"""
        widgets = services.list_widgets(request.principal, query)
        return {"widgets": [c.WidgetOut.of(w) for w in widgets], "count": len(widgets)}

    @endpoint(
        body=c.WidgetCreate,
        output=c.WidgetResult,
        status=201,
        operation_id="widgets_create",
        extra_responses={409: refusal("`slug_taken`: you already have a widget with that address.")},
    )
    def post(self, request, body: c.WidgetCreate):
        """Create a widget (type inferred from latest_data without a widget_definition)"""
        return {"widget": c.WidgetOut.of(services.create_widget(request.principal, body))}


class WidgetDetailView(ApiView):
    @endpoint(output=c.WidgetResult, operation_id="widgets_retrieve")
    def get(self, request, widget_id: int):
        """One widget"""
        return {"widget": c.WidgetOut.of(services.get_widget(request.principal, widget_id=widget_id))}

    @endpoint(
        body=c.WidgetPatch,
        output=c.WidgetResult,
        operation_id="widgets_partial_update",
        extra_responses={409: refusal("`slug_taken`, or `version_conflict` (see `expected_version`).")},
    )
    def patch(self, request, widget_id: int, body: c.WidgetPatch):
        """Change some fields and/or replace the latest data; optional expected_version"""
        who, widget = request.principal, None
        if body.changes():
            widget = services.update_widget(who, body, widget_id=widget_id)
        if "latest_data" in body.model_fields_set:
            # The version was checked by the first change when there was one.
            expected = body.expected_version if widget is None else None
            data = c.WidgetDataUpdate(latest_data=body.latest_data, expected_version=expected)
            widget = services.update_data(who, data, widget_id=widget_id)
        if widget is None:
            widget = services.get_widget(who, widget_id=widget_id)
        return {"widget": c.WidgetOut.of(widget)}

    @endpoint(output=None, status=204, operation_id="widgets_destroy")
    def delete(self, request, widget_id: int):
        """Remove a widget"""
        services.delete_widget(request.principal, widget_id=widget_id)
