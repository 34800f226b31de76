"""What the text, JSON and log operators share: the size they read, a file's lines, the artifacts a step
produces."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind, classify

MAX_TEXT_BYTES = 4 * 1024 * 1024

CHECKSUM_LINE = re.compile(
    r"^([0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}) [ *].+$"  # sha256sum and friends
    r"|^.+: (OK|FAILED)$"  # sha256sum -c
    r"|^/\S+ \S+:\S+ [0-7]{4}$"  # a permissions audit
)
"""A line of a checksum list or of a permissions audit: bookkeeping, whoever wrote it."""

NOT_PROSE_SUFFIXES = frozenset(
    ".sql .py .c .h .cc .cpp .sh .bash .js .ts .go .rs .java .rb .pl .json .jsonl .csv .tsv .toml .ini .yaml .yml "
    ".conf .cfg .xml .html .sha256 .sha1 .md5 .sum .lock .mk .diff .patch".split()
)
_STATEMENT = re.compile(r"^\s*(CREATE|INSERT|SELECT|UPDATE|DELETE|BEGIN|COMMIT|PRAGMA|DROP|ALTER|WITH)\b", re.I)


def is_prose(artifact: Artifact) -> bool:
    """Text people write to be read (notes, tickets, a letter), not SQL, code, data or a checksum list: a text
    operator (terms, contacts) on `schema.sql` or a sha256 list computes hex digits and keywords."""
    if PurePosixPath(artifact.path).suffix.lower() in NOT_PROSE_SUFFIXES:
        return False
    lines = [line for line in artifact.sample.splitlines() if line.strip()]
    if not lines:
        return False
    coded = sum(
        bool(CHECKSUM_LINE.match(line) or _STATEMENT.match(line)) or line.rstrip().endswith(";") for line in lines
    )
    return coded * 10 <= len(lines)


def complete_sample(artifact: Artifact) -> str | None:
    """The artifact's whole text when its sample holds all of it, else None."""
    sample = artifact.sample
    return sample if sample and len(sample.encode("utf-8")) == artifact.size else None


def split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def function(code: str, name: str, **modules: Any) -> Any:
    """The function `name` defined by `code`, the same source a step's solution and tests run."""
    namespace: dict[str, Any] = dict(modules)
    exec(code, namespace)
    return namespace[name]


def text_artifact(path: str, text: str | None, lines: int) -> Artifact:
    """A produced text file: exact details when its whole text is known, else a lower bound of its lines."""
    if text is None:
        return Artifact(path=path, kind=Kind.TEXT, details={"lines": lines})
    return Artifact(
        path=path,
        kind=Kind.TEXT,
        size=len(text.encode("utf-8")),
        details={"lines": len(split_lines(text))},
        sample=text[:SAMPLE_CHARS],
    )


def data_artifact(path: str, text: str | None, kind: Kind, fallback: dict[str, Any]) -> Artifact:
    """A produced JSON/CSV file, classified from its exact text when known."""
    if text is not None:
        found, details, sample = classify(path, text.encode("utf-8"))
        if found is kind:
            return Artifact(path=path, kind=kind, size=len(text.encode("utf-8")), details=details, sample=sample)
    return Artifact(path=path, kind=kind, details=fallback)
