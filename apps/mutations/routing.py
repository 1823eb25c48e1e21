from django.urls import path

from apps.mutations.consumers import MutationConsumer

websocket_urlpatterns = [path("ws/mutations/", MutationConsumer.as_asgi())]
