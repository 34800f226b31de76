"""Bursts in an access log: each client's busiest window of a stated length (a sliding window over its
requests in time order, not a count per clock minute), the question a rate limit is tuned by."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.log_ops import HITS_PY, looks_like_access_log

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


@register
class AccessLogBursts(Operator):
    """Each client's most requests within any window of a stated number of seconds, and when."""

    name = "access-log-bursts"
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 2.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return looks_like_access_log(artifact)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        window = ctx.rng.choice([30, 60, 120, 300])
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
            operator=self.name,
            consumes=artifact.path,
            solution=solution,
            tests=tests,
            imports=["csv", "datetime", "pathlib", "re"],
            instruction=instruction,
            produces=[produced],
        )
