"""The wheels a workflow built: which wheel belongs to a project's pyproject.toml."""

from __future__ import annotations

import re
import tomllib
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery


def project_name(artifact: Artifact) -> str | None:
    if PurePosixPath(artifact.path).name != "pyproject.toml" or not artifact.sample:
        return None
    try:
        name = tomllib.loads(artifact.sample).get("project", {}).get("name")
    except tomllib.TOMLDecodeError:
        return None
    return name if isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name) else None


def project_wheel(artifact: Artifact, discovery: Discovery) -> str | None:
    """The wheel the workflow built of the project whose pyproject.toml `artifact` is, if any."""
    name = project_name(artifact)
    if name is None:
        return None
    stem = re.sub(r"[-_.]+", "_", name).lower()
    wheels = sorted(
        a.path
        for a in discovery.artifacts
        if a.kind is Kind.ARCHIVE and a.name.endswith(".whl") and a.name.lower().startswith(stem + "-")
    )
    return wheels[-1] if wheels else None


def installed_version(name: str, discovery: Discovery) -> str | None:
    """The installed version of distribution `name` (its dist-info folder among the artifacts), if any."""
    stem = re.sub(r"[-_.]+", "_", name).lower()
    for artifact in discovery.artifacts:
        folder = PurePosixPath(artifact.path).parent.name
        match = re.fullmatch(r"(.+)-([0-9][^-]*)\.dist-info", folder)
        if match and re.sub(r"[-_.]+", "_", match[1]).lower() == stem and "-packages/" in artifact.path:
            return match[2]
    return None
