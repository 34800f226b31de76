"""What the importers and the child assembly read from a Dockerfile: its base images, its final user,
whether apt works in it; and its FROM lines rewritten onto another base."""

from __future__ import annotations

import re

_FROM = re.compile(r"^(?P<head>\s*FROM\s+(?:--\S+\s+)*)(?P<image>\S+)(?P<tail>.*)$", re.IGNORECASE | re.MULTILINE)
_USER = re.compile(r"^\s*USER\s+(\S+)", re.IGNORECASE | re.MULTILINE)
_APT_BASE = re.compile(r"debian|ubuntu|bookworm|bullseye|buster|trixie|noble|jammy|focal|bionic")
_STAGE_NAME = re.compile(r"\s+AS\s+(\S+)", re.IGNORECASE)
ROOT_USERS = ("root", "0", "0:0")

# The python3 of a base image, where its name tells: wheels baked into an image must fit it.
_PYTHON_OF_BASE = (
    (re.compile(r"python:(\d+\.\d+)"), ""),
    (re.compile(r"trixie|debian:13"), "3.13"),
    (re.compile(r"bookworm|debian:12|debian:stable"), "3.11"),
    (re.compile(r"bullseye|debian:11"), "3.9"),
    (re.compile(r"noble|ubuntu:24"), "3.12"),
    (re.compile(r"jammy|ubuntu:22"), "3.10"),
)
DEFAULT_PYTHON = "3.11"


def base_images(dockerfile: str) -> list[str]:
    """The images the FROM lines name, in order; earlier stages named by alias are left out."""
    stages: set[str] = set()
    images: list[str] = []
    for match in _FROM.finditer(dockerfile):
        image = match.group("image")
        if image.lower() not in stages:
            images.append(image)
        alias = _STAGE_NAME.search(match.group("tail"))
        if alias:
            stages.add(alias.group(1).lower())
    return images


def final_base(dockerfile: str) -> str:
    """The image the final stage starts from ("" without a FROM line)."""
    froms = list(_FROM.finditer(dockerfile))
    return froms[-1].group("image") if froms else ""


def with_base(dockerfile: str, image: str) -> str:
    """The Dockerfile with every FROM that names an image (not an earlier stage) starting from `image`."""
    stages: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        alias = _STAGE_NAME.search(match.group("tail"))
        named_stage = match.group("image").lower() in stages
        if alias:
            stages.add(alias.group(1).lower())
        return match.group(0) if named_stage else f"{match.group('head')}{image}{match.group('tail')}"

    return _FROM.sub(replace, dockerfile)


def final_user(dockerfile: str) -> str | None:
    """The USER the image ends with, None when that is root (or no USER line)."""
    users = _USER.findall(dockerfile)
    return users[-1] if users and users[-1] not in ROOT_USERS else None


def as_root(dockerfile: str, lines: str) -> str:
    """`lines` to append to `dockerfile`, wrapped in USER root ... USER <user> when the image ends as
    another user: apt-get and pip need root, and the agent must keep the user the task chose."""
    user = final_user(dockerfile)
    return f"USER root\n{lines}USER {user}\n" if user and lines else lines


def without_root_wrap(dockerfile: str, lines: str) -> str:
    """The inverse of `as_root` for the same `dockerfile`."""
    user = final_user(dockerfile)
    head, tail = "USER root\n", f"USER {user}\n"
    if user and lines.startswith(head) and lines.endswith(tail) and len(lines) >= len(head) + len(tail):
        return lines[len(head) : len(lines) - len(tail)]
    return lines


def apt_base(dockerfile: str) -> bool:
    """Whether the final stage's base image is Debian or Ubuntu, judged by its name."""
    image = final_base(dockerfile).lower()
    name = image.rsplit("/", 1)[-1]
    # python:* images are Debian, but apt's python3 would shadow their own /usr/local python.
    return "python" not in name and _APT_BASE.search(image) is not None


def python_version_of(dockerfile: str) -> str:
    """The CPython version (X.Y) the final base image most likely runs, DEFAULT_PYTHON when unknown."""
    image = final_base(dockerfile).lower()
    for pattern, version in _PYTHON_OF_BASE:
        match = pattern.search(image)
        if match:
            return version or match.group(1)
    return DEFAULT_PYTHON
