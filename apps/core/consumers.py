"""A minimal authenticated WebSocket: lets clients and /healthz-style probes verify the WS path."""

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class PingConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        if not self.scope["user"].is_authenticated:
            await self.close(code=4401)
            return
        await self.accept()

    async def receive_json(self, content, **kwargs):
        await self.send_json({"type": "pong", "echo": content.get("echo")})
