"""The sandbox: fresh containers for every check, behind a small Protocol."""

from __future__ import annotations

from collections.abc import Callable

from rst_synth.sandbox.base import (
    BuildError,
    Container,
    ExecResult,
    ImageInfo,
    Limits,
    Sandbox,
    SandboxError,
    files_of_tar,
    tar_of,
)


def _docker(**options: object) -> Sandbox:
    from rst_synth.sandbox.docker import DockerSandbox

    return DockerSandbox(**options)  # type: ignore[arg-type]


BACKENDS: dict[str, Callable[..., Sandbox]] = {"docker": _docker}
"""Sandbox backends by short name; a new backend is one module and one entry here."""


def make_sandbox(name: str = "docker", **options: object) -> Sandbox:
    try:
        factory = BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown sandbox backend {name!r}; known: {', '.join(sorted(BACKENDS))}") from None
    return factory(**options)


__all__ = [
    "BACKENDS",
    "BuildError",
    "Container",
    "ExecResult",
    "ImageInfo",
    "Limits",
    "Sandbox",
    "SandboxError",
    "files_of_tar",
    "make_sandbox",
    "tar_of",
]
