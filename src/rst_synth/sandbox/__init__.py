"""The sandbox: fresh containers for every check, behind a small Protocol."""

from __future__ import annotations

from rst_synth.registry import resolve
from rst_synth.sandbox.base import (
    BuildError,
    ChangeKind,
    Container,
    ExecResult,
    FileChange,
    ImageConfig,
    ImageInfo,
    Limits,
    Sandbox,
    SandboxError,
    files_of_tar,
    tar_of,
)
from rst_synth.sandbox.listing import FileDigest, FileState, file_state

SANDBOXES: dict[str, str] = {"docker": "rst_synth.sandbox.docker:DockerSandbox"}
"""Built-in backends by short name (dockerd, or Podman through its Docker-compatible socket);
`make_sandbox` also takes any dotted path `package.module:factory`."""


def make_sandbox(name: str = "docker", **options: object) -> Sandbox:
    """A sandbox backend by short name or dotted path; ValueError when it is unknown."""
    sandbox: Sandbox = resolve("sandbox backend", name, SANDBOXES)(**options)
    return sandbox


__all__ = [
    "BuildError",
    "ChangeKind",
    "Container",
    "ExecResult",
    "FileChange",
    "FileDigest",
    "FileState",
    "ImageConfig",
    "ImageInfo",
    "Limits",
    "SANDBOXES",
    "Sandbox",
    "SandboxError",
    "file_state",
    "files_of_tar",
    "make_sandbox",
    "tar_of",
]
