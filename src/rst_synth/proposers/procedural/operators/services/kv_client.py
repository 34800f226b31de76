"""A command-line client for the key-value service the workflow runs (the kvd protocol, services.py): every
command of the protocol, keys that need URL encoding, exit statuses for a missing key, bad input and a
service that does not answer; tested on the live service and on a fresh instance the tests start, and
used to dump the live store as a JSON document later steps can build on."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, work_root
from rst_synth.proposers.procedural.operators.services.running import KV, Service, find_services
from rst_synth.proposers.procedural.operators.services.shipped import kv_client
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, python_tool, render


def kv_services(discovery: Discovery) -> list[Service]:
    return [s for s in find_services(discovery) if s.protocol == KV]


@register
class KvClientTool(Operator):
    """A client tool for the key-value service's protocol, and a dump of the live store made with it."""

    name = "kv-client-tool"
    purpose = Purpose.TOOL
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
        found = {"PROGRAM": service.program}
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(dump.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
{python_tool(render(kv_client, ["main"]), "sys.exit(main(sys.argv))")}PY
port=$({python_script(render(kv_client, ["live_port"], **found), "print(live_port())")}
)
sed -i "s/^DEFAULT_PORT = 0$/DEFAULT_PORT = $port/" {q(tool)}
chmod 0755 {q(tool)}
{q(tool)} dump > {q(dump)}"""
        tests = render(
            kv_client,
            [
                "live_port",
                "test_dump_of_the_live_store",
                "test_tool_reads_the_live_service",
                "test_tool_speaks_the_protocol",
            ],
            tag=ctx.tag,
            TOOL=tool,
            DUMP=dump,
            **found,
            HOST_OPTION=service.host_option,
        )
        tests += "\n\nPORT = live_port()\n"  # looked up as the test module loads (kv_client.PORT)
        instruction = (
            f"Write a command-line client for the `{service.name}` service (`{service.program}`; its "
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
