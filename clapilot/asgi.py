"""One ASGI app for HTTP (Django; the MCP server at /mcp/) and WebSockets (Channels consumers;
the session, a device token or an API key: apps.core.realtime)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clapilot.settings")
django.setup(set_prefix=False)  # what get_asgi_application() does before building its handler

from apps.core.surfaces.bodies import BodyMeasuringASGIHandler, leave_forms_to_django  # noqa: E402

# Under daphne: a malformed multipart body reaches Django (JSON error), not Twisted's bare 400.
leave_forms_to_django()

# Django's ASGIHandler, with CONTENT_LENGTH and the body limit taken from the bytes received.
django_asgi_app = BodyMeasuringASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from apps.core.realtime import OriginOrCredential  # noqa: E402
from apps.mcp_server.http import McpMount  # noqa: E402
from clapilot.routing import websocket_urlpatterns  # noqa: E402

sockets = AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
application = ProtocolTypeRouter(
    {
        # /mcp and /mcp/: Streamable HTTP for external MCP clients (API keys); the rest is Django.
        "http": McpMount(django_asgi_app),
        # Browsers: the session, from an allowed Origin; native clients: an Authorization header.
        "websocket": OriginOrCredential(sockets, AllowedHostsOriginValidator(sockets)),
    }
)
