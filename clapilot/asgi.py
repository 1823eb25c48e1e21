"""One ASGI app for HTTP (Django; the MCP server at /mcp/) and WebSockets (Channels consumers,
session-authenticated)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clapilot.settings")
django.setup(set_prefix=False)  # what get_asgi_application() does before building its handler

from apps.core.bodies import BodyMeasuringASGIHandler, leave_forms_to_django  # noqa: E402

# Under daphne: a malformed multipart body reaches Django (JSON error), not Twisted's bare 400.
leave_forms_to_django()

# Django's ASGIHandler, with CONTENT_LENGTH and the body limit taken from the bytes received.
django_asgi_app = BodyMeasuringASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from apps.mcp_server.http import McpMount  # noqa: E402
from clapilot.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # /mcp and /mcp/: Streamable HTTP for external MCP clients (API keys); the rest is Django.
        "http": McpMount(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
