"""What `kv-client-tool` ships: the client of the kvd protocol (its `main`, written to an executable file
whose DEFAULT_PORT the solution sets to the live port), the lookup of that port (`live_port`), and the tests
that compare the dump and the tool's reads with the live store and speak every command to a fresh instance.
The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

from rst_synth.proposers.procedural.operators.kit.testkit import eventually, http, listener, port_of, run_tool, serving
from rst_synth.proposers.procedural.operators.services.shipped.csv_server import free_port

DEFAULT_PORT = 0
"""The tool's port without `--port`: the solution writes the live port over this line with sed."""
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
TOOL = "/app/bin/kvdctl"
DUMP = "/app/derived/kvd_dump.json"
PROGRAM = "/opt/kvd/kvd.py"
HOST_OPTION = True
EDGE_KEYS = ["q?x=1&y=%41", "a+b/c d", "Zürich #1"]


class Unreachable(Exception):
    pass


def call(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    try:
        with OPENER.open(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except (urllib.error.URLError, OSError) as error:
        raise Unreachable(str(error)) from None


def key_path(prefix: str, key: str) -> str:
    return prefix + urllib.parse.quote(key, safe="")


def all_keys(port: int, prefix: str = "") -> list[str]:
    status, body = call(port, "GET", "/keys?prefix=" + urllib.parse.quote(prefix, safe=""))
    return sorted(json.loads(body.decode("utf-8")))


def run(port: int, command: str, args: list[str]) -> int:
    if command == "get" and len(args) == 1:
        status, body = call(port, "GET", key_path("/kv/", args[0]))
        if status != 200:
            return 1
        sys.stdout.write(body.decode("utf-8"))
    elif command == "put" and len(args) == 1:
        status, _ = call(port, "PUT", key_path("/kv/", args[0]), sys.stdin.buffer.read())
        return 0 if status == 200 else 1
    elif command == "del" and len(args) == 1:
        return 0 if call(port, "DELETE", key_path("/kv/", args[0]))[0] == 200 else 1
    elif command == "keys" and len(args) <= 1:
        sys.stdout.write("".join(k + "\n" for k in all_keys(port, args[0] if args else "")))
    elif command == "incr" and len(args) == 2 and re.fullmatch(r"[+-]?\d+", args[1]):
        status, body = call(port, "POST", key_path("/incr/", args[0]), args[1].encode())
        if status != 200:
            return 1
        print(body.decode("utf-8").strip())
    elif command == "dump" and not args:
        keys = all_keys(port)
        values = {k: call(port, "GET", key_path("/kv/", k))[1].decode("utf-8") for k in keys}
        print(json.dumps(values, ensure_ascii=False, indent=2, sort_keys=True))
    elif command == "load" and len(args) == 1:
        try:
            with open(args[0], encoding="utf-8") as f:
                wanted = json.load(f)
        except (OSError, ValueError) as exc:
            print(f"{args[0]}: {exc}", file=sys.stderr)
            return 2
        if not isinstance(wanted, dict) or not all(isinstance(v, str) for v in wanted.values()):
            print(f"{args[0]}: not an object of strings", file=sys.stderr)
            return 2
        for key in all_keys(port):
            if key not in wanted:
                call(port, "DELETE", key_path("/kv/", key))
        for key, value in wanted.items():
            call(port, "PUT", key_path("/kv/", key), value.encode("utf-8"))
    else:
        print(
            "usage: [--port N] get KEY | put KEY | del KEY | keys [PREFIX] | incr KEY N | dump | load FILE",
            file=sys.stderr,
        )
        return 2
    return 0


def main(argv: list[str]) -> int:
    args, port = argv[1:], DEFAULT_PORT
    if args[:1] == ["--port"] and len(args) >= 2 and args[1].isdigit():
        port, args = int(args[1]), args[2:]
    if not args:
        return run(port, "", [])
    try:
        return run(port, args[0], args[1:])
    except Unreachable as exc:
        print(f"service on port {port} not reachable: {exc}", file=sys.stderr)
        return 3


def live_port() -> int | None:
    """The port the running service listens on (the process that runs PROGRAM)."""
    return port_of(serving(PROGRAM))  # type: ignore[arg-type]  # None, no such process: no port either


PORT = 0
"""The live port in the tests: their module looks it up as it loads (`PORT = live_port()`, which the
operator adds after the definitions: the library's import reads no /proc)."""


def live() -> dict[str, str]:
    return {k: http(PORT, "/kv/" + urllib.parse.quote(k, safe=""))[1] for k in json.loads(http(PORT, "/keys")[1])}


def ctl(*args: str, port: int | None = None, stdin: bytes | None = None) -> tuple[int, str]:
    head = ["--port", str(port)] if port else []
    done = run_tool(TOOL, *head, *args, stdin=stdin)
    return done.returncode, done.stdout.decode("utf-8")


def test_dump_of_the_live_store() -> None:
    assert json.loads(pathlib.Path(DUMP).read_text(encoding="utf-8")) == live()


def test_tool_reads_the_live_service() -> None:
    state = live()
    assert ctl("keys") == (0, "".join(k + "\n" for k in sorted(state)))
    prefix = sorted(state)[-1][:3]
    assert ctl("keys", prefix) == (0, "".join(k + "\n" for k in sorted(state) if k.startswith(prefix)))
    key = sorted(state)[len(state) // 2]
    assert ctl("get", key) == (0, state[key])
    assert json.loads(ctl("dump")[1]) == state


def test_tool_speaks_the_protocol(tmp_path: pathlib.Path) -> None:
    port = free_port()
    host = ["--host", "127.0.0.1"] if HOST_OPTION else []
    server = subprocess.Popen(
        ["python3", PROGRAM, *host, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        assert eventually(lambda: listener(port)), "the fresh instance did not start"
        wanted = {"kept": "1", "plain": "text", "a+b": "x", "a b": "y", "Zürich, new": ""}
        (tmp_path / "load.json").write_text(json.dumps(wanted), encoding="utf-8")
        assert ctl("load", str(tmp_path / "load.json"), port=port) == (0, "")
        assert live_at(port) == wanted
        values = {key: f"value of {key}\nsecond line, ünïcödé" for key in EDGE_KEYS}
        for key, value in values.items():
            assert ctl("put", key, port=port, stdin=value.encode("utf-8")) == (0, "")
            assert http(port, "/kv/" + urllib.parse.quote(key, safe=""))[1] == value, key
            assert ctl("get", key, port=port) == (0, value), key
        wanted.update(values)
        assert ctl("keys", port=port) == (0, "".join(k + "\n" for k in sorted(wanted)))
        assert ctl("keys", "a+", port=port) == (0, "a+b\na+b/c d\n")
        assert ctl("get", "missing key", port=port) == (1, "")
        assert ctl("del", "a b", port=port) == (0, "") and ctl("del", "a b", port=port)[0] == 1
        del wanted["a b"]
        assert ctl("incr", "count er", "5", port=port) == (0, "5\n")
        assert ctl("incr", "count er", "-7", port=port) == (0, "-2\n")
        assert ctl("incr", "plain", "1", port=port)[0] == 1 and ctl("incr", "plain", "x1", port=port)[0] == 2
        wanted["count er"] = "-2"
        (tmp_path / "bad.json").write_text('{"a": 1}', encoding="utf-8")
        assert ctl("load", str(tmp_path / "bad.json"), port=port)[0] == 2
        assert json.loads(ctl("dump", port=port)[1]) == wanted == live_at(port)
        assert ctl("frobnicate", port=port)[0] == 2
    finally:
        server.kill()
        server.wait()
    assert ctl("keys", port=port)[0] == 3


def live_at(port: int) -> dict[str, str]:
    return {k: http(port, "/kv/" + urllib.parse.quote(k, safe=""))[1] for k in json.loads(http(port, "/keys")[1])}
