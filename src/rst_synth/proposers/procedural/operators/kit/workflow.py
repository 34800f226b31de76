"""Shared by the workflow operators: the CSV shape they work on, where a step's tools and planted
inputs go, and how a step plants a file in the environment (an input feed, a defective tool).

A workflow step is a piece of work an engineer reasons about (a tool with a contract, a defect, a
reconciliation), not one command; its tests recompute the expected result from the inputs or run
the step's tool on inputs they generate, so any correct solution passes.
"""

from __future__ import annotations

import base64
import csv
import io
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import StepContext, q
from rst_synth.proposers.procedural.operator import work_root as work_root  # where operators look it up
from rst_synth.proposers.procedural.operators.kit.names import slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_fitting

DECIMAL = re.compile(r"-?\d+(\.\d+)?")
"""The numbers workflow steps add up exactly: optional minus, digits, optional fraction (no exponent)."""
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_ .-]{0,39}")
AGGREGATES = (["count", "total"], ["rows", "total"], ["rows", "total", "min", "max"])
"""Headers (after the group column) of the per-group results the workflow tools write."""


@dataclass(frozen=True)
class CsvShape:
    """A comma-separated artifact with a text column to group by and a decimal column to add up."""

    path: str
    header: list[str]
    group: str
    value: str
    rows: list[list[str]]
    """The data rows the artifact's sample holds completely."""
    complete: bool
    """Whether `rows` are all of the file's data rows."""

    @property
    def groups(self) -> list[str]:
        """Distinct group values of the known rows, in first-seen order."""
        index = self.header.index(self.group)
        return list(dict.fromkeys(row[index] for row in self.rows))

    @property
    def values(self) -> list[str]:
        index = self.header.index(self.value)
        return [row[index] for row in self.rows]


def known_rows(artifact: Artifact) -> tuple[list[list[str]], bool] | None:
    """Header plus data rows of a CSV artifact that its sample holds, and whether that is the whole file."""
    sample = artifact.sample
    complete = bool(sample) and len(sample) < SAMPLE_CHARS and len(sample.encode("utf-8")) == artifact.size
    text = sample if complete else sample[: sample.rfind("\n") + 1]
    try:
        rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=",") if r]
    except csv.Error:
        return None
    if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows):
        return None
    return rows, complete


def csv_pairs(artifact: Artifact, key: Use = Use.GROUP, value: Use = Use.SUM) -> list[tuple[str, str]]:
    """(key column, value column) pairs a workflow step can use: plain column names, a decimal value column
    (in every known row), and roles that fit: by default a column that categorises and repeats, to group by,
    and an additive measure, to total (roles.py); `key=Use.KEY, value=Use.STATS` gives a unique key and a
    measure, for lookups such as a reconciliation."""
    d = artifact.details
    header = d.get("header") or []
    if artifact.kind is not Kind.CSV or d.get("delimiter") != "," or not header:
        return []
    if not all(_PLAIN_NAME.fullmatch(h) for h in header) or len({h.lower() for h in header}) != len(header):
        return []
    if header[1:] in AGGREGATES:
        return []  # a workflow step's own per-group result: grouping it again by its key repeats it
    found = known_rows(artifact)
    if found is None or found[0][0] != header:
        return []
    body = found[0][1:]
    decimal = {h for i, h in enumerate(header) if all(DECIMAL.fullmatch(r[i]) for r in body)}
    keys = csv_fitting(artifact, key)
    return [(g, v) for g in keys for v in csv_fitting(artifact, value) if g != v and v in decimal]


def contract_tool(discovery: Discovery, folder: str, group: str, value: str, suffix: str) -> str:
    """Where a tool for the (group, value) columns lives: named by its contract, because two tables
    sharing those columns would get the same tool, byte for byte. A tool that exists already (from an
    earlier step of the lineage) means that contract is done: `open_pairs` leaves it out."""
    return f"{work_root(discovery)}/{folder}/{slug(group)}_{slug(value)}_{suffix}"


def open_pairs(
    pairs: list[tuple[str, str]], discovery: Discovery, taken: set[str], folder: str, suffix: str
) -> list[tuple[str, str]]:
    """The (group, value) pairs whose tool is not among `taken` paths yet."""
    return [(g, v) for g, v in pairs if contract_tool(discovery, folder, g, v, suffix) not in taken]


def contract_shape(artifact: Artifact, ctx: StepContext, folder: str, suffix: str) -> tuple[CsvShape, str]:
    """A (group, value) pair of `artifact` whose tool this lineage has not written, and that tool's path."""
    pairs = csv_pairs(artifact)
    shape = csv_shape(artifact, ctx, open_pairs(pairs, ctx.discovery, ctx.taken_paths, folder, suffix) or pairs)
    tool = contract_tool(ctx.discovery, folder, shape.group, shape.value, suffix)
    if tool in ctx.taken_paths:
        return shape, fresh_path(ctx, tool.rsplit("/", 1)[0], tool.rsplit("/", 1)[1])
    ctx.taken_paths.add(tool)
    return shape, tool


def csv_shape(artifact: Artifact, ctx: StepContext, pairs: list[tuple[str, str]] | None = None) -> CsvShape:
    """Draw one (group, value) pair of `artifact` (of `pairs` when given); `csv_pairs` must have found one."""
    group, value = ctx.rng.choice(pairs or csv_pairs(artifact))
    found = known_rows(artifact)
    assert found is not None  # csv_pairs checked it
    rows, complete = found
    return CsvShape(path=artifact.path, header=rows[0], group=group, value=value, rows=rows[1:], complete=complete)


def inside_git(path: str, discovery: Discovery) -> bool:
    """Whether `path` lies in a discovered git work tree (a new file there would dirty `git status`)."""
    return any(a.kind is Kind.GIT and path.startswith(a.path.rstrip("/") + "/") for a in discovery.artifacts)


def fresh_path(ctx: StepContext, directory: str, name: str) -> str:
    """`directory/name`, or `directory/name2`, ... when a file of the lineage has that path already."""
    stem, dot, ext = name.partition(".")
    candidate, n = f"{directory}/{name}", 2
    while candidate in ctx.taken_paths:
        candidate = f"{directory}/{stem}{n}{dot}{ext}"
        n += 1
    ctx.taken_paths.add(candidate)
    return candidate


def stem_of(artifact: Artifact) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", PurePosixPath(artifact.path).stem).strip("_")[:32] or "data"


def tool_path(ctx: StepContext, artifact: Artifact, suffix: str) -> str:
    """A fresh path for a command-line tool the step writes: <work root>/bin/<stem>_<suffix>."""
    return fresh_path(ctx, f"{work_root(ctx.discovery)}/bin", f"{stem_of(artifact)}_{suffix}")


def planted_dir(ctx: StepContext) -> str:
    """The folder of what this step plants in the environment (the tag keeps it unique in the lineage)."""
    return f"{work_root(ctx.discovery)}/incoming/{ctx.tag}"


def plant(path: str, content: str | bytes, mode: str = "0644") -> str:
    """A Dockerfile line that writes `content` to `path` at build time (no build context needed)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    encoded = base64.b64encode(data).decode("ascii")
    directory = str(PurePosixPath(path).parent)
    return f"RUN mkdir -p {q(directory)} && printf '%s' '{encoded}' | base64 -d > {q(path)} && chmod {mode} {q(path)}\n"


def run_at_build(script: str) -> str:
    """A Dockerfile line that runs a Python script at build time (to generate a large planted input)."""
    encoded = base64.b64encode(script.encode("utf-8")).decode("ascii")
    return f"RUN printf '%s' '{encoded}' | base64 -d | python3 -\n"


EDGE_VALUES = ("Zürich", "a,b", 'say "hi"', "東京", "plain", "two\nlines", "ünïcödé-ß", "x")
"""Group values the generated test inputs draw from: quotes, commas, line breaks and non-ASCII text."""


def outside_git(artifact: Artifact, discovery: Discovery) -> bool:
    """False inside a discovered git work tree: a new file there would dirty `git status`."""
    return not any(
        a.kind is Kind.GIT and artifact.path.startswith(a.path.rstrip("/") + "/") for a in discovery.artifacts
    )
