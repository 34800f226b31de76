"""A command-line client for the key-value service the workflow runs (the kvd protocol, services.py): every
command of the protocol, keys that need URL encoding, exit statuses for a missing key, bad input and a
service that does not answer; tested on the live service and on a fresh instance the tests start, and
used to dump the live store as a JSON document later steps can build on."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, fresh_path, work_root
from rst_synth.proposers.procedural.operators.services.running import KV, PROC_PY, Service, find_services

CLIENT_PY = r"""#!/usr/bin/env python3
import json, re, sys, urllib.error, urllib.parse, urllib.request

DEFAULT_PORT = 0
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Unreachable(Exception):
    pass


def call(port, method, path, body=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    try:
        with OPENER.open(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except (urllib.error.URLError, OSError) as error:
        raise Unreachable(str(error))


def key_path(prefix, key):
    return prefix + urllib.parse.quote(key, safe="")


def all_keys(port, prefix=""):
    status, body = call(port, "GET", "/keys?prefix=" + urllib.parse.quote(prefix, safe=""))
    return sorted(json.loads(body.decode("utf-8")))


def run(port, command, args):
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
        print("usage: [--port N] get KEY | put KEY | del KEY | keys [PREFIX] | incr KEY N | dump | load FILE",
              file=sys.stderr)
        return 2
    return 0


def main():
    args, port = sys.argv[1:], DEFAULT_PORT
    if args[:1] == ["--port"] and len(args) >= 2 and args[1].isdigit():
        port, args = int(args[1]), args[2:]
    if not args:
        return run(port, "", [])
    try:
        return run(port, args[0], args[1:])
    except Unreachable as exc:
        print(f"service on port {port} not reachable: {exc}", file=sys.stderr)
        return 3


sys.exit(main())
"""

TESTS_PY = r"""
EDGE_KEYS = ["q?x=1&y=%41", "a+b/c d", "Zürich #1"]


def live():
    return {k: http(PORT, "/kv/" + urllib.parse.quote(k, safe=""))[1] for k in json.loads(http(PORT, "/keys")[1])}


def ctl(*args, port=None, stdin=None):
    head = ["--port", str(port)] if port else []
    done = run_tool(TOOL, *head, *args, stdin=stdin)
    return done.returncode, done.stdout.decode("utf-8")


def test_{tag}_dump_of_the_live_store():
    assert json.loads(pathlib.Path(DUMP).read_text(encoding="utf-8")) == live()


def test_{tag}_tool_reads_the_live_service():
    state = live()
    assert ctl("keys") == (0, "".join(k + "\n" for k in sorted(state)))
    prefix = sorted(state)[-1][:3]
    assert ctl("keys", prefix) == (0, "".join(k + "\n" for k in sorted(state) if k.startswith(prefix)))
    key = sorted(state)[len(state) // 2]
    assert ctl("get", key) == (0, state[key])
    assert json.loads(ctl("dump")[1]) == state


def test_{tag}_tool_speaks_the_protocol(tmp_path):
    port = free_port()
    host = ["--host", "127.0.0.1"] if HOST_OPTION else []
    server = subprocess.Popen(["python3", PROGRAM, *host, "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def live_at(port):
    return {k: http(port, "/kv/" + urllib.parse.quote(k, safe=""))[1] for k in json.loads(http(port, "/keys")[1])}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
"""


def kv_services(discovery: Discovery) -> list[Service]:
    return [s for s in find_services(discovery) if s.protocol == KV]


@register
class KvClientTool(Operator):
    """A client tool for the key-value service's protocol, and a dump of the live store made with it."""

    name = "kv-client-tool"
    once = True  # the client speaks one protocol: a second one would be a copy
    kinds = (Kind.PYTHON_SOURCE, Kind.EXECUTABLE)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return places_ok(artifact, discovery, "bin") and any(s.program == artifact.path for s in kv_services(discovery))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        service = next(s for s in kv_services(ctx.discovery) if s.program == artifact.path)
        tool = fresh_path(ctx, f"{work_root(ctx.discovery)}/bin", f"{service.name}ctl")
        dump = ctx.output_path(artifact, "dump", "json")
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(dump.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
{CLIENT_PY.rstrip()}
PY
port=$(python3 - <<'PY'
import os, pathlib, time, urllib.error, urllib.request
{PROC_PY}
print(port_of(serving({service.program!r})))
PY
)
sed -i "s/^DEFAULT_PORT = 0$/DEFAULT_PORT = $port/" {q(tool)}
chmod 0755 {q(tool)}
{q(tool)} dump > {q(dump)}"""
        tests = (
            f"TOOL, DUMP, PROGRAM, HOST_OPTION = {tool!r}, {dump!r}, {service.program!r}, {service.host_option}\n"
            + PROC_PY
            + RUN_TOOL
            + "\nPORT = port_of(serving(PROGRAM))\n"
            + TESTS_PY.replace("{tag}", ctx.tag)
        )
        instruction = (
            f"Next, write a command-line client for the `{service.name}` service (`{service.program}`; its "
            f"docstring describes the endpoints), `{tool}` (an executable file with a `#!` line), used as "
            f"`{tool} [--port N] COMMAND [ARG...]` against `http://127.0.0.1:N` (N defaults to the port the "
            f"running `{service.name}` listens on now). Keys may hold any characters but line breaks (spaces, "
            "`/`, `?`, `#`, `%`, `+`, `&`, `=`, non-ASCII letters) and must reach the service unchanged. "
            "Commands: `get KEY` prints the stored value exactly (nothing added), exit 0, or exits 1 printing "
            "nothing when there is no such key; `put KEY` stores standard input (UTF-8) as the value, exit 0; "
            "`del KEY` deletes the key, exit 0, or 1 when there is no such key; `keys [PREFIX]` prints the "
            "stored keys that start with PREFIX (all keys without it), one per line, in code-point order; "
            "`incr KEY N` adds the integer N (optional sign, digits) to the key's integer value (a missing key "
            "counts as 0) and prints the new value on one line, exits 1 when the stored value is not an integer "
            "and 2 when N is not one; `dump` prints one JSON object of every key and its value; `load FILE` "
            "makes the service hold exactly the keys and values of FILE, a JSON object whose values are "
            "strings (keys not in it are deleted), printing nothing, and exits 2 without changing anything "
            "when FILE is not such an object. An unknown command or wrong arguments exit 2; when nothing "
            "answers on the port, any command exits 3; messages go to standard error. Then save the `dump` of "
            f"the running service as `{dump}`."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=dump, kind=Kind.JSON, details={"type": "object"}),
                Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True),
            ],
        )
