"""What `serve-csv-http` ships: the HTTP server over a CSV result (its `main`, written to an executable
file and left running), and the tests that ask the live instance and a fresh one on data they write and
rewrite. `groups` is the reference both use. The constants are the step's parameters: `shipping.render`
sets them."""

from __future__ import annotations

import argparse
import csv
import decimal
import http.server
import io
import json
import pathlib
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

SERVER = "/app/bin/region_amount_server.py"
DATA = "/app/out/ledger.csv"
PORT = 18021
GROUP = "region"
VALUE = "amount"
EDGE_VALUES = ("Zürich", "a,b", 'say "hi"', "東京", "plain", "two\nlines", "ünïcödé-ß", "x")


def groups(text: str, group: str, value: str) -> dict[str, dict[str, Any]]:
    rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    if not rows:
        return {}
    g, v = rows[0].index(group), rows[0].index(value)
    found: dict[str, tuple[int, decimal.Decimal]] = {}
    for row in rows[1:]:
        rows_, total = found.get(row[g], (0, decimal.Decimal(0)))
        found[row[g]] = (rows_ + 1, total + decimal.Decimal(row[v] or "0"))
    cent = decimal.Decimal("0.01")
    out = {}
    for key, (n, total) in found.items():
        total = total.quantize(cent, rounding=decimal.ROUND_HALF_UP)
        out[key] = {"rows": n, "total": str(abs(total) if total == 0 else total)}
    return out


def handler(data: str, group: str, value: str) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def reply(self, status: int, body: str | dict[str, Any]) -> None:
            text = isinstance(body, str)
            payload = body.encode() if isinstance(body, str) else json.dumps(body, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain" if text else "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            path = urllib.parse.urlsplit(self.path).path
            if path == "/health":
                return self.reply(200, "ok")
            if path == "/groups" or path.startswith("/groups/"):
                with open(data, encoding="utf-8", newline="") as f:
                    table = groups(f.read(), group, value)
                if path == "/groups":
                    return self.reply(200, table)
                key = urllib.parse.unquote(path[len("/groups/") :])
                if key in table:
                    return self.reply(200, table[key])
                return self.reply(404, {"error": "unknown group"})
            return self.reply(404, {"error": "not found"})

        def do_POST(self) -> None:
            self.reply(405, {"error": "method not allowed"})

        do_PUT = do_DELETE = do_POST

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler(args.data, GROUP, VALUE))
    server.serve_forever()


def get(port: int, path: str, method: str = "GET") -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # type: ignore[no-any-return]


def wait_healthy(port: int) -> None:
    for _ in range(100):
        try:
            if get(port, "/health") == (200, "ok"):
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"nothing healthy on port {port}")


def test_running_service_answers_from_the_result() -> None:
    want = groups(pathlib.Path(DATA).read_text(encoding="utf-8"), GROUP, VALUE)
    assert get(PORT, "/health") == (200, "ok")
    status, body = get(PORT, "/groups")
    assert status == 200 and json.loads(body) == want
    key = sorted(want)[0]
    status, body = get(PORT, "/groups/" + urllib.parse.quote(key, safe=""))
    assert status == 200 and json.loads(body) == want[key]
    assert get(PORT, "/groups/" + urllib.parse.quote("no such group " + key, safe=""))[0] == 404
    assert get(PORT, "/nowhere")[0] == 404 and get(PORT, "/groups", "POST")[0] == 405


def test_service_rereads_fresh_data(tmp_path: pathlib.Path) -> None:
    data = tmp_path / "data.csv"
    rows = [[VALUE, "x", GROUP]] + [[f"{i * 1.5 - 7:.2f}", "y", EDGE_VALUES[i % len(EDGE_VALUES)]] for i in range(20)]

    def write(records: list[list[str]]) -> str:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\r\n").writerows(records)
        data.write_text(buffer.getvalue(), encoding="utf-8")
        return buffer.getvalue()

    text, port = write(rows), free_port()
    process = subprocess.Popen(
        ["python3", SERVER, "--port", str(port), "--data", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_healthy(port)
        assert json.loads(get(port, "/groups")[1]) == groups(text, GROUP, VALUE)
        key = EDGE_VALUES[0]
        one = get(port, "/groups/" + urllib.parse.quote(key, safe=""))
        assert one[0] == 200 and json.loads(one[1]) == groups(text, GROUP, VALUE)[key]
        text = write(rows + [["100.10", "z", "arrived later"]])
        assert json.loads(get(port, "/groups")[1]) == groups(text, GROUP, VALUE)
    finally:
        process.terminate()
        process.wait(timeout=10)
