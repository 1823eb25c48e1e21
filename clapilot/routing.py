"""WebSocket routes of all apps, collected in one list for the ASGI router."""

from apps.agent.routing import websocket_urlpatterns as agent_ws
from apps.core.routing import websocket_urlpatterns as core_ws
from apps.mutations.routing import websocket_urlpatterns as mutations_ws

websocket_urlpatterns = [*core_ws, *mutations_ws, *agent_ws]
