"""A scripted OpenAI-compatible `/embeddings` server for tests: the `openai` client talks to it
over real HTTP.

Vectors are deterministic per input text (a seeded random unit vector), `dimensions` sets their
width (to test the store's width check), `fail_with(status)` makes the next requests fail, and
every request body is kept in `requests` (and its bytes as sent in `raw`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


class FakeEmbeddings:
    def __init__(self, dimensions: int = 384) -> None:
        self.dimensions = dimensions
        self.requests: list[dict] = []
        self.raw: list[bytes] = []
        self.fail_status: int | None = None
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeEmbeddings:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def fail_with(self, status: int | None) -> FakeEmbeddings:
        self.fail_status = status
        return self

    @property
    def inputs(self) -> list[str]:
        return [text for body in self.requests for text in body.get("input", [])]

    def vector(self, text: str) -> list[float]:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
        v = np.random.default_rng(seed).standard_normal(self.dimensions)
        return (v / np.linalg.norm(v)).round(6).tolist()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _json(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length)
                fake.raw.append(data)
                body = json.loads(data or b"{}")
                if not self.path.rstrip("/").endswith("/embeddings"):
                    self._json(404, {"error": {"message": "not found"}})
                    return
                fake.requests.append(body)
                if fake.fail_status is not None:
                    self._json(fake.fail_status, {"error": {"message": "down", "type": "server_error"}})
                    return
                texts = body.get("input", [])
                texts = [texts] if isinstance(texts, str) else texts
                data = [
                    {"object": "embedding", "index": i, "embedding": fake.vector(text)}
                    for i, text in enumerate(texts)
                ]
                self._json(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body.get("model", "fake-embed"),
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

        return Handler
