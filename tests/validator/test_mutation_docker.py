"""The mutation check's edits caught by the new modules in one process (quick_mutants.py) on the real
engine: the same verdict, kill rate and restored files as one pytest run per edit, with fewer execs;
where the new modules miss an edit, the whole test.sh takes over from that edit. The tolerance check's
rewrite rides at the batch's end."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from rst_synth.sandbox import Container, ExecResult, FileDigest, Limits, Sandbox
from rst_synth.validator.mutation import MutationOutcome, modules_command, weak_tests
from tests.support.docker import run_async
from tests.support.tasks import BASE_DOCKERFILE, TEST_SH

pytestmark = pytest.mark.docker

OUTPUTS = {"/app/a.txt": "alpha 1\nalpha 2\nalpha 3\n", "/app/b.txt": "beta 10\nbeta 20\n", "/app/c.txt": "gamma 5\n"}
# The parent's suite reads a.txt whole; the new module reads b.txt whole and only looks for a.txt
# and c.txt: a.txt's content edits pass the new module but not test.sh, and c.txt's pass both.
OLD_TEST = 'from pathlib import Path\n\n\ndef test_a():\n    assert Path("/app/a.txt").read_text() == {a!r}\n'
NEW_TEST = (
    "from pathlib import Path\n\n\ndef test_b():\n"
    '    assert Path("/app/b.txt").read_text() == {b!r}\n'
    '    assert Path("/app/a.txt").exists() and Path("/app/c.txt").exists()\n'
)
NEW_MODULE = "/tests/test_step_r1s1.py"


class Counting:
    """A container that counts its execs."""

    def __init__(self, box: Container) -> None:
        self._box, self.execs = box, 0

    async def exec(self, command: str, **options: Any) -> ExecResult:
        self.execs += 1
        return await self._box.exec(command, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._box, name)


def check(outputs: list[str], batched: bool, then: str | None = None) -> tuple[MutationOutcome, int, dict[str, str]]:
    new_test = NEW_TEST.format(b=OUTPUTS["/app/b.txt"])

    async def work(sandbox: Sandbox) -> tuple[MutationOutcome, int, dict[str, str]]:
        context = {"Dockerfile": BASE_DOCKERFILE.encode()}
        image = await sandbox.ensure_image(context, "mutation-docker-" + "0" * 40, timeout=600)
        async with sandbox.container(image.tag, Limits()) as box:
            tests = {
                "test.sh": TEST_SH.encode(),
                "test_outputs.py": OLD_TEST.format(a=OUTPUTS["/app/a.txt"]).encode(),
                PurePosixPath(NEW_MODULE).name: new_test.encode(),
            }
            await box.put_files(tests, PurePosixPath("/tests"))
            await box.put_files({Path(p).name: OUTPUTS[p].encode() for p in OUTPUTS}, PurePosixPath("/app"))
            counted = Counting(box)
            state = {path: FileDigest(size=len(OUTPUTS[path]), sha256="") for path in outputs}
            found = await weak_tests(
                counted,  # type: ignore[arg-type]
                state,
                verify_timeout=60,
                max_outputs=10,
                quick=modules_command(TEST_SH, [NEW_MODULE], 60),
                modules={NEW_MODULE: new_test} if batched else None,
                then=then,
            )
            after = {path: (await box.read_file(PurePosixPath(path))).decode() for path in OUTPUTS}
        return found, counted.execs, after

    return run_async(work)


@pytest.mark.parametrize(
    "outputs",
    [["/app/b.txt"], ["/app/a.txt", "/app/b.txt"], ["/app/a.txt", "/app/b.txt", "/app/c.txt"]],
    ids=["all-caught-by-the-new-module", "test.sh-takes-over", "weak"],
)
def test_the_batch_gives_the_verdict_of_one_run_per_edit(outputs: list[str]) -> None:
    (one_by_one, execs, restored), (batched, batch_execs, batch_restored) = (check(outputs, b) for b in (False, True))
    assert batched.result == one_by_one.result and batched.kill_rate == one_by_one.kill_rate
    assert restored == batch_restored == OUTPUTS
    # One exec for the edits the new module catches; after the first it misses, one per edit as before.
    assert batch_execs < execs if len(outputs) == 1 else batch_execs <= execs, (batch_execs, execs)
    if outputs[-1] == "/app/c.txt":
        assert not batched.result.passed and "/app/c.txt changed" in batched.result.detail
    else:
        assert batched.result.passed and batched.kill_rate == 1.0


@pytest.mark.parametrize(
    ("outputs", "then", "accepted"),
    [
        (["/app/b.txt"], "cp /app/b.txt /tmp/b && cat /tmp/b > /app/b.txt", True),
        (["/app/b.txt"], "printf 'beta 10\\nbeta 20' > /app/b.txt", False),
        (["/app/a.txt", "/app/b.txt", "/app/c.txt"], "true", None),
    ],
    ids=["accepted", "rejected", "not-run-after-a-missed-edit"],
)
def test_the_batch_ends_with_the_tolerance_run(outputs: list[str], then: str, accepted: bool | None) -> None:
    """Once every edit is caught, the outputs are restored, `then` applied, and the new modules run once more."""
    found, _, _ = check(outputs, True, then)
    assert found.accepted is accepted
    if accepted is not None:
        assert found.result.passed and found.kill_rate == 1.0
