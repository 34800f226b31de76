"""Tables with timestamps: what happened per minute, hour or day, and how many things were open at once.

A time column is neither summed nor grouped by value (every value is its own group); these steps read it
as time: buckets with the empty ones kept, and intervals that overlap.
"""

from __future__ import annotations

import datetime

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Role, Use, words
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.kit.names import delimiter_name, slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_columns, csv_fitting, sample_rows
from rst_synth.proposers.procedural.operators.tables.shipped import interval_peak, time_buckets
from rst_synth.proposers.procedural.shipping import render

MAX_BUCKETS = 400
"""More empty-filled buckets than this is a calendar, not a report."""
STARTS = frozenset("start begin began from open opened login since first".split())
ENDS = frozenset("end ended stop stopped until to close closed logout finish finished last".split())


def _when(value: str) -> datetime.datetime | None:
    """The shipped `when` rule (shipped/time_buckets.py), for judging sampled values as the step will read them."""
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


@register
class CsvTimeBuckets(ReportOperator):
    """Rows and sums of a table's measures per minute, hour or day of a timestamp column, empty buckets kept."""

    name = "csv-time-buckets"
    uses = (Use.SUM,)
    kinds = (Kind.CSV,)
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
        params = {"SRC": artifact.path, "DELIM": delim, "COLUMN": column, "WIDTH": width, "MEASURES": measures}
        solution = self.report_solution(
            render(time_buckets, ["write_buckets"], **params, OUT=out), call="write_buckets()"
        )
        tests = render(
            time_buckets,
            ["test_buckets_rows_and_sums", "test_buckets_add_up_to_the_table"],
            tag=ctx.tag,
            **params,
            OUT=out,
        )
        unit = width
        label = {"minute": "`YYYY-MM-DDTHH:MMZ`", "hour": "`YYYY-MM-DDTHH:00Z`", "day": "`YYYY-MM-DD`"}[width]
        sums = ", ".join(f"`{m}`" for m in measures)
        instruction = (
            f"Show how `{artifact.path}` ({delimiter_name(delim)}-separated, with a header row) spreads over "
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


@register
class CsvIntervalPeak(ReportOperator):
    """The most rows open at one instant in a table of intervals (sessions, bookings, jobs), and when."""

    name = "csv-interval-peak"
    kinds = (Kind.CSV,)
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
        params = {"SRC": artifact.path, "DELIM": delim, "START": start, "END": end, "LABEL": label, "OUT": out}
        solution = self.report_solution(render(interval_peak, ["write_peak"], **params), call="write_peak()")
        tests = render(interval_peak, ["test_peak_and_when", "test_the_rows_open_at_the_peak"], tag=ctx.tag, **params)
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
