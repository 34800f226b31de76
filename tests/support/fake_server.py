"""A scripted fake OpenAI-compatible server for tests: real HTTP on 127.0.0.1, no network.

    with FakeOpenAI() as server:
        server.script(Reply(status=429), Reply("hello", usage=(12, 3)))
        ... point the client at server.base_url ...
        assert len(server.requests) == 2

Replies queued with `script` are served in order; once the queue is empty, `responder`
(when set) makes each reply from the request body, otherwise every request gets `Reply()`.
Only POST /v1/chat/completions is served; anything else is a 404.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

COMPLETIONS_PATH = "/v1/chat/completions"

# Stock error messages, shaped like the real API's error objects.
_ERROR_TEXT = {
    400: ("invalid_request_error", "Invalid request."),
    401: ("invalid_request_error", "Incorrect API key provided."),
    403: ("invalid_request_error", "You are not allowed to use this model."),
    404: ("invalid_request_error", "Not found."),
    429: ("rate_limit_error", "Rate limit reached, please retry later."),
}


@dataclass
class Reply:
    """One scripted answer of the fake server."""

    content: str | None = "ok"
    """Assistant message text; None gives a choice whose content is null."""
    status: int = 200
    """HTTP status; anything but 200 answers with an OpenAI-style error object."""
    delay_sec: float = 0.0
    """Wait this long before answering (cut short when the server stops)."""
    usage: tuple[int, int] | None = None
    """(prompt_tokens, completion_tokens); default: a rough count of words."""
    raw_body: str | None = None
    """Send this body verbatim, with `status` (malformed JSON cases)."""
    drop_connection: bool = False
    """Close the socket without answering."""
    tool_calls: list[tuple[str, str]] | None = None
    """(function name, arguments JSON text) of each tool call the reply makes."""


def _words(text: str | None) -> int:
    return len(text.split()) if text else 0


def _prompt_words(body: dict[str, Any]) -> int:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return 0
    return sum(_words(m.get("content")) for m in messages if isinstance(m, dict) and isinstance(m.get("content"), str))


class FakeOpenAI:
    """A context manager running the fake server in a background thread on 127.0.0.1."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        """JSON bodies received at /v1/chat/completions, in order."""
        self.headers: list[dict[str, str]] = []
        """Their headers, names in lower case."""
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        """Makes the reply when the script queue is empty."""
        self.in_flight = 0
        """Requests being answered right now."""
        self.max_in_flight = 0
        """The most requests ever answered at the same time."""
        self.base_url = ""
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def script(self, *replies: Reply) -> None:
        """Queue replies, served in order before the responder is asked."""
        with self._lock:
            self._queue.extend(replies)

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> Self:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        # Handler threads may still sleep in a delayed reply when the test ends: never wait on them.
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        port = server.server_address[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- called from handler threads ---------------------------------------------------------

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return self.responder(body)
        return Reply()

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1


def completion_body(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    """A chat.completion object as the real API sends it."""
    prompt, completion = reply.usage or (_prompt_words(body), _words(reply.content))
    return {
        "id": f"chatcmpl-fake{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model", "fake-model")),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content, **_tool_calls(reply)},
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def _tool_calls(reply: Reply) -> dict[str, Any]:
    if not reply.tool_calls:
        return {}
    calls = [
        {"id": f"call_{k}_{time.monotonic_ns()}", "type": "function", "function": {"name": name, "arguments": args}}
        for k, (name, args) in enumerate(reply.tool_calls)
    ]
    return {"tool_calls": calls}


def error_body(status: int) -> dict[str, Any]:
    kind, text = _ERROR_TEXT.get(status, ("server_error", "The server had an error processing your request."))
    return {"error": {"message": text, "type": kind, "param": None, "code": None}}


def _make_handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.0: one request per connection, so a dropped connection never hits a pooled one.
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def do_GET(self) -> None:
            self._send(404, json.dumps(error_body(404)))

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.path.rstrip("/") != COMPLETIONS_PATH:
                self._send(404, json.dumps(error_body(404)))
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            if not isinstance(body, dict):
                body = {"_unparsed": body}
            fake._record(body, {k.lower(): v for k, v in self.headers.items()})
            try:
                self._answer(fake._next_reply(body), body)
            finally:
                fake._done()

        def _answer(self, reply: Reply, body: dict[str, Any]) -> None:
            if reply.delay_sec > 0 and fake._stopping.wait(reply.delay_sec):
                return  # the server is stopping: give up on this one
            if reply.drop_connection:
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if reply.raw_body is not None:
                text = reply.raw_body
            elif reply.status == 200:
                text = json.dumps(completion_body(reply, body))
            else:
                text = json.dumps(error_body(reply.status))
            self._send(reply.status, text)

        def _send(self, status: int, text: str) -> None:
            data = text.encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up (timed out) before we answered

    return Handler
