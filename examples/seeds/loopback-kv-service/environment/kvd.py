#!/usr/bin/env python3
"""kvd: a tiny in-memory key-value store over HTTP (development use only).

Endpoints:
  GET    /health              -> 200 "ok"
  GET    /keys[?prefix=P]     -> 200 JSON array of the stored keys (sorted), optionally filtered
  GET    /kv/<key>            -> 200 the stored value, or 404
  PUT    /kv/<key>            -> 200, stores the request body as the value
  DELETE /kv/<key>            -> 200, or 404
  POST   /incr/<key>          -> 200 the new value; adds the integer body to the key (missing = 0)

Each request is logged to stderr.
"""
import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

STORE = {}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    server_version = "kvd/0.3"

    def _send(self, code, body, ctype="text/plain; charset=utf-8"):
        data = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _key(self, prefix):
        path = urlsplit(self.path).path
        if not path.startswith(prefix) or len(path) == len(prefix):
            return None
        return unquote(path[len(prefix):])

    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode("utf-8")

    def do_GET(self):
        parts = urlsplit(self.path)
        if parts.path == "/health":
            return self._send(200, "ok\n")
        if parts.path == "/keys":
            prefix = parse_qs(parts.query).get("prefix", [""])[0]
            with LOCK:
                keys = sorted(k for k in STORE if k.startswith(prefix))
            return self._send(200, json.dumps(keys) + "\n", "application/json")
        key = self._key("/kv/")
        if key is None:
            return self._send(404, "no such endpoint\n")
        with LOCK:
            value = STORE.get(key)
        if value is None:
            return self._send(404, "no such key\n")
        return self._send(200, value)

    def do_PUT(self):
        key = self._key("/kv/")
        if key is None:
            return self._send(404, "no such endpoint\n")
        value = self._body()
        with LOCK:
            STORE[key] = value
        return self._send(200, "stored\n")

    def do_DELETE(self):
        key = self._key("/kv/")
        with LOCK:
            found = key is not None and STORE.pop(key, None) is not None
        return self._send(200, "deleted\n") if found else self._send(404, "no such key\n")

    def do_POST(self):
        key = self._key("/incr/")
        if key is None:
            return self._send(404, "no such endpoint\n")
        try:
            delta = int(self._body().strip())
            with LOCK:
                value = int(STORE.get(key, "0")) + delta
                STORE[key] = str(value)
        except ValueError:
            return self._send(400, "not an integer\n")
        return self._send(200, f"{value}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="0.0.0.0", help="address to bind (default: all)")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    print(f"kvd listening on {args.host}:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
