"""WebSocket routes of all apps: each app declares its own (`DomainApp.websocket_urls`, by default
its `routing` module); apps.core.realtime mounts them behind the one authenticator (session,
device token, API key)."""

from apps.core import realtime

websocket_urlpatterns = realtime.websocket_urlpatterns()
