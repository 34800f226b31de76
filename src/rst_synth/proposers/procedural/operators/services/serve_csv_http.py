"""The parent's result served: a small HTTP service over a CSV result, started and left running,
checked by its behaviour (the live instance, and a second instance the tests start on data they write)."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    EDGE_VALUES,
    contract_shape,
    csv_pairs,
    inside_git,
    open_pairs,
    work_root,
)

BASE_PORT = 18000

GROUPS_PY = """
def groups(text, group, value):
    rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    if not rows:
        return {}
    g, v = rows[0].index(group), rows[0].index(value)
    found = {}
    for row in rows[1:]:
        rows_, total = found.get(row[g], (0, decimal.Decimal(0)))
        found[row[g]] = (rows_ + 1, total + decimal.Decimal(row[v] or "0"))
    cent = decimal.Decimal("0.01")
    out = {}
    for key, (n, total) in found.items():
        total = total.quantize(cent, rounding=decimal.ROUND_HALF_UP)
        out[key] = {"rows": n, "total": str(abs(total) if total == 0 else total)}
    return out
"""

SERVER_PY = """#!/usr/bin/env python3
import argparse, csv, decimal, http.server, io, json, urllib.parse
{groups}

def handler(data, group, value):
    class Handler(http.server.BaseHTTPRequestHandler):
        def reply(self, status, body):
            text = isinstance(body, str)
            payload = body.encode() if text else json.dumps(body, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain" if text else "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            path = urllib.parse.urlsplit(self.path).path
            if path == "/health":
                return self.reply(200, "ok")
            if path == "/groups" or path.startswith("/groups/"):
                with open(data, encoding="utf-8", newline="") as f:
                    table = groups(f.read(), group, value)
                if path == "/groups":
                    return self.reply(200, table)
                key = urllib.parse.unquote(path[len("/groups/"):])
                if key in table:
                    return self.reply(200, table[key])
                return self.reply(404, {{"error": "unknown group"}})
            return self.reply(404, {{"error": "not found"}})

        def do_POST(self):
            self.reply(405, {{"error": "method not allowed"}})

        do_PUT = do_DELETE = do_POST

        def log_message(self, *args):
            pass

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler(args.data, {group!r}, {value!r}))
    server.serve_forever()


main()
"""

CLIENT_PY = """
def get(port, path, method="GET"):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port):
    for _ in range(100):
        try:
            if get(port, "/health") == (200, "ok"):
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"nothing healthy on port {port}")
"""


def _port(ctx: StepContext) -> int:
    """A port per step of the lineage: the tag "rNsM" is unique in it, so two services never collide."""
    match = re.fullmatch(r"r(\d+)s(\d+)", ctx.tag)
    return BASE_PORT + (int(match.group(1)) * 10 + int(match.group(2)) if match else 0)


@register
class ServeCsvHttp(Operator):
    """An HTTP service over a CSV result: started now, kept running, re-reading its data on each request."""

    name = "serve-csv-http"
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        pairs = open_pairs(csv_pairs(artifact), discovery, discovery.paths(), "bin", "server.py")
        return bool(pairs) and not inside_git(f"{work_root(discovery)}/bin/x", discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        shape, server = contract_shape(artifact, ctx, "bin", "server.py")
        port = _port(ctx)
        code = SERVER_PY.format(groups=GROUPS_PY.strip(), group=shape.group, value=shape.value)
        solution = f"""mkdir -p {q(server.rsplit("/", 1)[0])}
cat > {q(server)} <<'PY'
{code.rstrip()}
PY
chmod 0755 {q(server)}
PYTHONDONTWRITEBYTECODE=1 nohup setsid python3 {q(server)} --port {port} --data {q(artifact.path)} \\
  >/dev/null 2>&1 </dev/null &
for _ in $(seq 1 100); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:{port}/health', timeout=2)" \\
    2>/dev/null && break
  sleep 0.1
done"""
        tests = f"""
SERVER, DATA, PORT, GROUP, VALUE = {server!r}, {artifact.path!r}, {port}, {shape.group!r}, {shape.value!r}
EDGE_VALUES = {EDGE_VALUES!r}
{GROUPS_PY}{CLIENT_PY}

def test_{ctx.tag}_running_service_answers_from_the_result():
    want = groups(pathlib.Path(DATA).read_text(encoding="utf-8"), GROUP, VALUE)
    assert get(PORT, "/health") == (200, "ok")
    status, body = get(PORT, "/groups")
    assert status == 200 and json.loads(body) == want
    key = sorted(want)[0]
    status, body = get(PORT, "/groups/" + urllib.parse.quote(key, safe=""))
    assert status == 200 and json.loads(body) == want[key]
    assert get(PORT, "/groups/" + urllib.parse.quote("no such group " + key, safe=""))[0] == 404
    assert get(PORT, "/nowhere")[0] == 404 and get(PORT, "/groups", "POST")[0] == 405


def test_{ctx.tag}_service_rereads_fresh_data(tmp_path):
    data = tmp_path / "data.csv"
    rows = [[VALUE, "x", GROUP]] + [[f"{{i * 1.5 - 7:.2f}}", "y", EDGE_VALUES[i % len(EDGE_VALUES)]] for i in range(20)]

    def write(records):
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\\r\\n").writerows(records)
        data.write_text(buffer.getvalue(), encoding="utf-8")
        return buffer.getvalue()

    text, port = write(rows), free_port()
    process = subprocess.Popen(["python3", SERVER, "--port", str(port), "--data", str(data)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
"""
        instruction = (
            f"Next, serve the result `{artifact.path}` over HTTP. Write `{server}`, a Python 3 program "
            f"(standard library only) started as `python3 {server} --port PORT --data FILE` that listens on "
            f"127.0.0.1 only and answers, reading FILE (a UTF-8 CSV with RFC 4180 quoting, LF or CRLF line endings, "
            f"a header row with the columns `{shape.group}` and `{shape.value}` among others) again on every "
            "request so changes show without a restart: `GET /health` gives status 200 and the body `ok`; "
            f"`GET /groups` gives 200 and a JSON object mapping each distinct `{shape.group}` value (exactly as "
            'written, non-ASCII kept) to `{"rows": <number of data rows>, "total": "<exact decimal sum of '
            f"`{shape.value}`, an empty field counting as 0, with exactly two decimals, halves rounded away from "
            'zero, zero as 0.00>"}` (`rows` a JSON integer, `total` a JSON string); `GET /groups/<value>` (the '
            "value URL-encoded) gives 200 and that group's object, or 404 when there is no such group; any other "
            "path gives 404; `POST`, `PUT` and `DELETE` give 405. Then start it on port "
            f"{port} with `--data {artifact.path}` so that it keeps running after you are done, answering before "
            "you finish."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=server, kind=Kind.PYTHON_SOURCE)],
        )
