"""Members per listed value: a column whose cells are lists (`reports;vpn`), split, and every value named
in any list reported with the rows that name it (a roster's extra groups, a ticket's labels)."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Role, Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.kit.names import delimiter_name, slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_columns, csv_fitting, is_data, sample_rows
from rst_synth.proposers.procedural.operators.tables.shipped import list_members
from rst_synth.proposers.procedural.shipping import render

SEPARATORS = (";", "|")
TOKEN = re.compile(r"[\w.@+:/-]{1,32}")
"""A listed value: a short name without spaces (a group, a tag, a label), never prose or a number list."""
PLAIN = re.compile(r"[^`\s][^`]*")
"""A filter value the instruction can quote between backticks."""


def _tokens(cell: str, sep: str) -> set[str]:
    return {t.strip() for t in cell.split(sep)} - {""}


def _list_columns(artifact: Artifact, rows: list[dict[str, str]]) -> list[tuple[str, str]]:
    """(column, separator): cells that list short names, on two rows or more, over fewer names than rows."""
    found = []
    delim = artifact.details.get("delimiter", ",")
    for name in artifact.details.get("header") or []:
        cells = [r[name] for r in rows]
        for sep in (s for s in SEPARATORS if s != delim):
            others = [s for s in SEPARATORS if s not in (sep, delim)]
            listed = sum(len([t for t in c.split(sep) if t.strip()]) >= 2 for c in cells)
            names = set().union(*(_tokens(c, sep) for c in cells))
            if listed < 2 or any(o in c for o in others for c in cells) or not 2 <= len(names) < len(rows):
                continue
            if all(TOKEN.fullmatch(t) and any(ch.isalpha() for ch in t) for t in names):
                found.append((name, sep))
    return found


def _identifiers(artifact: Artifact, rows: list[dict[str, str]], listed: str) -> list[str]:
    """Columns that name each row with one word; names before numbers (`username` reads better than `uid`)."""
    columns = csv_columns(artifact)
    words = [
        n
        for n, c in columns.items()
        if n != listed
        and c.role is Role.IDENTIFIER
        and c.fits(Use.KEY)
        and all(r[n].strip() for r in rows)
        and not any(re.search(r"\s", r[n].strip()) for r in rows)
    ]
    named = [n for n in words if not all(r[n].strip().isdigit() for r in rows)]
    return named or words


def _filters(artifact: Artifact, rows: list[dict[str, str]], listed: str, sep: str) -> list[tuple[str, str]]:
    """(column, value): keep the rows of one category value, where that leaves two rows with a list and
    drops another (a filter that drops nothing asks nothing)."""
    options = []
    with_list = [r for r in rows if _tokens(r[listed], sep)]
    for name, column in csv_columns(artifact).items():
        if name == listed or column.role is not Role.CATEGORY or not 2 <= column.distinct <= 6:
            continue
        for value in sorted({r[name].strip() for r in rows}):
            kept = sum(r[name].strip() == value for r in with_list)
            if PLAIN.fullmatch(value) and 2 <= kept < len(with_list):
                options.append((name, value))
    return options


def _choices(artifact: Artifact) -> list[tuple[str, str, str]]:
    """(list column, separator, identifier column), where another column categorises the rows too (a table
    of names and lists alone is a lookup, not a roster)."""
    rows = sample_rows(artifact)
    grouping = csv_fitting(artifact, Use.GROUP)
    return [
        (listed, sep, key)
        for listed, sep in _list_columns(artifact, rows)
        for key in _identifiers(artifact, rows, listed)
        if any(g not in (listed, key) for g in grouping)
    ]


def _heading(column: str) -> str:
    """The output's first header: the list column's last word made singular (`extra_groups` -> `group`)."""
    word = column.lower().split("_")[-1]
    if word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    else:
        word = column
    return next(h for h in (word, column, "value") if re.fullmatch(r"\w+", h) and h not in ("members", "count"))


@register
class CsvListMembers(ReportOperator):
    """Split a column of lists and report, for every value named in any list, the rows naming it."""

    name = "csv-list-members"
    uses = (Use.KEY, Use.GROUP)
    kinds = (Kind.CSV,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return is_data(artifact) and bool(_choices(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        delim = artifact.details.get("delimiter", ",")
        listed, sep, key = ctx.rng.choice(_choices(artifact))
        options = _filters(artifact, sample_rows(artifact), listed, sep)
        fcol, fval = ctx.rng.choice(options) if options and ctx.rng.random() < 0.5 else ("", "")
        head = _heading(listed)
        out = ctx.output_path(artifact, f"{slug(listed)}_members", "csv")
        params = {
            "SRC": artifact.path,
            "DELIM": delim,
            "LIST": listed,
            "SEP": sep,
            "KEY": key,
            "FCOL": fcol,
            "FVAL": fval,
            "HEAD": head,
            "OUT": out,
        }
        # The solution and the tests compute the table two different ways: each checks the other.
        solution = self.report_solution(render(list_members, ["write_members"], **params), call="write_members()")
        tests = render(
            list_members, ["test_members_per_listed_value", "test_counts_are_member_counts"], tag=ctx.tag, **params
        )
        where = f" Consider only the rows whose `{fcol}` value, trimmed, is exactly `{fval}`." if fcol else ""
        instruction = (
            f"Report who is named under every value listed in the `{listed}` column of `{artifact.path}` "
            f"({delimiter_name(delim)}-separated, with a header row). Each `{listed}` cell is a list of values "
            f"separated by `{sep}`: trim every value of surrounding whitespace, ignore empty values (an empty cell "
            f"or a doubled `{sep}`), count a value repeated within one cell once for that row, and compare values "
            f"case-sensitively.{where} Write `{out}`, a comma-separated CSV with the header `{head},members,count` "
            f"and one row per distinct value named in any {'such ' if fcol else ''}row: the value; its members, "
            f"the `{key}` values (trimmed) of the rows naming it, sorted in ascending code-point order and joined "
            "by a single space; and the number of those rows. Order the rows by count, descending, then by value "
            "in ascending code-point order. Quote fields the standard CSV way where needed."
        )
        produced = csv_output(out, [head, "members", "count"], ["count"], end_result=True)
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
