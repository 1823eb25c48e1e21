from django.urls import path

from apps.mutations import api

urlpatterns = [
    path("api/ui-mutation-events", api.MutationEventListView.as_view(), name="ui-mutation-events"),
    path("api/ui-mutation-events/stream", api.mutation_event_stream, name="ui-mutation-events-stream"),
]
