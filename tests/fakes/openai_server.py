"""A scripted OpenAI-compatible HTTP server for tests: the `openai` client talks to it for real.

Script the answers in order (`reply`, `tool_calls`, `error`); every request body is recorded in
`requests` so a test can assert on exactly what the model saw. When the script runs out, the
server answers with a plain "(no script)" text so a runaway loop ends instead of hanging.

`model="…"` on a scripted step queues it for that model only (parallel callers such as Mixture of
Agents reference models get their own answers whatever the order). `forbid(...)` makes the server
refuse (HTTP 400) and record in `violations` any request containing one of the strings: the
neutralization tests prove a real name never reached the "provider". `delay` slows a streamed
answer down between chunks (for cancellation tests).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
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
    model: str | None = None
    delay: float = 0.0


class FakeOpenAI:
    def __init__(self) -> None:
        self.script: deque[Step] = deque()
        self.per_model: dict[str, deque[Step]] = {}
        self.requests: list[dict] = []
        self.forbidden: list[str] = []
        self.violations: list[str] = []
        self.models: list[str] = ["fake-model"]  # what GET /models lists
        self.models_error: tuple[int, str] | None = None  # (status, message): GET /models fails
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # --- scripting ----------------------------------------------------------------------------
    def _queue(self, step: Step) -> FakeOpenAI:
        with self._lock:
            if step.model:
                self.per_model.setdefault(step.model, deque()).append(step)
            else:
                self.script.append(step)
        return self

    def reply(self, text: str, usage: tuple[int, int] = (10, 5), **kw: Any) -> FakeOpenAI:
        return self._queue(Step(text=text, usage=usage, **kw))

    def tool_calls(self, *calls: tuple[str, Any], usage: tuple[int, int] = (10, 5), **kw: Any) -> FakeOpenAI:
        """Each call is (name, arguments); a str argument is sent verbatim (e.g. broken JSON)."""
        return self._queue(Step(tool_calls=list(calls), usage=usage, **kw))

    def error(self, status: int, message: str = "error", **kw: Any) -> FakeOpenAI:
        body = {"error": {"message": message, "type": "invalid_request_error", "code": str(status)}}
        return self._queue(Step(status=status, error_body=body, **kw))

    def forbid(self, *strings: str) -> FakeOpenAI:
        """Refuse any request that contains one of these strings (case-insensitive)."""
        self.forbidden.extend(strings)
        return self

    def requests_for(self, model: str) -> list[dict]:
        return [r for r in self.chat_requests if r.get("model") == model]

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
    def _next(self, model: str | None = None) -> Step:
        with self._lock:
            own = self.per_model.get(model or "")
            if own:
                return own.popleft()
            return self.script.popleft() if self.script else Step(text="(no script)")

    def _violation(self, raw: bytes) -> str | None:
        text = raw.decode("utf-8", "replace")
        decoded = json.dumps(json.loads(raw or b"{}"), ensure_ascii=False).casefold()
        for word in self.forbidden:
            if word.casefold() in text.casefold() or word.casefold() in decoded:
                return word
        return None

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
                    if fake.models_error:
                        status, message = fake.models_error
                        self._json(status, {"error": {"message": message, "code": str(status)}})
                        return
                    data = [{"id": m, "object": "model"} for m in fake.models]
                    self._json(200, {"object": "list", "data": data})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                body = json.loads(raw or b"{}")
                with fake._lock:
                    fake.requests.append(body)
                if not self.path.endswith("/chat/completions"):
                    self._json(404, {"error": {"message": "not found"}})
                    return
                seen = fake._violation(raw)
                if seen is not None:
                    fake.violations.append(seen)
                    self._json(
                        400, {"error": {"message": "forbidden content", "type": "invalid_request_error"}}
                    )
                    return
                step = fake._next(body.get("model"))
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
                    if step.delay:
                        time.sleep(step.delay)
                    try:
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):  # the client hung up (cancel)
                        self.close_connection = True
                        return
                try:
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
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
