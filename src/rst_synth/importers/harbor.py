"""Import Harbor tasks (Terminal-Bench 2, the Harbor registry's datasets, a user's own) as seeds.

A Harbor task is already in our layout; what the import changes is what validation here cannot run
as written: a verifier that fetches uv and pytest at test time (`offline`), a base image this
machine cannot pull (`base`), a prebuilt `docker_image`, Harbor-only task.toml fields. Every change is
listed in [metadata.import]. A task that cannot be converted (a GPU, several services, MCP servers,
a prebuilt image that cannot be pulled) raises one TaskFormatError line saying why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from rst_synth.importers.offline import MARK, NotOffline, OfflineVerifier, download_wheels, make_offline
from rst_synth.importers.tb1 import bake_test_dependencies, copy_tree, fetches_from_internet
from rst_synth.task.config import EnvironmentConfig, Metadata, TaskConfig, TaskInfo
from rst_synth.task.dockerfile import apt_base, base_images, python_version_of, with_base
from rst_synth.task.errors import TaskFormatError
from rst_synth.task.paths import TaskPaths
from rst_synth.task.task import Task

NAME_PREFIX = "harbor/"
WHEELS_DIR = "rst-wheels"
"""Folder of the build context (environment/) holding the wheels an offline verifier needs."""
COMPOSE_FILES = ("docker-compose.yaml", "docker-compose.yml")
_TEMPLATE = re.compile(r"\$\{(\w+)(?::-(.*?))?\}")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG])i?B?\s*$", re.IGNORECASE)

ImageCheck = Callable[[str], str | None]
"""Why an image cannot be pulled (one line), None when it can."""
WheelFetcher = Callable[[list[str], str], dict[str, bytes]]
"""(requirements, CPython X.Y) -> wheel files by name."""


class ImportRecord(BaseModel):
    """[metadata.import]: where an imported task came from and every change the import made."""

    source: str = "harbor"
    origin: str
    """The source task's directory name."""
    offline: bool = False
    base: str | None = None
    changes: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """Fields kept as they were that validation here does not apply."""


def is_harbor_task(path: Path) -> bool:
    return (path / TaskPaths.CONFIG).is_file() and (path / TaskPaths.TESTS_DIR).is_dir()


def convert_harbor(
    src: Path,
    *,
    offline: bool = False,
    base: str | None = None,
    image_problem: ImageCheck | None = None,
    fetch_wheels: WheelFetcher = download_wheels,
) -> Task:
    """One Harbor task directory as a seed; TaskFormatError (one line naming the file) when it cannot be.

    `image_problem` is asked about a prebuilt docker_image the task has no Dockerfile for (None: not
    checked); `fetch_wheels` brings the wheels an offline verifier needs."""
    src = Path(src)
    if not src.is_dir():
        raise TaskFormatError(src, "not a directory")
    config = TaskConfig.load(src / TaskPaths.CONFIG)
    record = ImportRecord(origin=src.resolve().name, offline=offline, base=base)
    _refuse_what_cannot_run(src, config)
    for required in (TaskPaths.INSTRUCTION, TaskPaths.SOLVE, TaskPaths.TEST_SH):
        if not (src / required).is_file():
            raise TaskFormatError(src / required, "missing required file")
    files: dict[str, bytes] = {}
    executable: set[str] = set()
    for folder in TaskPaths.CONTENT_DIRS:
        found, runnable = copy_tree(src / folder, folder)
        files.update(found)
        executable |= runnable
    task = Task(
        config=config,
        instruction=_text(src / TaskPaths.INSTRUCTION),
        files=files,
        executable=executable,
        source_dir=src,
    )
    _environment(src, task, record, base, image_problem)
    _resources(src, task, record)
    _verifier(src, task, record, offline, fetch_wheels)
    _environment_variables(src, task, record)
    _network(task, record)
    _notes(task, record)
    if task.config.task is None:
        short = re.sub(r"[^A-Za-z0-9._-]+", "-", record.origin).strip("-.") or "task"
        task.config.task = TaskInfo(name=f"{NAME_PREFIX}{short}")
        record.changes.append(f"task.toml: [task].name {task.config.task.name!r} added (Harbor's org/name)")
    task.config.metadata = Metadata.model_validate(
        {**task.config.metadata.model_dump(), "import": record.model_dump(exclude_none=True)}
    )
    return task


def import_record(task: Task) -> ImportRecord | None:
    """The [metadata.import] of a task this module imported."""
    raw = (task.config.metadata.model_extra or {}).get("import")
    return ImportRecord.model_validate(raw) if isinstance(raw, dict) else None


def _refuse_what_cannot_run(src: Path, config: TaskConfig) -> None:
    extra = config.environment.model_extra or {}
    where = src / TaskPaths.CONFIG
    gpus = extra.get("gpus") or 0
    if isinstance(gpus, int) and gpus > 0:
        raise TaskFormatError(where, f"[environment].gpus = {gpus}: the task needs a GPU; validation runs CPU-only")
    servers = extra.get("mcp_servers") or []
    if servers:
        raise TaskFormatError(
            where, f"[environment].mcp_servers: {len(servers)} MCP server(s) beside the task container"
        )
    for name in COMPOSE_FILES:
        compose = src / TaskPaths.ENVIRONMENT_DIR / name
        if not compose.is_file():
            continue
        try:
            data = yaml.safe_load(compose.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise TaskFormatError(compose, f"invalid YAML: {str(exc).splitlines()[0]}") from None
        services = data.get("services") if isinstance(data, dict) else None
        if isinstance(services, dict) and len(services) > 1:
            names = ", ".join(str(s) for s in services)
            raise TaskFormatError(compose, f"{len(services)} services ({names}); only single-container tasks convert")


def _environment(
    src: Path, task: Task, record: ImportRecord, base: str | None, image_problem: ImageCheck | None
) -> None:
    data = task.config.environment.model_dump()
    image = data.pop("docker_image", None)
    task.config.environment = EnvironmentConfig.model_validate(data)
    if TaskPaths.DOCKERFILE not in task.files:
        if not image:
            raise TaskFormatError(
                src / TaskPaths.DOCKERFILE, "missing required file (and no [environment].docker_image)"
            )
        problem = image_problem(str(image)) if image_problem else None
        if problem:
            raise TaskFormatError(
                src / TaskPaths.CONFIG, f"[environment].docker_image {image!r} cannot be pulled: {problem}"
            )
        task.set_text(TaskPaths.DOCKERFILE, f"FROM {image}\n")
        record.changes.append(f"environment/Dockerfile: written as `FROM {image}` (the prebuilt docker_image)")
    elif image:
        record.changes.append(
            f"task.toml: [environment].docker_image {image!r} removed: the image is built from environment/Dockerfile"
        )
    if base:
        old = task.dockerfile
        task.set_text(TaskPaths.DOCKERFILE, with_base(old, base))
        for was in base_images(old):
            if was != base:
                record.changes.append(f"environment/Dockerfile: FROM {was} -> FROM {base} (--base)")
    for name in COMPOSE_FILES:
        if f"{TaskPaths.ENVIRONMENT_DIR}/{name}" in task.files:
            record.notes.append(
                f"environment/{name}: one service; the image is built from environment/Dockerfile alone"
            )


def _resources(src: Path, task: Task, record: ImportRecord) -> None:
    """Harbor's older `memory = "2G"` / `storage = "10G"` as memory_mb / storage_mb."""
    data = task.config.environment.model_dump()
    for old, new in (("memory", "memory_mb"), ("storage", "storage_mb")):
        if old not in data:
            continue
        value = data.pop(old)
        match = _SIZE.match(str(value))
        if not match:
            raise TaskFormatError(src / TaskPaths.CONFIG, f"[environment].{old} = {value!r}: expected a size like '2G'")
        number, unit = float(match.group(1)), match.group(2).upper()
        if data.get(new) is None:
            data[new] = int(number * {"K": 1 / 1024, "M": 1, "G": 1024}[unit])
            record.changes.append(f"task.toml: [environment].{old} = {value!r} -> {new} = {data[new]}")
        else:
            record.changes.append(f"task.toml: [environment].{old} = {value!r} removed ({new} is set)")
    task.config.environment = EnvironmentConfig.model_validate(data)


def _verifier(src: Path, task: Task, record: ImportRecord, offline: bool, fetch_wheels: WheelFetcher) -> None:
    script = task.text(TaskPaths.TEST_SH)
    fetching = [
        line for line in script.splitlines() if not line.lstrip().startswith("#") and fetches_from_internet(line)
    ]
    if not offline:
        if fetching:
            record.notes.append(
                f"tests/test.sh fetches at test time (`{fetching[0].strip()[:80]}`) and validation runs offline: "
                "import with --offline to bake what it fetches into the image"
            )
        return
    tests = {
        rel[len(TaskPaths.TESTS_DIR) + 1 :]: body.decode("utf-8", errors="replace")
        for rel, body in task.files.items()
        if rel.startswith(f"{TaskPaths.TESTS_DIR}/") and rel != TaskPaths.TEST_SH
    }
    try:
        rewritten = make_offline(script, tests)
    except NotOffline as exc:
        raise TaskFormatError(src / TaskPaths.TEST_SH, str(exc).removeprefix("tests/test.sh ")) from None
    if rewritten is None:
        return
    task.set_text(TaskPaths.TEST_SH, rewritten.script, executable=True)
    record.changes += rewritten.changes
    _bake(src, task, record, rewritten, fetch_wheels)


def _bake(src: Path, task: Task, record: ImportRecord, verifier: OfflineVerifier, fetch_wheels: WheelFetcher) -> None:
    requirements, apt = verifier.requirements, verifier.apt_packages
    if not requirements and not apt:
        return
    dockerfile = task.dockerfile
    if apt and not apt_base(dockerfile):
        raise TaskFormatError(
            src / TaskPaths.TEST_SH, f"installs {', '.join(apt)} with apt, but the base image has no apt"
        )
    wheels = None
    if requirements:
        python = python_version_of(dockerfile)
        try:
            found = fetch_wheels(requirements, python)
        except ValueError as exc:
            raise TaskFormatError(src / TaskPaths.TEST_SH, str(exc)) from None
        for name, body in found.items():
            task.files[f"{TaskPaths.ENVIRONMENT_DIR}/{WHEELS_DIR}/{name}"] = body
        wheels = WHEELS_DIR
        record.changes.append(
            f"environment/{WHEELS_DIR}/: {len(found)} wheel(s) for CPython {python} "
            f"({', '.join(requirements)} and what they need), fetched at import time"
        )
    task.set_text(
        TaskPaths.DOCKERFILE,
        bake_test_dependencies(dockerfile, requirements, made_by=MARK, wheels=wheels, apt_packages=apt),
    )
    baked = ", ".join([*requirements, *apt])
    record.changes.append(f"environment/Dockerfile: {baked} installed at build time, so the verifier runs offline")


def _environment_variables(src: Path, task: Task, record: ImportRecord) -> None:
    """[verifier].env and [solution].env exported at the top of test.sh / solve.sh ([environment].env
    as ENV lines): the validator sets no variables of its own."""
    config = task.config
    for table, holder, script in (
        ("verifier", config.verifier.model_extra, TaskPaths.TEST_SH),
        ("solution", (config.model_extra or {}).get("solution"), TaskPaths.SOLVE),
    ):
        values = _literal_env(src, table, (holder or {}).get("env") if isinstance(holder, dict) else None)
        if values:
            exports = "".join(f"export {key}={_quote(value)}\n" for key, value in values.items())
            text = task.text(script)
            head, _, rest = text.partition("\n") if text.startswith("#!") else ("", "", text)
            task.set_text(script, (f"{head}\n" if head else "") + exports + rest, executable=True)
            record.changes.append(f"{script}: exports [{table}].env ({', '.join(values)})")
    values = _literal_env(src, "environment", (config.environment.model_extra or {}).get("env"))
    if values:
        lines = "".join(f"ENV {key}={json.dumps(value)}\n" for key, value in values.items())
        task.set_text(TaskPaths.DOCKERFILE, task.dockerfile.rstrip("\n") + "\n" + lines)
        record.changes.append(f"environment/Dockerfile: ENV lines for [environment].env ({', '.join(values)})")


def _literal_env(src: Path, table: str, env: Any) -> dict[str, str]:
    if not isinstance(env, dict):
        return {}
    values: dict[str, str] = {}
    for key, value in env.items():
        text = str(value)
        for match in _TEMPLATE.finditer(text):
            if match.group(2) is None:
                raise TaskFormatError(
                    src / TaskPaths.CONFIG,
                    f"[{table}].env.{key} needs the host's ${match.group(1)}, which the import cannot know",
                )
        values[str(key)] = _TEMPLATE.sub(lambda m: m.group(2) or "", text)
    return values


def _network(task: Task, record: ImportRecord) -> None:
    env = task.config.environment
    if env.network_mode is not None or env.allow_internet is not None:
        return
    if fetches_from_internet(task.solve_sh):
        env.network_mode = "public"
        record.changes.append(
            'task.toml: [environment].network_mode = "public": solution/solve.sh downloads, and Harbor allows the '
            "internet unless told otherwise"
        )


def _notes(task: Task, record: ImportRecord) -> None:
    """Harbor fields kept in task.toml that validation here does not apply."""
    config = task.config
    tables = {
        "verifier": config.verifier.model_extra,
        "agent": config.agent.model_extra,
        "environment": config.environment.model_extra,
    }
    for table, extra in tables.items():
        for key in ("user", "network_mode", "allowed_hosts", "healthcheck", "skills_dir"):
            value = (extra or {}).get(key)
            if value:
                record.notes.append(f"[{table}].{key} = {value!r}: kept, not applied by validation here")


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise TaskFormatError(path, "not UTF-8 text") from None
