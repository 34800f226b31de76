"""Operators on data files as files: archive listings, checksum manifests, reproducible bundles."""

from __future__ import annotations

from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.files.shipped import archive_manifest, file_manifests
from rst_synth.proposers.procedural.operators.kit.workflow import outside_git
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

MAX_BYTES = 1024 * 1024
MAX_FILES = 20
_TEXTUAL = (Kind.CSV, Kind.JSON, Kind.TEXT, Kind.CONFIG)
_STABLE = _TEXTUAL + (Kind.ARCHIVE, Kind.C_SOURCE, Kind.PYTHON_SOURCE, Kind.SHELL_SCRIPT)
"""Kinds whose bytes nothing touches after the solution ran (not databases, logs or journals)."""


def _plain_path(path: str) -> bool:
    name = PurePosixPath(path).name
    return not any(c in path for c in "\\\n\r") and not name.startswith("-") and not name.endswith(".log")


def _stable(artifact: Artifact) -> bool:
    return artifact.kind in _STABLE and artifact.size <= MAX_BYTES and _plain_path(artifact.path)


def _siblings(artifact: Artifact, discovery: Discovery) -> list[str]:
    """The consumed artifact and the discovered files next to it, sorted; at most MAX_FILES."""
    others = sorted(
        a.path
        for a in discovery.artifacts
        if a.directory == artifact.directory and a.path != artifact.path and _stable(a)
    )
    return sorted([artifact.path] + others[: MAX_FILES - 1])


@register
class ArchiveManifest(Operator):
    """List the regular files of a tar or zip archive with their sizes."""

    name = "archive-manifest"
    purpose = Purpose.RECORD
    bookkeeping = True
    weight = 0.3
    kinds = (Kind.ARCHIVE,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            outside_git(artifact, discovery)
            and artifact.details.get("format") in ("tar", "tar.gz", "zip")
            and artifact.size <= 4 * MAX_BYTES
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        fmt = artifact.details["format"]
        out = ctx.output_path(artifact, "manifest", "csv")
        params = {"SRC": artifact.path, "FORMAT": fmt, "OUT": out}
        solution = python_script(render(archive_manifest, ["write_manifest"], **params), "write_manifest()")
        tests = render(archive_manifest, ["test_archive_manifest"], tag=ctx.tag, **params)
        kind = "zip" if fmt == "zip" else "tar" if fmt == "tar" else "gzip-compressed tar"
        instruction = (
            f"List the contents of the {kind} archive `{artifact.path}` in `{out}`: a comma-separated file "
            "with the header `path,size` and one row per regular file member (no directories or links), giving "
            "the member's path exactly as stored in the archive and its uncompressed size in bytes as a plain "
            "integer, rows sorted by path in code-point order (ties by size)."
        )
        produced = csv_output(out, ["path", "size"], ["size"])
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


@register
class FileSha256Manifest(Operator):
    """A sha256sum-format manifest of a file and the files produced next to it."""

    name = "file-sha256-manifest"
    purpose = Purpose.RECORD
    bookkeeping = True
    weight = 0.3
    kinds = _TEXTUAL
    tools = ("sha256sum",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return outside_git(artifact, discovery) and _stable(artifact)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        files = _siblings(artifact, ctx.discovery)
        out = ctx.output_path(artifact, "sha256", "txt")
        solution = f"sha256sum -- {' '.join(q(f) for f in files)} > {q(out)}"
        tests = render(file_manifests, ["test_sha256_manifest"], tag=ctx.tag, FILES=files, OUT=out)
        listed = ", ".join(f"`{f}`" for f in files)
        instruction = (
            f"Then record SHA-256 checksums in `{out}`, in the format of `sha256sum` (one line per file: the "
            "64-character lowercase hex digest, two spaces, the absolute path), for exactly these files, one line "
            f"each, ordered by path: {listed}."
        )
        produced = Artifact(path=out, kind=Kind.TEXT, details={"lines": len(files)})
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


@register
class FilesBundleTargz(Operator):
    """A reproducible tar.gz of a file and the files produced next to it."""

    name = "files-bundle-targz"
    purpose = Purpose.RECORD
    bookkeeping = True
    weight = 0.3
    kinds = _TEXTUAL + (Kind.C_SOURCE, Kind.PYTHON_SOURCE, Kind.SHELL_SCRIPT)
    tools = ("tar", "gzip")

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return outside_git(artifact, discovery) and _stable(artifact)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        directory = artifact.directory
        names = [PurePosixPath(f).name for f in _siblings(artifact, ctx.discovery)]
        out = ctx.output_path(artifact, "bundle", "tar.gz")
        solution = (
            f"tar -C {q(directory)} --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner "
            f"-cf - -- {' '.join(q(n) for n in names)} | gzip -n > {q(out)}"
        )
        params = {"DIRECTORY": directory, "NAMES": names, "OUT": out}
        tests = render(file_manifests, ["test_bundle_holds_the_files"], tag=ctx.tag, **params)
        listed = ", ".join(f"`{n}`" for n in names)
        instruction = (
            f"Bundle files of `{directory}` into the gzip-compressed tar archive `{out}`. It must contain "
            f"exactly these regular files of that directory, each stored under its bare file name (no directory "
            f"part) with its current content, and nothing else (no directory entries): {listed}."
        )
        produced = Artifact(path=out, kind=Kind.ARCHIVE, details={"format": "tar.gz", "members": names})
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
