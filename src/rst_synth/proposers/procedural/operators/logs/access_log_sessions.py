"""Sessions of an access log: each client's requests split where it was idle longer than a stated gap
(time zones normalised to UTC, out-of-order lines sorted, malformed lines skipped), with requests, bytes
and errors per session: a table of client activity that later steps group and add up. The tests run the
tool on logs they generate."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    RUN_TOOL,
    fresh_path,
    inside_git,
    stem_of,
    tool_path,
    work_root,
)

HEADER = ["client", "start", "end", "requests", "bytes", "errors"]
_LINE = re.compile(r'\S+ \S+ \S+ \[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] "[^"]*" \d{3} (\d+|-)')

HITS_PY = r"""
TIME = r"\d{2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}"
LINE = re.compile(r'(\S+) \S+ \S+ \[(' + TIME + r')\] "([^"]*)" (\d{3}) (\d+|-)(\s.*)?')


def requests_of(text):
    for line in text.split("\n"):
        match = LINE.fullmatch(line.rstrip("\r"))
        if match is None:
            continue
        try:
            when = datetime.datetime.strptime(match[2], "%d/%b/%Y:%H:%M:%S %z").astimezone(datetime.timezone.utc)
        except ValueError:
            continue
        yield match[1], when, match[3], int(match[4]), 0 if match[5] == "-" else int(match[5])


def client_hits(text):
    hits = {}
    for client, when, _, status, size in requests_of(text):
        hits.setdefault(client, []).append((when, size, status >= 400))
    return hits
"""
"""The requests of a log, malformed lines skipped: (client, UTC time, request, status, bytes); and each
client's requests in file order: (UTC time, bytes, an error?)."""

SESSIONS_PY = (
    HITS_PY
    + r"""

def sessions(text, gap_minutes):
    gap = datetime.timedelta(minutes=gap_minutes)
    rows = []
    for client, found in client_hits(text).items():
        found.sort(key=lambda hit: hit[0])
        current = None
        for when, size, error in found:
            if current is None or when - current[1] > gap:
                current = [when, when, 0, 0, 0]
                rows.append((client, current))
            current[1] = when
            current[2] += 1
            current[3] += size
            current[4] += error
    rows.sort(key=lambda row: (row[1][0], row[0]))
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    return [["client", "start", "end", "requests", "bytes", "errors"]] + [
        [client, s.strftime(stamp), e.strftime(stamp), str(n), str(b), str(x)] for client, (s, e, n, b, x) in rows]
"""
)

TOOL_MAIN = r"""
def main(argv):
    try:
        path, gap = argv[1:]
        if not re.fullmatch(r"[0-9]+", gap) or int(gap) < 1:
            raise ValueError(gap)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except (ValueError, OSError) as exc:
        print("usage: " + argv[0] + " LOG GAP_MINUTES (" + str(exc) + ")", file=sys.stderr)
        return 2
    csv.writer(sys.stdout, lineterminator="\n").writerows(sessions(text, int(gap)))
    return 0


sys.exit(main(sys.argv))
"""

FRESH_PY = r"""
def fresh_log(seed):
    rng = random.Random(seed)
    clients = ["10.0.0.1", "10.0.0.2", "192.168.7.40", "2001:db8::7", "client-a"]
    zones = ["+0000", "+0200", "-0500", "+0530"]
    base = datetime.datetime(2026, 3, 28, 23, 40, tzinfo=datetime.timezone.utc)
    lines = []
    for _ in range(rng.randint(40, 90)):
        when = base + datetime.timedelta(seconds=rng.choice([rng.randint(0, 7200), rng.randint(0, 400)]))
        zone = rng.choice(zones)
        offset = datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[3:])) * (1 if zone[0] == "+" else -1)
        local = when.astimezone(datetime.timezone(offset))
        size = rng.choice(["-", "0", str(rng.randint(1, 90000))])
        status = rng.choice([200, 200, 304, 404, 500, 503, 401])
        tail = rng.choice(["", ' "-" "curl/8.5"', ' "https://x.test/" "Mozilla/5.0 (X11)"'])
        request = rng.choice(["GET / HTTP/1.1", "POST /api/items?id=3 HTTP/1.1", "-"])
        lines.append(f'{rng.choice(clients)} - - [{local:%d/%b/%Y:%H:%M:%S %z}] "{request}" {status} {size}{tail}')
    # exactly the gap apart: the same session; a minute more: a new one
    lines += ['10.9.9.9 - - [29/Mar/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 10',
              f'10.9.9.9 - - [29/Mar/2026:08:{GAP_TEST:02d}:00 +0000] "GET / HTTP/1.1" 200 20',
              f'10.9.9.9 - - [29/Mar/2026:08:{2 * GAP_TEST + 1:02d}:00 +0000] "GET / HTTP/1.1" 500 -']
    lines += ["garbage line", '10.0.0.1 - - [31/Feb/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 5', ""]
    rng.shuffle(lines)
    return "\n".join(lines) + "\n"
"""


def looks_like_access_log(artifact: Artifact) -> bool:
    lines = [line for line in artifact.sample.splitlines() if line.strip()][:50]
    return len(lines) >= 5 and sum(bool(_LINE.match(line)) for line in lines) >= 0.9 * len(lines)


@register
class AccessLogSessions(Operator):
    """Client sessions of an access log split at a stated idle gap, with requests, bytes and errors each."""

    name = "access-log-sessions"
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
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import csv, datetime, re, sys
{SESSIONS_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
{q(tool)} {q(artifact.path)} {gap} > {q(out)}"""
        tests = f"""
TOOL, LOG, OUT, GAP, SEED = {tool!r}, {artifact.path!r}, {out!r}, {gap}, {seed}
GAP_TEST = 17
{SESSIONS_PY}{FRESH_PY}{RUN_TOOL}

def read_csv(text):
    return list(csv.reader(io.StringIO(text, newline="")))


def test_{ctx.tag}_sessions_of_the_log():
    want = sessions(pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace"), GAP)
    assert len(want) > 2
    assert read_csv(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_{ctx.tag}_tool_on_fresh_logs(tmp_path):
    for k in range(4):
        text = fresh_log(SEED + k)
        path = tmp_path / f"access{{k}}.log"
        path.write_text(text, encoding="utf-8")
        gap = (GAP_TEST, 5, 60, 1)[k]
        done = run_tool(TOOL, path, gap)
        assert done.returncode == 0, done.stderr[-500:]
        assert read_csv(done.stdout.decode("utf-8")) == sessions(text, gap), k


def test_{ctx.tag}_tool_rejects_bad_arguments(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("", encoding="utf-8")
    for args in ([log, "0"], [log, "x"], [tmp_path / "missing.log", "5"], [log]):
        done = run_tool(TOOL, *args)
        assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip(), args
"""
        instruction = " ".join(
            f"""Next, find the client sessions in the access log `{artifact.path}`. Write a command-line tool
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
