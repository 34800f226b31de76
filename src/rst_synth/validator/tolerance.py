"""The tolerance check: do the tests accept right work that differs from the reference solution's?

In the oracle's own container, after the mutation check (which leaves every output as the oracle
wrote it), each new output is written another way its contract allows (validator/contracts.py), every
service the work left running is stopped and started again in an equivalent way (the interpreter by
its absolute path, Python with `-u`, its script and other relative arguments made absolute, through
`nohup` and `env`, from another working directory), and the tests run once: they must still pass. That
is one test run: the new modules alone where they stand for test.sh (`quick`: the ancestors' tests passed
this check when they were accepted), else test.sh.
The first of those runs, where it needs no restart, is the last of the mutation check's one-process
batch (`Prepared.batch_step`): no pytest of its own to start.

When that run fails and services were started again, one more run has everything as the oracle left
it, the services started again as they ran: if it fails too, the services keep their data in memory (a
restart loses it, so nothing can be judged by running). If it passes, a third run with the outputs
rewritten tells a rejected output from a rejected way of starting the service.
"""

from __future__ import annotations

import asyncio
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from rst_synth.harness import read_reward
from rst_synth.sandbox import Container, FileState
from rst_synth.task import OutputContract, Task, TaskPaths
from rst_synth.validator.contracts import contract_by_type, declared_contracts, rewritten
from rst_synth.validator.models import Check, CheckResult, Reason, Verdict
from rst_synth.validator.mutation import new_modules
from rst_synth.validator.quality import listed
from rst_synth.validator.services import Service, Services, start_line, stop_all, survey, wait_for_ports
from rst_synth.validator.strictness import open_details

MAX_CONTENT_BYTES = 4 * 1024 * 1024
WORK_DIR = PurePosixPath("/tmp/rst-tolerance")
"""Where the rewritten contents and the originals wait, outside the scan roots."""
_PYTHON = ("python", "python3")
_UNWRITTEN = 97
"""The exit status of a test run whose outputs could not be written another way first."""


@dataclass(frozen=True)
class Rewrite:
    path: str
    content: bytes
    what: str


@dataclass(frozen=True)
class Prepared:
    """The check's edits, staged in the container: what it will write and which services it found."""

    rewrites: list[Rewrite]
    services: Services
    rewrite: str
    """The shell command that copies each output away and writes it the other way."""

    def batch_step(self, quick: str | None, restartable: bool | None) -> str | None:
        """The rewrite, where the one test run it needs can be the mutation check's last, in its
        one-process batch (the new modules alone, no service started again); else None."""
        if not self.rewrites or quick is None or (self.services.services and restartable is not False):
            return None
        return self.rewrite


async def prepare(box: Container, task: Task, outputs: FileState) -> Prepared:
    """Read the new outputs and the services running in `box` (the oracle's container, whose tests
    passed), and stage each output's other allowed writing."""
    declared = declared_contracts(task)
    # Each engine call is a round trip that, for a child validated from its parent's kept state, is a
    # sizeable part of the whole: the reads and the survey go at once.
    paths = [path for path in sorted(outputs) if outputs[path].size <= MAX_CONTENT_BYTES]
    reads = asyncio.gather(*(box.read_file(PurePosixPath(p)) for p in paths))
    running, contents = await asyncio.gather(survey(box), reads)
    rewrites = []
    for path, content in zip(paths, contents, strict=True):
        made = None if content is None else rewritten(declared.get(path) or contract_by_type(path, content), content)
        if made is not None:
            rewrites.append(Rewrite(path, *made))
    services = running if running.services and not running.unreadable else Services()
    if rewrites:
        staged = {f"{WORK_DIR.name}/f{i}": r.content for i, r in enumerate(rewrites)}
        await box.put_files(staged, WORK_DIR.parent, open_dirs=(WORK_DIR.name,))
    backups = [f"cp -a -- {shlex.quote(r.path)} {WORK_DIR}/b{i}" for i, r in enumerate(rewrites)]
    writes = [f"cat -- {WORK_DIR}/f{i} > {shlex.quote(r.path)}" for i, r in enumerate(rewrites)]
    return Prepared(rewrites, services, " && ".join(backups + writes))


async def tolerance(
    box: Container,
    task: Task,
    prepared: Prepared,
    *,
    verify_timeout: float,
    quick: str | None = None,
    restartable: bool | None = None,
    accepted: bool | None = None,
) -> CheckResult:
    """Run the check (module docstring) in `box` with what `prepare` staged there. `restartable` False:
    the lineage's services are known not to pass once started again (the parent's kept state, its
    services restarted, did not prove: data kept in memory), so they are left running and judged by
    the tests' source alone. `accepted`: how the test run of `prepared.batch_step` went in the
    mutation check's batch (None: it did not run there)."""
    rewrites, services, rewrite = prepared.rewrites, prepared.services, prepared.rewrite
    declared = declared_contracts(task)
    if not rewrites and not services.services:
        return _result(Verdict.PASS, "no output its contract lets be written another way, no service to start again")
    done = [f"{r.path}: {r.what}" for r in rewrites]
    tests = _Tests(box, verify_timeout, task)
    if not services.services or restartable is False:
        # A failure in the batch runs again here, for the output the repair is shown.
        if rewrites and not accepted and not await tests.pass_(quick, first=rewrite):
            if tests.unwritten:
                return _result(Verdict.ERROR, "could not write the outputs another way", Reason.SANDBOX_ERROR)
            return tests.failed("the tests reject outputs written another allowed way: " + listed(done))
        if services.services:
            return _in_memory(tests, task, declared, done)
        return _result(Verdict.PASS, "the tests accept " + listed(done))
    if rewrites and not (await box.exec(rewrite, timeout=120)).ok:
        return _result(Verdict.ERROR, "could not write the outputs another way", Reason.SANDBOX_ERROR)
    lines = [await _another_way(box, s) for s in services.services]
    started = [line for line, _ in lines]
    done += [f"service started as `{shown}`" for _, shown in lines]
    # The new modules stand for test.sh here too: the ancestors' tests passed this check when they were accepted.
    if await _restarted(box, services, started) and await tests.pass_(quick):
        return _result(Verdict.PASS, "the tests accept " + listed(done))
    # Everything as the oracle left it, the services started again as they ran: where that fails too, the
    # services keep their data in memory (the common case, so it is told in one run).
    restore = [f"cp -a -- {WORK_DIR}/b{i} {shlex.quote(r.path)}" for i, r in enumerate(rewrites)]
    if rewrites and not (await box.exec(" && ".join(restore), timeout=120)).ok:
        return _result(Verdict.ERROR, "could not restore the outputs", Reason.SANDBOX_ERROR)
    as_ran = [start_line(s) for s in services.services]
    if not (await _restarted(box, services, as_ran) and await tests.pass_(quick)):
        return _in_memory(tests, task, declared, [])
    if rewrites and not await tests.pass_(quick, first=rewrite):
        return tests.failed("the tests reject outputs written another allowed way: " + listed(done[: len(rewrites)]))
    shown = "; ".join(shown for _, shown in lines)
    return tests.failed(f"the tests reject a service started in an equivalent way: `{shown}`")


def _in_memory(tests: _Tests, task: Task, declared: dict[str, OutputContract], done: list[str]) -> CheckResult:
    """A service that keeps its data in memory cannot be started again: what the tests' source shows decides."""
    modules = {path: text.encode() for path, text in new_modules(task).items()}
    found = [d for d in open_details(modules, declared) if "position of an argument" in d]
    if found:  # `failed` names where
        return tests.failed("the tests find a service that keeps its data in memory by the position of an argument")
    accepted = f"the tests accept {listed(done)}; " if done else ""
    return _result(Verdict.PASS, accepted + "the services keep data in memory (a restart loses it): not started again")


def _result(verdict: Verdict, detail: str, reason: Reason = Reason.OK) -> CheckResult:
    return CheckResult(check=Check.TOLERANCE, verdict=verdict, reason=reason, detail=detail)


@dataclass
class _Tests:
    """The test runs of one check; the output of the first that failed is kept for the failure."""

    box: Container
    timeout: float
    task: Task
    tail: str = ""
    unwritten: bool = False
    """The command to run `first` failed: the tests did not run."""

    async def pass_(self, quick: str | None = None, *, first: str = "") -> bool:
        """One test run: `quick` (the new modules alone), else test.sh and its reward; `first`, a command
        that must succeed before it, in the same exec."""
        before = f"{{ {first}; }} || exit {_UNWRITTEN}; " if first else ""
        if quick is not None:
            run = await self.box.exec(f"{before}( {quick} )", timeout=self.timeout + 60)
            passed = run.ok
        else:
            whole = f"rm -f -- {TaskPaths.CONTAINER_REWARD_TXT} {TaskPaths.CONTAINER_REWARD_JSON}; " + (
                f"timeout -k 5 {self.timeout:g} bash {TaskPaths.CONTAINER_TESTS_DIR}/test.sh"
            )
            run = await self.box.exec(before + whole, timeout=self.timeout + 60)
            reward = None if run.timed_out or run.exit_code == _UNWRITTEN else await read_reward(self.box)
            passed = reward is not None and reward >= 1.0
        self.unwritten = bool(first) and run.exit_code == _UNWRITTEN
        if not passed and not self.tail:
            self.tail = run.tail(4000)
        return passed

    def failed(self, detail: str) -> CheckResult:
        """The failure, with what the tests compare that the instruction may leave open."""
        modules = {path: text.encode() for path, text in new_modules(self.task).items()}
        if found := open_details(modules, declared_contracts(self.task)):
            detail += f" ({listed(found, 300)})"
        result = _result(Verdict.FAIL, detail, Reason.TESTS_TOO_STRICT)
        result.output_tail = self.tail
        return result


async def _restarted(box: Container, services: Services, lines: list[str]) -> bool:
    await stop_all(box)
    for service, line in zip(services.services, lines, strict=True):
        await box.exec(line, timeout=30, user=service.uid)
    return await wait_for_ports(box, services.ports)


async def _another_way(box: Container, service: Service) -> tuple[str, str]:
    """The line that starts `service` in an equivalent way, and the command it runs, for people."""
    program, *args = service.command
    folder = shlex.quote(service.folder)
    probe = [f"command -v {shlex.quote(program)} || echo {shlex.quote(program)}"]
    probe += [f"if [ -e {shlex.quote(a)} ]; then echo 1; else echo 0; fi" for a in args]
    env = service.assignments()
    found = await box.exec(f"cd {folder} 2>/dev/null; env -i {env} sh -c {shlex.quote('; '.join(probe))}", timeout=30)
    answers = found.output.splitlines() if found.ok else []
    resolved = answers[0] if answers and answers[0].startswith("/") else program
    if not resolved.startswith("/") and "/" in resolved:
        resolved = str(PurePosixPath(service.folder) / resolved)
    exists = [a == "1" for a in answers[1:]] if len(answers) == len(args) + 1 else [False] * len(args)
    absolute = [
        str(PurePosixPath(service.folder) / a) if there and not a.startswith(("/", "-")) else a
        for a, there in zip(args, exists, strict=True)
    ]
    flags = ["-u"] if PurePosixPath(program).name.startswith(_PYTHON) and "-u" not in args else []
    command = [resolved, *flags, *absolute]
    quoted = " ".join(shlex.quote(a) for a in command)
    other = "/" if service.folder != "/" else "/tmp"  # another working directory
    line = f"cd {other} && env -i {env} nohup env {quoted} {service.redirections()} &"
    return line, f"cd {other} && nohup env {quoted}"
