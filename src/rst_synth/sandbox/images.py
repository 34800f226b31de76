"""The images a run built, and removing those it no longer needs (`rst gc RUN`).

Every image the Docker backend builds for `rst synth` carries the run directory as a label, so a
run's images are found without guessing; the caller says which tags to keep (the images of its
accepted tasks). Removing a tag also removes the untagged layers under it that nothing else uses:
the classic builder's cache of that build.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import docker
from docker.errors import APIError, DockerException, NotFound

from rst_synth.sandbox.base import SandboxError
from rst_synth.sandbox.docker import IMAGE_REPO, RUN_DIR_LABEL

STATE_REPO = "rst-state"
"""Where the validator keeps tasks' final states (validator/kept.py)."""


@dataclass
class Collected:
    """What `collect_images` did."""

    removed: list[str] = field(default_factory=list)
    """Tags removed (their images too, once no tag was left)."""
    kept: list[str] = field(default_factory=list)
    """Tags of the run that were asked to be kept."""
    in_use: list[str] = field(default_factory=list)
    """Tags a container still uses: left alone."""
    freed_bytes: int = 0
    """How much the engine's image layers shrank."""


def image_tag(environment_hash: str) -> str:
    """The tag the Docker backend gives the image of a build context (as `ensure_image` does)."""
    return f"{IMAGE_REPO}:{environment_hash[:24]}"


def collect_images(run_dir: Path, keep: set[str], dry_run: bool = False) -> Collected:
    """Remove every image tag built for `run_dir` except `keep`; `dry_run` only says what it would."""
    try:
        client = docker.from_env()
        api = client.api
        before = int(api.df().get("LayersSize") or 0)
        images = api.images(filters={"label": f"{RUN_DIR_LABEL}={run_dir.resolve()}"})
    except DockerException as exc:
        raise SandboxError(f"no Docker engine answers: {exc}") from None
    done = Collected()
    # Images built FROM a kept state (a child's environment on its parent's final state) go first:
    # the engine refuses to remove an image others are built on.
    images.sort(key=lambda image: any(t.startswith(f"{STATE_REPO}:") for t in image.get("RepoTags") or []))
    try:
        for image in images:
            for tag in sorted(image.get("RepoTags") or []):
                if tag in keep:
                    done.kept.append(tag)
                    continue
                if dry_run:
                    done.removed.append(tag)
                    continue
                try:
                    api.remove_image(tag, force=False, noprune=False)
                    done.removed.append(tag)
                except NotFound:
                    pass
                except APIError as exc:
                    if exc.status_code != 409:  # 409: a container uses it
                        raise SandboxError(f"could not remove {tag}: {exc.explanation or exc}") from None
                    done.in_use.append(tag)
        done.freed_bytes = 0 if dry_run else max(0, before - int(api.df().get("LayersSize") or 0))
    finally:
        client.close()
    return done
