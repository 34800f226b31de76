"""Tables with timestamps: what happened per minute, hour or day, and how many things were open at once.

A time column is neither summed nor grouped by value (every value is its own group); these steps read it
as time: buckets with the empty ones kept, and intervals that overlap.
"""

from __future__ import annotations

import datetime

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Role, Use, words
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.names import delimiter_name, slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_columns, csv_fitting, sample_rows

MAX_BUCKETS = 400
"""More empty-filled buckets than this is a calendar, not a report."""
STARTS = frozenset("start begin began from open opened login since first".split())
ENDS = frozenset("end ended stop stopped until to close closed logout finish finished last".split())

PARSE = r"""
def when(value):
    value = value.strip()
    if not value:
        return None
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment
"""


def _when(value: str) -> datetime.datetime | None:
    """PARSE's rule, for judging sampled values as the step will read them."""
    try:
        moment = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(datetime.UTC).replace(tzinfo=None) if moment.tzinfo else moment


def _time_columns(artifact: Artifact) -> list[str]:
    """Columns whose role is time and whose sampled values are all timestamps with a date and a time of day."""
    rows = sample_rows(artifact)
    found = []
    for name, column in csv_columns(artifact).items():
        values = [v for r in rows if (v := (r.get(name) or "").strip())]  # an empty cell is skipped, not a time
        if column.role is Role.TIME and column.distinct >= 2 and len(values) >= 2:
            if all(":" in v and "-" in v and _when(v) is not None for v in values):
                found.append(name)
    return found


WIDTHS = {
    "minute": datetime.timedelta(minutes=1),
    "hour": datetime.timedelta(hours=1),
    "day": datetime.timedelta(days=1),
}


def _width(artifact: Artifact, column: str) -> str:
    """The bucket that fits the sampled times' span: minutes within two hours, hours within two days, else days."""
    moments = [m for r in sample_rows(artifact) if (m := _when(r.get(column) or ""))]
    span = max(moments) - min(moments)
    return "minute" if span <= 2 * WIDTHS["hour"] else "hour" if span <= 2 * WIDTHS["day"] else "day"


def _bucketed(artifact: Artifact) -> list[str]:
    """Time columns whose sampled times span two buckets or more, and no more than MAX_BUCKETS."""
    found = []
    for column in _time_columns(artifact):
        moments = [m for r in sample_rows(artifact) if (m := _when(r[column] or ""))]
        width = WIDTHS[_width(artifact, column)]
        if width <= max(moments) - min(moments) <= width * MAX_BUCKETS:
            found.append(column)
    return found


BUCKETS = r"""
def buckets(path, delim, column, width, measures):
    step = datetime.timedelta(**{width + "s": 1})
    label = {"minute": "%Y-%m-%dT%H:%MZ", "hour": "%Y-%m-%dT%H:00Z", "day": "%Y-%m-%d"}[width]
    found = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter=delim):
            moment = when(row[column] or "")
            if moment is None:
                continue
            start = moment.replace(second=0, microsecond=0)
            if width != "minute":
                start = start.replace(minute=0)
            if width == "day":
                start = start.replace(hour=0)
            cell = found.setdefault(start, [0] + [decimal.Decimal(0)] * len(measures))
            cell[0] += 1
            for i, name in enumerate(measures):
                text = (row[name] or "").strip()
                cell[i + 1] += decimal.Decimal(text) if text else 0
    table = [[width, "rows", *measures]]
    if not found:
        return table
    moment, last = min(found), max(found)
    while moment <= last:
        cell = found.get(moment, [0] + [decimal.Decimal(0)] * len(measures))
        table.append([moment.strftime(label), *(str(v) for v in cell)])
        moment += step
    return table
"""


@register
class CsvTimeBuckets(Operator):
    """Rows and sums of a table's measures per minute, hour or day of a timestamp column, empty buckets kept."""

    name = "csv-time-buckets"
    uses = (Use.SUM,)
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 2.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        # No is_data(): rows with their own timestamps are events, even when a column is unique among them
        # (twelve sessions of twelve clients look like a summary keyed by client).
        return bool(csv_fitting(artifact, Use.SUM)) and bool(_bucketed(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        delim = d.get("delimiter", ",")
        column = ctx.rng.choice(_bucketed(artifact))
        width = _width(artifact, column)
        measures = csv_fitting(artifact, Use.SUM)
        out = ctx.output_path(artifact, f"per_{width}", "csv")
        args = f"{artifact.path!r}, {delim!r}, {column!r}, {width!r}, {measures!r}"
        solution = f"""python3 - <<'PY'
import csv, datetime, decimal
{PARSE}{BUCKETS}
with open({out!r}, "w", newline="", encoding="utf-8") as f:
    csv.writer(f).writerows(buckets({args}))
PY"""
        tests = f"""
SRC, DELIM, COLUMN, WIDTH, MEASURES, OUT = {args}, {out!r}
{PARSE}{BUCKETS}

def read_out():
    with open(OUT, newline="", encoding="utf-8") as f:
        return [r for r in csv.reader(f) if r]


def same(got, want):
    assert got[0] == want[0]
    assert [r[0] for r in got[1:]] == [r[0] for r in want[1:]], "buckets, their labels or their order differ"
    for g, w in zip(got[1:], want[1:]):
        assert len(g) == len(w) and int(g[1]) == int(w[1]), g[0]
        assert [decimal.Decimal(x) for x in g[2:]] == [decimal.Decimal(x) for x in w[2:]], g[0]


def test_{ctx.tag}_buckets_rows_and_sums():
    same(read_out(), buckets(SRC, DELIM, COLUMN, WIDTH, MEASURES))


def test_{ctx.tag}_buckets_add_up_to_the_table():
    table = read_out()
    with open(SRC, newline="", encoding="utf-8") as f:
        timed = [r for r in csv.DictReader(f, delimiter=DELIM) if when(r[COLUMN] or "") is not None]
    assert sum(int(r[1]) for r in table[1:]) == len(timed)
    for i, name in enumerate(MEASURES):
        want = sum(decimal.Decimal(r[name].strip()) for r in timed if (r[name] or "").strip())
        assert sum(decimal.Decimal(r[i + 2]) for r in table[1:]) == want, name
"""
        unit = width
        label = {"minute": "`YYYY-MM-DDTHH:MMZ`", "hour": "`YYYY-MM-DDTHH:00Z`", "day": "`YYYY-MM-DD`"}[width]
        sums = ", ".join(f"`{m}`" for m in measures)
        instruction = (
            f"Next, show how `{artifact.path}` ({delimiter_name(delim)}-separated, with a header row) spreads over "
            f"time: group its data rows by the {unit} of their `{column}` timestamp and write `{out}`, a "
            f"comma-separated CSV with the header `{width},rows,{','.join(measures)}`. Timestamps are ISO 8601; one "
            "with an offset or `Z` is converted to UTC, one without is taken as UTC already; a row whose "
            f"`{column}` is empty or not a valid timestamp is left out. Each {unit} is labelled {label} (UTC, the "
            f"start of the {unit}); list every {unit} from the first to the last that holds a row, in time order, "
            f"including the {unit}s in between that hold none (0 rows, sums 0). `rows` counts the rows in the "
            f"{unit}; then the exact decimal sum of each of {sums} over those rows (an empty cell counts as 0)."
        )
        produced = csv_output(out, [width, "rows", *measures], ["rows", *measures]).model_copy(
            update={"end_result": True}
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


def _interval(artifact: Artifact) -> tuple[str, str] | None:
    """(start, end): two timestamp columns named for a start and an end, start <= end on most sampled rows."""
    times = _time_columns(artifact)
    starts = [c for c in times if STARTS & set(words(c))]
    ends = [c for c in times if ENDS & set(words(c))]
    rows = sample_rows(artifact)
    for start in starts:
        for end in ends:
            pairs = [(a, b) for r in rows if (a := _when(r[start] or "")) and (b := _when(r[end] or ""))]
            # A few rows that end before they start are the data's problem to report, not another kind of table.
            if start != end and len(pairs) >= 2 and sum(a <= b for a, b in pairs) >= 0.8 * len(pairs):
                return start, end
    return None


PEAK = r"""
def peak(path, delim, start, end, label):
    events, skipped = [], 0
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter=delim):
            opened, closed = when(row[start] or ""), when(row[end] or "")
            if opened is None or closed is None or closed < opened:
                skipped += 1
                continue
            events.append((opened, 0, row[label]))  # at one instant, openings count before closings
            events.append((closed, 1, row[label]))
    events.sort(key=lambda e: (e[0], e[1]))
    open_now, best, at, names = [], 0, None, []
    for moment, kind, name in events:
        if kind == 0:
            open_now.append(name)
            if len(open_now) > best:
                best, at, names = len(open_now), moment, sorted(open_now)
        else:
            open_now.remove(name)
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ") if at is not None else None
    return {"peak": best, "at": stamp, "open": names, "skipped": skipped}
"""


@register
class CsvIntervalPeak(Operator):
    """The most rows open at one instant in a table of intervals (sessions, bookings, jobs), and when."""

    name = "csv-interval-peak"
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 2.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return _interval(artifact) is not None and bool(self._labels(artifact))  # events: see CsvTimeBuckets

    def _labels(self, artifact: Artifact) -> list[str]:
        columns = csv_columns(artifact)
        return [n for n, c in columns.items() if c.role in (Role.IDENTIFIER, Role.CATEGORY) and not c.constant]

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        delim = d.get("delimiter", ",")
        start, end = _interval(artifact) or ("", "")
        label = ctx.rng.choice(self._labels(artifact))
        out = ctx.output_path(artifact, f"peak_{slug(start)}_{slug(end)}", "json")
        args = f"{artifact.path!r}, {delim!r}, {start!r}, {end!r}, {label!r}"
        solution = f"""python3 - <<'PY'
import csv, datetime, json
{PARSE}{PEAK}
with open({out!r}, "w", encoding="utf-8") as f:
    json.dump(peak({args}), f, indent=2)
    f.write("\\n")
PY"""
        tests = f"""
SRC, DELIM, START, END, LABEL, OUT = {args}, {out!r}
{PARSE}{PEAK}

def read_out():
    with open(OUT, encoding="utf-8") as f:
        return json.load(f)


def test_{ctx.tag}_peak_and_when():
    got, want = read_out(), peak(SRC, DELIM, START, END, LABEL)
    assert set(got) == {{"peak", "at", "open", "skipped"}}
    assert (got["peak"], got["at"], got["skipped"]) == (want["peak"], want["at"], want["skipped"])


def test_{ctx.tag}_the_rows_open_at_the_peak():
    got = read_out()
    want = peak(SRC, DELIM, START, END, LABEL)
    assert got["open"] == want["open"] and len(got["open"]) == got["peak"]
"""
        instruction = (
            f"Then find the busiest instant of `{artifact.path}` ({delimiter_name(delim)}-separated, with a header "
            f"row), whose rows each run from their `{start}` to their `{end}` timestamp. A row is open from its "
            f"`{start}` to its `{end}`, both included: a row that ends at the instant another starts overlaps it, "
            f"and a row whose `{start}` equals its `{end}` is open at that instant. Timestamps are ISO 8601; one "
            "with an offset or `Z` is converted to UTC, one without is taken as UTC already. Rows with an empty or "
            f"invalid timestamp, or whose `{end}` is before their `{start}`, are skipped. Write `{out}`, one JSON "
            'object: `"peak"`, the largest number of rows open at one instant (0 when none); `"at"`, the earliest '
            'instant with that many open, as `YYYY-MM-DDTHH:MM:SSZ` (null when none); `"open"`, the '
            f"`{label}` values of the rows open at that instant, sorted in code-point order, repeats kept; "
            '`"skipped"`, how many rows were skipped.'
        )
        produced = Artifact(path=out, kind=Kind.JSON, details={"type": "object"}, end_result=True)
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
