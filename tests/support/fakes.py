"""A fake Sandbox and a fake Proposer, so the engine's logic runs in milliseconds.

The fake sandbox understands a tiny subset of bash and pytest, the same subset the real engine
runs: solve.sh lines `touch PATH` and `echo TEXT > PATH` write files, test modules assert
`Path("PATH").exists()` and `Path("PATH").read_text().strip() == "TEXT"`, and the verifier writes
reward 1 when every such assertion holds. Tasks written for it are therefore real tasks too; they
simply need no container. It also answers the file-state listing (sandbox/listing.py) and the
commands the mutation check edits files with (`cp -a --`, `rm -f --`, `cat -- A > B`, joined by &&).
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import PurePosixPath
from typing import Any

from rst_synth.proposers import Proposal, ProposalError, Usage
from rst_synth.proposers.child import Extension, NewStep, assemble_child
from rst_synth.sandbox import ExecResult, FileChange, ImageConfig, ImageInfo, Limits
from rst_synth.sandbox.listing import PRUNE, SCAN_ROOTS
from rst_synth.task import Task, TaskPaths
from rst_synth.validator import Reason, ValidationReport

P = TaskPaths
_TOUCH = re.compile(r"^\s*touch\s+(\S+)\s*$")
_ECHO = re.compile(r"^\s*echo\s+(.+?)\s*>\s*(\S+)\s*$")
_EXISTS = re.compile(r"""Path\(["']([^"']+)["']\)\.exists\(\)""")
_NONCE = re.compile(r"\b(rst-[0-9a-f]{24}):rc:")
_READS = re.compile(r"""Path\(["']([^"']+)["']\)\.read_text\(\)\.strip\(\) == ["']([^"']*)["']""")


class FakeContainer:
    """A container as a dict of files."""

    def __init__(self, sandbox: FakeSandbox) -> None:
        self.sandbox = sandbox
        self.files: dict[str, bytes] = {}

    async def exec(
        self, command: str, *, timeout: float, env: dict[str, str] | None = None, user: str | None = None
    ) -> ExecResult:
        self.sandbox.execs += 1
        if "solve.sh" in command:
            script = self.files.get(f"{P.CONTAINER_SOLUTION_DIR}/solve.sh", b"").decode()
            if "sleep infinity" in script:
                return ExecResult(exit_code=None, output="", duration_sec=timeout, timed_out=True)
            commands = [line for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            for line in commands:
                if touched := _TOUCH.match(line):
                    self.files[touched[1]] = b""
                elif echoed := _ECHO.match(line):
                    self.files[echoed[2]] = (" ".join(shlex.split(echoed[1])) + "\n").encode()
            if "BASH_XTRACEFD" in command:
                self.files[str(P.CONTAINER_XTRACE_LOG)] = "".join(f"+ {c}\n" for c in commands).encode()
            return ExecResult(exit_code=0, output="", duration_sec=0.01)
        if "sha256sum" in command:  # sandbox.listing.state_command
            return ExecResult(exit_code=0, output=self._state(), duration_sec=0.0)
        if "RST-VERIFIER-REFUSED" in command:  # the harness's reset before the tests go in
            for path in [f for f in self.files if f.startswith((f"{P.CONTAINER_TESTS_DIR}/", "/logs/verifier/"))]:
                del self.files[path]
            return ExecResult(exit_code=0, output="", duration_sec=0.0)
        if nonce := _NONCE.search(command):  # the harness's verifier run: test.sh, then the marked reward
            said = self._verify()
            marked = [
                f"{nonce[1]}:file:{name}\n{self.files[path].decode().strip()}\n{nonce[1]}:end"
                for name, path in (
                    ("reward.txt", str(P.CONTAINER_REWARD_TXT)),
                    ("reward.json", str(P.CONTAINER_REWARD_JSON)),
                )
                if path in self.files
            ]
            return ExecResult(
                exit_code=0, output="\n".join([said, *marked, f"{nonce[1]}:rc:0"]) + "\n", duration_sec=0.01
            )
        known, said = self._shell(command)
        # pytest it cannot run fails (a new modules' command would otherwise be taken as proven); the rest
        # answers 0, as the callers that only read its output expect
        failed = not known and "pytest" in command
        return ExecResult(exit_code=127 if failed else 0, output=said, duration_sec=0.01)

    def _verify(self) -> str:
        modules = [
            body.decode()
            for rel, body in self.files.items()
            if rel.startswith(f"{P.CONTAINER_TESTS_DIR}/") and rel.endswith(".py")
        ]
        wanted = [(path, None) for body in modules for path in _EXISTS.findall(body)]
        wanted += [(path, text) for body in modules for path, text in _READS.findall(body)]
        failed = [path for path, text in wanted if not self._holds(path, text)]
        passed = bool(wanted) and not failed
        self.files[str(P.CONTAINER_REWARD_TXT)] = b"1\n" if passed else b"0\n"
        return f"failed: {failed}" if failed else "passed"

    def _holds(self, path: str, text: str | None) -> bool:
        return path in self.files and (text is None or self.files[path].decode().strip() == text)

    def _state(self) -> str:
        lines = []
        for path, body in sorted(self.files.items()):
            inside = any(path.startswith(root + "/") for root in SCAN_ROOTS)
            if inside and not any(path.startswith(p + "/") for p in PRUNE):
                lines += [f"S\t{len(body)}\t{path}", f"{hashlib.sha256(body).hexdigest()}  {path}"]
        return "\n".join(lines) + "\n"

    def _shell(self, command: str) -> tuple[bool, str]:
        """`cp -a -- A B`, `rm -f -- P...`, `cat -- A > B`, `echo WORD` and the verifier (a command
        naming test.sh), joined by &&; False with what was said where a command is unknown (a shell's
        "not found")."""
        said = []
        for part in command.split(" && "):
            words = shlex.split(part.replace(" > ", " __to__ "))
            if "test.sh" in part:
                said.append(self._verify())
            elif words[:3] == ["cp", "-a", "--"] and words[3] in self.files:
                self.files[words[4]] = self.files[words[3]]
            elif words[:3] == ["rm", "-f", "--"]:
                for path in words[3:]:
                    self.files.pop(path, None)
            elif words[:2] == ["cat", "--"] and words[2] in self.files:
                self.files[words[4]] = self.files[words[2]]
            elif words[:1] == ["echo"]:
                said.append(" ".join(words[1:]))
            else:
                return False, "\n".join(said)  # a command it does not know fails, and && stops
        return True, "\n".join(said)

    async def put_files(
        self,
        files: dict[str, bytes],
        dest: PurePosixPath,
        executable: set[str] | None = None,
        open_dirs: tuple[str, ...] = (),
    ) -> None:
        for rel, body in files.items():
            self.files[str(PurePosixPath(dest) / rel)] = body

    async def read_file(self, path: PurePosixPath) -> bytes | None:
        return self.files.get(str(path))

    async def get_archive(self, path: PurePosixPath) -> bytes | None:
        return None

    async def changes(self) -> list[FileChange]:
        return []

    async def image_config(self) -> ImageConfig:
        return ImageConfig(env={"PATH": "/usr/local/bin:/usr/bin:/bin"}, workdir="/app")

    async def commit(self, tag: str, labels: dict[str, str] | None = None) -> None:
        self.sandbox.images.add(tag)


class FakeSandbox:
    """The Sandbox protocol without an engine: images are hashes, containers are dicts."""

    def __init__(self, labels: dict[str, str] | None = None) -> None:
        self.labels = dict(labels or {})
        """The scope labels `rst synth` passes (its run directory); a fake has nothing to prune."""
        self.images: set[str] = set()
        self.containers = 0
        """Containers made so far."""
        self.live = 0
        """Containers alive now (0 once every check has ended)."""
        self.execs = 0

    async def ensure_image(self, context: dict[str, bytes], context_hash: str, *, timeout: float) -> ImageInfo:
        tag = f"fake:{context_hash[:12]}"
        built = tag not in self.images
        self.images.add(tag)
        return ImageInfo(tag=tag, built=built, build_sec=0.0)

    async def image_labels(self, tag: str) -> dict[str, str] | None:
        return {} if tag in self.images else None

    async def remove_image(self, tag: str) -> None:
        self.images.discard(tag)

    @asynccontextmanager
    async def container(self, image: str, limits: Limits) -> AsyncIterator[FakeContainer]:
        self.containers += 1
        self.live += 1
        try:
            yield FakeContainer(self)
        finally:
            self.live -= 1

    async def close(self) -> None:
        return None

    async def prune(self) -> int:
        return 0

    def remove_all_sync(self) -> None:
        return None


def touch_test(path: str) -> str:
    """A test module the fake sandbox (and real pytest) passes once `path` exists."""
    return f'from pathlib import Path\n\n\ndef test_made():\n    assert Path("{path}").exists()\n'


class FakeProposer:
    """Each child adds one step that touches a new file and a test that checks it.

    Knobs: `broken`: every first proposal has a test that wants a file the step never makes (a repair
    fixes it); `failing`: every proposal raises ProposalError; `twins` makes every seed propose the same child;
    `cost_per_call` bills each propose and repair like a model call."""

    name = "fake"

    def __init__(
        self,
        *,
        broken: bool = False,
        failing: bool = False,
        twins: bool = False,
        cost_per_call: float = 0.0,
        crash_after: int | None = None,
    ) -> None:
        self.broken, self.failing = broken, failing
        self.twins, self.cost_per_call, self.crash_after = twins, cost_per_call, crash_after
        self.calls: Counter[str] = Counter()
        """Calls per "propose:<parent>:<seed>" and "repair:<parent>:<seed>"."""
        self.closed = False

    async def propose(self, parent: Task, *, seed: int) -> Proposal:
        self._count(f"propose:{parent.short_name}:{seed}")
        usage = Usage(calls=1, cost_usd=self.cost_per_call, tokens_in=100, tokens_out=10)
        if self.failing:
            raise ProposalError(Reason.NO_APPLICABLE_OPERATOR, "nothing applies", usage)
        return self._proposal(parent, seed, usage, broken=self.broken)

    async def repair(self, parent: Task, rejected: Proposal, report: ValidationReport, *, attempt: int) -> Proposal:
        self._count(f"repair:{parent.short_name}:{rejected.seed}")
        usage = rejected.usage.model_copy(
            update={"calls": rejected.usage.calls + 1, "cost_usd": rejected.usage.cost_usd + self.cost_per_call}
        )
        return self._proposal(parent, rejected.seed, usage, broken=False)

    async def close(self) -> None:
        self.closed = True

    def _count(self, key: str) -> None:
        self.calls[key] += 1
        if self.crash_after is not None and sum(self.calls.values()) > self.crash_after:
            raise RuntimeError("the proposer crashed (as a killed process would stop)")

    def _proposal(self, parent: Task, seed: int, usage: Usage, *, broken: bool) -> Proposal:
        lineage = parent.config.metadata.lineage
        round_ = (lineage.round if lineage else 0) + 1
        made = f"/app/r{round_}-{'same' if self.twins else seed}-{parent.short_name[:20]}"
        wanted = made + ("-never" if broken else "")
        step = NewStep(
            name="touch",
            tag=f"r{round_}s1",
            consumes=[],
            solution=f"touch {made}\n",
            test_module=touch_test(wanted),
            instruction=f"Create the file {wanted}.",
        )
        child = assemble_child(parent, Extension(steps=[step]), proposer=self.name)
        return Proposal(task=child, steps=["touch"], seed=seed, usage=usage)


def make_fake_proposer(discovery: Any = None, cache_dir: Any = None, **options: Any) -> FakeProposer:
    """A factory the registry reaches by dotted path (tests.support.fakes:make_fake_proposer)."""
    return FakeProposer(**options)


__all__ = ["FakeContainer", "FakeProposer", "FakeSandbox", "make_fake_proposer", "touch_test"]
