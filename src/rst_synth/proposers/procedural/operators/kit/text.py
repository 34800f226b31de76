"""What the text, JSON and log operators share: the size they read, a file's lines, the artifacts a step
produces."""

from __future__ import annotations

from typing import Any

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind, classify

MAX_TEXT_BYTES = 4 * 1024 * 1024


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
