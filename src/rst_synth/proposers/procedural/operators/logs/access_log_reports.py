"""Reports an operator reads out of an access log: each client's busiest window of a stated length (a
sliding window over its requests in time order, not a count per clock minute), the question a rate limit
is tuned by; and the traffic and error rate of each endpoint, the question a capacity plan starts from."""

from __future__ import annotations

import datetime
import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.logs.access_log_sessions import HITS_PY, looks_like_access_log

BURSTS_PY = r"""

def bursts(text, window_seconds):
    window = datetime.timedelta(seconds=window_seconds)
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    rows = []
    for client, found in client_hits(text).items():
        times = sorted(hit[0] for hit in found)
        best, first, last, end = 0, None, None, 0
        for start, opened in enumerate(times):
            while end < len(times) and times[end] - opened <= window:
                end += 1
            if end - start > best:
                best, first, last = end - start, opened, times[end - 1]
        rows.append([client, str(best), first.strftime(stamp), last.strftime(stamp)])
    rows.sort(key=lambda row: (-int(row[1]), row[0]))
    return [["client", "requests", "from", "to"]] + rows
"""


_PROGRAM: dict[str, Any] = {"datetime": datetime, "re": re}
exec(HITS_PY + BURSTS_PY, _PROGRAM)  # the step's own program, for judging a log's head as the step will


def _windows(artifact: Artifact) -> list[int]:
    """The windows whose busiest counts differ between clients in the sampled head of the log: a table whose
    every client has the same count tells nothing (the degenerate-output check refuses it)."""
    head = artifact.sample
    if len(head.encode("utf-8")) != artifact.size:
        head = head[: head.rfind("\n") + 1]  # a cut sample loses its partial last line
    return [w for w in (30, 60, 120, 300) if len({row[1] for row in _PROGRAM["bursts"](head, w)[1:]}) > 1]


@register
class AccessLogBursts(Operator):
    """Each client's most requests within any window of a stated number of seconds, and when."""

    name = "access-log-bursts"
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 2.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return looks_like_access_log(artifact) and bool(_windows(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        window = ctx.rng.choice(_windows(artifact))
        out = ctx.output_path(artifact, f"bursts_{window}s", "csv")
        solution = f"""python3 - <<'PY'
import csv, datetime, re
{HITS_PY}{BURSTS_PY}
with open({artifact.path!r}, encoding="utf-8", errors="replace") as f:
    table = bursts(f.read(), {window})
with open({out!r}, "w", newline="", encoding="utf-8") as f:
    csv.writer(f, lineterminator="\\n").writerows(table)
PY"""
        tests = f"""
LOG, OUT, WINDOW = {artifact.path!r}, {out!r}, {window}
{HITS_PY}{BURSTS_PY}

def read_out():
    with open(OUT, newline="", encoding="utf-8") as f:
        return [r for r in csv.reader(f) if r]


def want():
    return bursts(pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace"), WINDOW)


def test_{ctx.tag}_busiest_window_per_client():
    assert read_out() == want()


def test_{ctx.tag}_windows_fit_and_hold_their_count():
    hits = client_hits(pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace"))
    table = read_out()
    assert {{r[0] for r in table[1:]}} == set(hits)
    for client, count, first, last in table[1:]:
        opened = datetime.datetime.strptime(first, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
        closed = datetime.datetime.strptime(last, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
        assert datetime.timedelta(0) <= closed - opened <= datetime.timedelta(seconds=WINDOW), client
        assert sum(opened <= h[0] <= closed for h in hits[client]) == int(count), client
"""
        instruction = " ".join(
            f"""Next, find how hard each client of the access log `{artifact.path}` hit the server in a burst.
            Read the log as the common or combined log format (`CLIENT IDENT USER [DD/Mon/YYYY:HH:MM:SS +ZZZZ]
            "REQUEST" STATUS BYTES`, optionally followed by more fields); skip lines without that form or whose
            time is no real date, and convert times to UTC by their offset. For each client (the first field,
            compared as text), find the window of at most {window} seconds that holds the most of its requests:
            a window runs from one of its requests to a time at most {window} seconds later, both ends included
            (requests exactly {window} seconds apart are in one window). Write `{out}`, a CSV with the header
            `client,requests,from,to` and one row per client: the most requests in one such window, the time of
            the first and of the last request in that window as `YYYY-MM-DDTHH:MM:SSZ` (UTC); when several
            windows tie, the one that starts earliest. Order rows by `requests` descending, then client in
            code-point order; lines end with `\\n`.""".split()
        )
        produced = csv_output(out, ["client", "requests", "from", "to"], ["requests"]).model_copy(
            update={"end_result": True}
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


ENDPOINTS_PY = r"""

def endpoints(text):
    found = {}
    for _, _, request, status, size in requests_of(text):
        parts = request.split(" ")
        if len(parts) != 3 or not parts[1].startswith("/"):
            continue
        path = parts[1].split("?", 1)[0].split("#", 1)[0]
        cell = found.setdefault((parts[0], path), [0, 0, 0])
        cell[0] += 1
        cell[1] += size
        cell[2] += status >= 500
    rows = [[m, p, str(n), str(b), str(e), f"{e / n:.4f}"] for (m, p), (n, b, e) in found.items()]
    rows.sort(key=lambda row: (-int(row[2]), row[0], row[1]))
    return [["method", "path", "requests", "bytes", "server_errors", "error_rate"]] + rows
"""


@register
class AccessLogEndpoints(Operator):
    """Requests, bytes and the server-error rate of each method and path of an access log."""

    name = "access-log-endpoints"
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 2.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return looks_like_access_log(artifact)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        out = ctx.output_path(artifact, "endpoints", "csv")
        solution = f"""python3 - <<'PY'
import csv, datetime, re
{HITS_PY}{ENDPOINTS_PY}
with open({artifact.path!r}, encoding="utf-8", errors="replace") as f:
    table = endpoints(f.read())
with open({out!r}, "w", newline="", encoding="utf-8") as f:
    csv.writer(f, lineterminator="\\n").writerows(table)
PY"""
        tests = f"""
LOG, OUT = {artifact.path!r}, {out!r}
{HITS_PY}{ENDPOINTS_PY}

def read_out():
    with open(OUT, newline="", encoding="utf-8") as f:
        return [r for r in csv.reader(f) if r]


def test_{ctx.tag}_traffic_per_endpoint():
    got = read_out()
    want = endpoints(pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace"))
    assert [r[:5] for r in got] == [r[:5] for r in want]
    assert got[0] == want[0]
    assert all(abs(float(g[5]) - float(w[5])) < 0.00006 for g, w in zip(got[1:], want[1:]))


def test_{ctx.tag}_every_request_with_a_path_counted_once():
    text = pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace")
    with_path = [r for r in requests_of(text) if len(r[2].split(" ")) == 3 and r[2].split(" ")[1].startswith("/")]
    body = read_out()[1:]
    assert sum(int(r[2]) for r in body) == len(with_path)
    assert sum(int(r[3]) for r in body) == sum(r[4] for r in with_path)
"""
        instruction = " ".join(
            f"""Next, report the traffic of each endpoint in the access log `{artifact.path}`. Read it as the
            common or combined log format (`CLIENT IDENT USER [DD/Mon/YYYY:HH:MM:SS +ZZZZ] "REQUEST" STATUS
            BYTES`, optionally followed by more fields); skip lines without that form or whose time is no real
            date. An endpoint is the method and the path of a REQUEST of the form `METHOD PATH PROTOCOL` whose
            PATH starts with `/`, the path taken without its query string (from `?`) or fragment (from `#`);
            requests of any other form (`-`, a bare path) belong to no endpoint. Write `{out}`, a CSV with the
            header `method,path,requests,bytes,server_errors,error_rate` and one row per endpoint: its requests,
            the sum of BYTES (`-` counts as 0), the requests whose STATUS is 500 or more, and those as a share
            of its requests with 4 decimals. Order rows by `requests` descending, then method and path in
            code-point order; lines end with `\\n`.""".split()
        )
        produced = csv_output(
            out,
            ["method", "path", "requests", "bytes", "server_errors", "error_rate"],
            ["requests", "bytes", "server_errors", "error_rate"],
        ).model_copy(update={"end_result": True})
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
