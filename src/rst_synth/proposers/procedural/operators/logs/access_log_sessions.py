"""Sessions of an access log: each client's requests split where it was idle longer than a stated gap
(time zones normalised to UTC, out-of-order lines sorted, malformed lines skipped), with requests, bytes
and errors per session: a table of client activity that later steps group and add up. The tests run the
tool on logs they generate."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import ModuleType

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    inside_git,
    stem_of,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.operators.logs.shipped import access_hits, access_sessions
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_tool, render

HEADER = ["client", "start", "end", "requests", "bytes", "errors"]
_LINE = re.compile(r'\S+ \S+ \S+ \[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] "[^"]*" \d{3} (\d+|-)')

HITS = ["requests_of", "client_hits"]
"""What every access-log step renders first (shipped/access_hits.py): its own module's code builds on it."""


def on_hits(module: ModuleType, keep: list[str], params: Mapping[str, object], tag: str = "") -> str:
    """The shipped log reading, then `keep` of the step's own module with its parameters."""
    return render(access_hits, HITS) + "\n\n" + render(module, keep, tag=tag, **params)


def looks_like_access_log(artifact: Artifact) -> bool:
    lines = [line for line in artifact.sample.splitlines() if line.strip()][:50]
    return len(lines) >= 5 and sum(bool(_LINE.match(line)) for line in lines) >= 0.9 * len(lines)


@register
class AccessLogSessions(Operator):
    """Client sessions of an access log split at a stated idle gap, with requests, bytes and errors each."""

    name = "access-log-sessions"
    purpose = Purpose.REPORT
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 3.0
    once = True  # the tool is the same program whatever the log: a second step would copy it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return looks_like_access_log(artifact) and not any(
            inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "sessions")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        gap = ctx.rng.choice([5, 10, 15, 30])
        tool = tool_path(ctx, artifact, "sessions")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/sessions", f"{stem_of(artifact)}_sessions.csv")
        seed = ctx.rng.randrange(10**6)
        params = {"TOOL": tool, "LOG": artifact.path, "OUT": out, "GAP": gap, "SEED": seed}
        program = python_tool(on_hits(access_sessions, ["main"], params), "sys.exit(main(sys.argv))")
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
{program}PY
chmod 0755 {q(tool)}
{q(tool)} {q(artifact.path)} {gap} > {q(out)}"""
        keep = ["test_sessions_of_the_log", "test_tool_on_fresh_logs", "test_tool_rejects_bad_arguments"]
        tests = on_hits(access_sessions, keep, params, ctx.tag)
        instruction = " ".join(
            f"""Find the client sessions in the access log `{artifact.path}`. Write a command-line tool
            `{tool}` (an executable file with a `#!` line): `{tool} LOG GAP` (GAP a whole number of minutes >= 1)
            reads LOG as UTF-8 text in the common or combined log format (`CLIENT IDENT USER [DD/Mon/YYYY:HH:MM:SS
            +ZZZZ] "REQUEST" STATUS BYTES`, optionally followed by a space and more fields); lines that do not
            have that form, or whose time is no real date, are skipped. Times are converted to UTC by their
            offset. For each client (the first field, compared as text), its requests in time order (lines out of
            order are sorted; equal times keep file order) form sessions: a new session starts at a client's first
            request and at every request more than GAP minutes after that client's previous one (exactly GAP
            minutes is still the same session). The tool prints CSV with the header
            `client,start,end,requests,bytes,errors` and one row per session: its first and last request time as
            `YYYY-MM-DDTHH:MM:SSZ` (UTC), the number of requests, the sum of BYTES (`-` counts as 0) and the
            number of requests whose STATUS is 400 or more; rows are ordered by start, then client (code-point
            order), lines end with `\\n`. It exits 0, or with wrong arguments (a GAP that is not a whole number
            >= 1, an unreadable LOG) prints a line to standard error, nothing to standard output, and exits 2.
            Then run it on `{artifact.path}` with GAP {gap} and save its output as `{out}` (create the
            folder).""".split()
        )
        produced = csv_output(out, HEADER, ["requests", "bytes", "errors"])
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced, Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
