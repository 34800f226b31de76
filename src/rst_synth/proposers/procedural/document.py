"""A lineage's instruction as one document: a title and an opening that say who needs what and why (the
lineage's scenario), the seed's job as the starting point, then the deliverables grouped by what they are
for, each section where the lineage first needed it. Each round adds its steps' parts to the sections they
belong to, so the text reads as one job, not as a chain of "Next, ..." paragraphs; every step's part stays
contiguous, so each step keeps its own span of lines (the multi-step export and `split_child` read it).

The document is parsed back by its level-2 headings: the seed's own headings move two levels down when it
is taken in, so every `## ` line outside a code block is one of ours."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rst_synth.proposers.procedural.scenarios import HEADINGS, Purpose, Scenario

START_HEADING = "Where the work starts"
_FENCE = re.compile(r"^\s*(```|~~~)")
_ATX = re.compile(r"^(#{1,6})(\s)")
_LEAD = re.compile(r"^(?:Next|Then|Finally|Also|Now),?\s+([a-z])")


@dataclass
class Document:
    head: list[str]
    """Title and opening."""
    start: list[str]
    """The seed's job (or, for a parent written before documents, its whole instruction)."""
    parts: dict[Purpose, list[str]] = field(default_factory=dict)
    """Each purpose's section body."""


@dataclass(frozen=True)
class Part:
    """One step's deliverable: what it is for and its text."""

    purpose: Purpose
    text: str


def compose(parent: str, scenario: Scenario, parts: list[Part], *, started: bool) -> tuple[str, list[tuple[int, int]]]:
    """The child's instruction: `parent` (a document when `started`, else a seed's or an older instruction)
    with `parts` added to their sections, and each part's (first, last) line, 1-based."""
    document = parse(parent) if started else begin(parent, scenario)
    added: dict[int, tuple[Purpose, int, int]] = {}
    for index, part in enumerate(parts):
        body = document.parts.setdefault(part.purpose, [])
        if body:
            body.append("")
        lines = as_part(part.text).split("\n")
        added[index] = (part.purpose, len(body), len(body) + len(lines))
        body.extend(lines)
    text, offsets = render(document)
    spans = [(offsets[p] + first + 1, offsets[p] + last) for p, first, last in (added[i] for i in range(len(parts)))]
    return text, spans


def begin(instruction: str, scenario: Scenario) -> Document:
    """A new document around a seed's instruction."""
    head = [f"# {scenario.title}", "", scenario.opening()]
    return Document(head=head, start=demoted(instruction.strip("\n")).split("\n"))


def parse(text: str) -> Document:
    """The sections of a document `render` wrote."""
    titles = {f"## {START_HEADING}": None, **{f"## {HEADINGS[p]}": p for p in Purpose}}
    document = Document(head=[], start=[])
    current: list[str] = document.head
    fenced = False
    for line in text.rstrip("\n").split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        if not fenced and line in titles:
            purpose = titles[line]
            current = document.start if purpose is None else document.parts.setdefault(purpose, [])
            continue
        current.append(line)
    document.head = _trimmed(document.head)
    document.start = _trimmed(document.start)
    for purpose, body in document.parts.items():
        document.parts[purpose] = _trimmed(body)
    return document


def render(document: Document) -> tuple[str, dict[Purpose, int]]:
    """The document's text, and for each section the number of lines before its body."""
    lines = [*document.head, "", f"## {START_HEADING}", "", *document.start]
    offsets: dict[Purpose, int] = {}
    for purpose, body in document.parts.items():  # in the order the lineage first needed each
        if body:
            lines += ["", f"## {HEADINGS[purpose]}", ""]
            offsets[purpose] = len(lines)
            lines += body
    return "\n".join(lines) + "\n", offsets


def demoted(markdown: str) -> str:
    """Every heading two levels down (at most level 6), code blocks left alone."""
    out, fenced = [], False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _ATX.match(line)
        if match:
            level = min(6, len(match.group(1)) + 2)
            line = "#" * level + line[len(match.group(1)) :]
        out.append(line)
    return "\n".join(out)


def as_part(text: str) -> str:
    """A step's paragraph as a part of the document: no "Next, ..." lead-in, no surrounding blank lines."""
    text = text.strip("\n")
    return _LEAD.sub(lambda m: m.group(1).upper(), text, count=1)


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines
