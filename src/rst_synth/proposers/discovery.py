"""Artifact discovery: run a task's reference solution and see what it produced or changed."""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import PurePosixPath

from pydantic import BaseModel, Field

from rst_synth.harness import open_task, run_solution, stage
from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.base import ProposalError
from rst_synth.sandbox import Container, Sandbox, SandboxError, files_of_tar
from rst_synth.sandbox.listing import FileState, Listing, listing_command, parse_listing, parse_state, state_command
from rst_synth.task import Task, TaskPaths
from rst_synth.validator import Reason

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_ARTIFACTS = 60
MAX_INPUTS = 30
"""Inputs (files in the image that the instruction names) read beside the files the solution made."""
GIT_LOG_COMMITS = 60
TOOLS = (
    "python3",
    "sqlite3",
    "jq",
    "git",
    "gcc",
    "make",
    "tar",
    "gzip",
    "zip",
    "unzip",
    "sha256sum",
    "md5sum",
    "awk",
    "sed",
    "sort",
    "curl",
    "xz",
    "bzip2",
    "file",
    "diff",
    "apt-get",
    "cron",
    "openssl",
    "perl",
)


class Discovery(BaseModel):
    """What the parent's solution left behind, and what the image offers to build on it."""

    workdir: str
    artifacts: list[Artifact] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    python_modules: list[str] = Field(default_factory=list)
    """Of yaml, sqlite3: the optional Python modules a test may import."""

    def has_tool(self, tool: str) -> bool:
        return tool in self.tools

    def of_kind(self, *kinds: Kind) -> list[Artifact]:
        return [a for a in self.artifacts if a.kind in kinds]

    def paths(self) -> set[str]:
        return {a.path for a in self.artifacts}


Discover = Callable[[Task], Awaitable[Discovery]]
"""How a proposer finds what a parent's solution leaves behind: given to it at construction (the CLI
passes its executor's `discover`, so discovery runs wherever the executor runs container work)."""


class DiscoveryCache:
    """Discovery runs the parent's solution in a container: do it once per distinct parent,
    also when several of its children are proposed at the same time."""

    def __init__(self, discover: Discover) -> None:
        self._discover = discover
        self._found: dict[str, Discovery] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def __call__(self, parent: Task) -> Discovery:
        key = parent.workflow_hash()
        async with self._locks.setdefault(key, asyncio.Lock()):
            if key not in self._found:
                self._found[key] = await self._discover(parent)
            return self._found[key]


def discovery_on(sandbox: Sandbox) -> Discover:
    """Discovery in this process on `sandbox`: what the local executor does."""
    return partial(discover, sandbox)


async def discover(sandbox: Sandbox, task: Task, *, timeout: float = 600.0) -> Discovery:
    """Run `task`'s solve.sh in a fresh container and classify every file it created or changed. A
    listing or survey that did not finish (a loaded engine) is not taken for an empty one: the whole
    discovery runs once more in a fresh container, then SandboxError."""
    try:
        return await _discover(sandbox, task, timeout)
    except _Unfinished as exc:
        log.warning("discovery of %s: %s; trying once more", task.name, exc)
    try:
        return await _discover(sandbox, task, timeout)
    except _Unfinished as exc:
        raise SandboxError(f"discovery of {task.name}: {exc}") from None


class _Unfinished(Exception):
    """A survey exec of discovery that did not run to its end."""


async def _finished(box: Container, what: str, command: str, timeout: float, user: str | None = None) -> str:
    run = await box.exec(command, timeout=timeout, user=user)
    if not run.ok:
        state = "timed out" if run.timed_out else f"ended with status {run.exit_code}"
        raise _Unfinished(f"the {what} {state}: {run.tail(200).strip()}")
    return run.output


async def _discover(sandbox: Sandbox, task: Task, timeout: float) -> Discovery:
    listing, state = listing_command(), state_command()
    async with open_task(sandbox, task, staged=False) as box:
        workdir = (await _finished(box, "working directory", "pwd", 60)).strip() or "/"
        before = parse_listing(await _finished(box, "file listing", listing, 300, user="root"))
        contents = parse_state(await _finished(box, "file state", state, 300, user="root"))
        await stage(box, task.files_under(TaskPaths.SOLUTION_DIR))
        solve, _ = await run_solution(box, timeout=timeout)
        if not solve.ok:
            raise ProposalError(Reason.PARENT_SOLUTION_FAILED, solve.tail(500))
        after = parse_listing(await _finished(box, "file listing", listing, 300, user="root"))
        made = parse_state(await _finished(box, "file state", state, 300, user="root"))
        tools_out = await _finished(
            box,
            "survey of tools",
            f"for t in {' '.join(TOOLS)}; do command -v $t >/dev/null 2>&1 && echo $t; done; "
            'for m in yaml sqlite3; do python3 -c "import $m" 2>/dev/null && echo py:$m; done; true',
            120,
        )
        tools = [t for t in tools_out.split() if not t.startswith("py:")]
        modules = [t[3:] for t in tools_out.split() if t.startswith("py:")]
        changed = changed_files(before, after, contents, made)
        artifacts = await _collect(box, changed, after, before, workdir)
        # A file the solution left with its bytes is as the image had it, whatever its mtime: still an input.
        kept = {p: before[p] for p in before.keys() & after.keys() - set(changed)}
        artifacts += await _inputs(box, named_inputs(task.instruction, before, {**after, **kept}), after)
    return Discovery(workdir=workdir, artifacts=artifacts, tools=tools, python_modules=modules)


def changed_files(before: Listing, after: Listing, contents: FileState, made: FileState) -> list[str]:
    """The files the solution created, or whose content (`contents` before, `made` after) or mode it
    changed. A file it only rewrote with the same bytes or touched (a checkout, `sed -i` that matched
    nothing, `touch`) is no work of the solution: listed as changed, the prompt called a data file or a
    repository's tracked files "modified". A `.git/index` that only changed is git refreshing its stat
    cache (`git status`, `git diff`), not a commit."""
    changed = []
    for path, meta in after.items():
        old = before.get(path)
        if old == meta:
            continue
        if old is None or old[2] != meta[2]:
            changed.append(path)
        elif (contents.get(path) is None or contents.get(path) != made.get(path)) and not path.endswith("/.git/index"):
            changed.append(path)  # a file the state could not hash is compared by its listing alone
    return sorted(changed)


_ABSOLUTE_PATH = re.compile(r"(?<![\w.~/-])(/[A-Za-z0-9_.@+-]+(?:/[A-Za-z0-9_.@+-]+)*)/?")


_PLANTED = re.compile(r"/incoming/r\d+s\d+/")
"""What an earlier step planted for itself (a feed, batches, a defective tool): material of that step."""


def named_inputs(instruction: str, before: Listing, after: Listing) -> list[str]:
    """The task's inputs: files the image holds and the solution leaves as they were, that the instruction
    names, or that lie in a folder it names (two levels deep at most); hidden paths and what earlier steps
    planted for themselves left out."""
    named = {m.group(1).rstrip(".,:;") for m in _ABSOLUTE_PATH.finditer(instruction)}
    unchanged = sorted(p for p, meta in before.items() if after.get(p) == meta)
    found: list[str] = []
    for path in unchanged:
        if any(part.startswith(".") for part in PurePosixPath(path).parts) or _PLANTED.search(path):
            continue
        # The deepest folder named: which of `/srv` and `/srv/appdata` is met first must not depend on
        # the order of a set (string hashes differ from one process to the next).
        folder = max((n for n in named if path.startswith(n.rstrip("/") + "/")), key=len, default=None)
        if path in named or (folder is not None and path[len(folder) :].count("/") <= 2):
            found.append(path)
    return found[:MAX_INPUTS]


async def _inputs(box: Container, paths: list[str], after: Listing) -> list[Artifact]:
    artifacts = []
    for artifact in await _read_artifacts(box, paths, after, frozenset(paths)):
        artifact.input, artifact.new = True, False
        artifacts.append(artifact)
    return artifacts


async def _collect(box: Container, changed: list[str], after: Listing, before: Listing, workdir: str) -> list[Artifact]:
    artifacts: list[Artifact] = []
    repos = sorted({p.split("/.git/", 1)[0] for p in changed if "/.git/" in p})
    for repo in repos:
        artifacts.append(await _git_artifact(box, repo, new=not any(k.startswith(repo + "/.git/") for k in before)))
    # Files under the work directory first: they are the task's own outputs.
    plain = [p for p in changed if "/.git/" not in p]
    plain.sort(key=lambda p: (not p.startswith(workdir.rstrip("/") + "/"), p))
    return artifacts + await _read_artifacts(box, plain[:MAX_ARTIFACTS], after, frozenset(before))


async def _read_artifacts(box: Container, paths: list[str], after: Listing, existed: frozenset[str]) -> list[Artifact]:
    """Read and classify each file of `paths` (as `after` lists them); `existed`: the paths the image had."""
    artifacts = []
    for path in paths:
        size, _, mode = after[path]
        content = b""
        if size <= MAX_FILE_BYTES:
            raw = await box.get_archive(PurePosixPath(path))
            content = next(iter(files_of_tar(raw, strip_top=False).values()), b"") if raw else b""
        kind, details, sample = classify(path, content, executable=bool(mode & 0o111))
        artifacts.append(
            Artifact(
                path=path,
                kind=kind,
                size=size,
                new=path not in existed,
                executable=bool(mode & 0o111),
                details=details,
                sample=sample,
            )
        )
    return artifacts


async def _git_artifact(box: Container, repo: str, new: bool) -> Artifact:
    q = shlex.quote(repo)
    out = await box.exec(
        f"cd {q} && git rev-parse --abbrev-ref HEAD && git rev-list --count HEAD && "
        "git ls-files | head -n 200 && echo '--tags--' && git tag",
        timeout=60,
    )
    lines = out.output.splitlines()
    details: dict[str, object] = {}
    if out.ok and len(lines) >= 2:
        files, tags, seen_tags = [], [], False
        for line in lines[2:]:
            if line == "--tags--":
                seen_tags = True
            elif seen_tags:
                tags.append(line)
            else:
                files.append(line)
        details = {
            "branch": lines[0],
            "commits": int(lines[1]) if lines[1].isdigit() else 0,
            "files": files,
            "tags": tags,
            "log": await _git_log(box, repo) if _has_commits(lines) else [],
        }
    return Artifact(path=repo, kind=Kind.GIT, new=new, details=details)


def _has_commits(lines: list[str]) -> bool:
    return lines[0] != "HEAD" and lines[1].isdigit() and int(lines[1]) > 0


async def _git_log(box: Container, repo: str) -> list[dict[str, object]]:
    """The newest first-parent commits of HEAD, oldest first: subject, parent count and the paths
    each changed against its first parent (what history operators need to state a revert or a pick)."""
    out = await box.exec(
        f"cd {shlex.quote(repo)} && git -c core.quotePath=false log --first-parent --no-renames -n {GIT_LOG_COMMITS} "
        "--format=%x1e%P%x1f%s --name-only HEAD",
        timeout=60,
    )
    if not out.ok:
        return []
    log: list[dict[str, object]] = []
    for record in out.output.split("\x1e")[1:]:
        head, _, names = record.partition("\n")
        parents, _, subject = head.partition("\x1f")
        log.append({"subject": subject, "parents": len(parents.split()), "files": [n for n in names.split("\n") if n]})
    return log[::-1]
