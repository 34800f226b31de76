"""The parent's result served: a small HTTP service over a CSV result, started and left running,
checked by its behaviour (the live instance, and a second instance the tests start on data they write)."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ServiceOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    EDGE_VALUES,
    contract_shape,
    csv_pairs,
    inside_git,
    open_pairs,
    work_root,
)
from rst_synth.proposers.procedural.operators.services.shipped import csv_server
from rst_synth.proposers.procedural.shipping import render, write_tool

BASE_PORT = 18000


def _port(ctx: StepContext) -> int:
    """A port per step of the lineage: the tag "rNsM" is unique in it, so two services never collide."""
    match = re.fullmatch(r"r(\d+)s(\d+)", ctx.tag)
    return BASE_PORT + (int(match.group(1)) * 10 + int(match.group(2)) if match else 0)


@register
class ServeCsvHttp(ServiceOperator):
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
        params = {"GROUP": shape.group, "VALUE": shape.value}
        solution = f"""mkdir -p {q(server.rsplit("/", 1)[0])}
{write_tool(server, render(csv_server, ["main"], **params), "main()")}
PYTHONDONTWRITEBYTECODE=1 nohup setsid python3 {q(server)} --port {port} --data {q(artifact.path)} \\
  >/dev/null 2>&1 </dev/null &
for _ in $(seq 1 100); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:{port}/health', timeout=2)" \\
    2>/dev/null && break
  sleep 0.1
done"""
        tests = render(
            csv_server,
            ["test_running_service_answers_from_the_result", "test_service_rereads_fresh_data"],
            tag=ctx.tag,
            SERVER=server,
            DATA=artifact.path,
            PORT=port,
            **params,
            EDGE_VALUES=EDGE_VALUES,
        )
        instruction = (
            f"Serve the result `{artifact.path}` over HTTP. Write `{server}`, a Python 3 program "
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
