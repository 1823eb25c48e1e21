from django.urls import path

from apps.agent.consumers import ChatConsumer

websocket_urlpatterns = [path("ws/chat/<int:session_id>/", ChatConsumer.as_asgi())]
