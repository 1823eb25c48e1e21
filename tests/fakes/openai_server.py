"""A scripted OpenAI-compatible HTTP server for tests: the `openai` client talks to it for real.

Script the answers in order (`reply`, `tool_calls`, `error`); every request body is recorded in
`requests` so a test can assert on exactly what the model saw. When the script runs out, the
server answers with a plain "(no script)" text so a runaway loop ends instead of hanging.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    text: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    status: int = 200
    error_body: dict | None = None
    usage: tuple[int, int] = (10, 5)
    before: Callable[[dict], None] | None = None


class FakeOpenAI:
    def __init__(self) -> None:
        self.script: deque[Step] = deque()
        self.requests: list[dict] = []
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # --- scripting ----------------------------------------------------------------------------
    def reply(self, text: str, usage: tuple[int, int] = (10, 5), **kw: Any) -> FakeOpenAI:
        self.script.append(Step(text=text, usage=usage, **kw))
        return self

    def tool_calls(self, *calls: tuple[str, Any], usage: tuple[int, int] = (10, 5), **kw: Any) -> FakeOpenAI:
        """Each call is (name, arguments); a str argument is sent verbatim (e.g. broken JSON)."""
        self.script.append(Step(tool_calls=list(calls), usage=usage, **kw))
        return self

    def error(self, status: int, message: str = "error") -> FakeOpenAI:
        body = {"error": {"message": message, "type": "invalid_request_error", "code": str(status)}}
        self.script.append(Step(status=status, error_body=body))
        return self

    # --- lifecycle ----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def chat_requests(self) -> list[dict]:
        return [r for r in self.requests if "messages" in r]

    # --- serving ------------------------------------------------------------------------------
    def _next(self) -> Step:
        return self.script.popleft() if self.script else Step(text="(no script)")

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

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                if not self.path.endswith("/chat/completions"):
                    self._json(404, {"error": {"message": "not found"}})
                    return
                step = fake._next()
                if step.before is not None:
                    step.before(body)
                if step.status != 200:
                    self._json(step.status, step.error_body or {})
                    return
                if body.get("stream"):
                    self._stream(body, step)
                else:
                    self._json(200, fake._completion(body, step))

            def _stream(self, body: dict, step: Step) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in fake._chunks(body, step):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        return Handler

    def _call_dicts(self, step: Step) -> list[dict]:
        calls = []
        for name, args in step.tool_calls:
            arguments = args if isinstance(args, str) else json.dumps(args)
            calls.append(
                {
                    "id": f"call_{next(self._ids)}",
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            )
        return calls

    @staticmethod
    def _usage(step: Step) -> dict:
        p, c = step.usage
        return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}

    def _completion(self, body: dict, step: Step) -> dict:
        calls = self._call_dicts(step)
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake-model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": self._usage(step),
        }

    def _chunks(self, body: dict, step: Step):
        base = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": body.get("model"),
        }

        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        yield chunk({"role": "assistant", "content": ""})
        words = step.text.split(" ")
        for i, word in enumerate(words if step.text else []):
            yield chunk({"content": word if i == 0 else " " + word})
        for index, call in enumerate(self._call_dicts(step)):
            head = {"index": index, "id": call["id"], "type": "function"}
            yield chunk(
                {"tool_calls": [{**head, "function": {"name": call["function"]["name"], "arguments": ""}}]}
            )
            arguments = call["function"]["arguments"]
            half = len(arguments) // 2
            for piece in (arguments[:half], arguments[half:]):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        yield chunk({}, "tool_calls" if step.tool_calls else "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            yield {**base, "choices": [], "usage": self._usage(step)}
