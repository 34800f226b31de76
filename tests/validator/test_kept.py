"""Kept states without an engine: where a child's own steps begin, the shell state they inherit,
and the build context of a parent's state with a child's environment additions."""

from __future__ import annotations

from pathlib import Path

from rst_synth.proposers.child import Extension, assemble_child
from rst_synth.sandbox import FileDigest
from rst_synth.task import Task, TaskPaths
from rst_synth.validator.kept import derived_context, new_steps, shell_prelude, state_tag
from rst_synth.validator.trial import same_files
from tests.support import quality
from tests.support.tasks import BASE_DOCKERFILE, write_task

SOLVE = """#!/bin/bash
# Reference solution.
set -euo pipefail
export LC_ALL=C
out=/app/report
cd /app
mkdir -p "$out"
count() {
  wc -l < "$1"
}
cat > /app/tool.sh <<'END'
cd /tmp
x=1
END
if true; then
  inner=1
fi
echo done > "$out/done.txt"
exit 0
"""


def test_the_prelude_keeps_top_level_shell_state_and_leaves_out_work_and_heredocs() -> None:
    prelude = "".join(shell_prelude(SOLVE.splitlines(keepends=True)))
    assert prelude == 'set -euo pipefail\nexport LC_ALL=C\nout=/app/report\ncd /app\ncount() {\n  wc -l < "$1"\n}\n'


def test_an_unclosed_function_gives_no_prelude() -> None:
    assert shell_prelude(["f() {\n", "  x=1\n"]) == []


def two_steps(root: Path) -> tuple[Task, Task]:
    parent = Task.load(write_task(root, name="parent", solve=SOLVE.split("\n", 2)[2]))
    steps = [quality.writes("r1s1", "/app/a.txt", "first"), quality.writes("r1s2", "/app/b.txt", "second")]
    return assemble_child(parent, Extension(steps=steps), proposer="hand"), parent


def test_new_steps_run_the_prelude_then_the_childs_lines_from_its_first_step(tmp_path: Path) -> None:
    child, parent = two_steps(tmp_path)
    steps = new_steps(parent, child)
    assert steps is not None
    script = steps.script()["solve.sh"].decode()
    assert script.startswith("#!/bin/bash\nset -e\nset -euo pipefail\nexport LC_ALL=C\n")
    assert 'echo "first" > /app/a.txt' in script and 'echo "second" > /app/b.txt' in script
    assert "mkdir -p" not in script and "done.txt" not in script  # the parent's work is in the kept state
    lineage = child.config.metadata.lineage
    assert lineage is not None
    without = steps.script(without=lineage.added[0])["solve.sh"].decode()
    assert "/app/a.txt" not in without and "/app/b.txt" in without


def test_a_child_that_rewrites_its_parents_solution_has_no_new_steps(tmp_path: Path) -> None:
    child, parent = two_steps(tmp_path)
    child.set_text(TaskPaths.SOLVE, child.solve_sh.replace("done.txt", "finished.txt"), executable=True)
    assert new_steps(parent, child) is None
    other, _ = two_steps(tmp_path / "again")
    other.set_text("solution/helper.py", "print(1)\n")  # a solution file the parent's part never had
    assert new_steps(parent, other) is None


def test_the_derived_context_builds_the_childs_additions_on_the_parents_state(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path, name="parent"))
    child = parent.model_copy(deep=True)
    child.set_text(TaskPaths.DOCKERFILE, BASE_DOCKERFILE + "COPY data.csv /app/incoming/data.csv\n")
    child.set_text("environment/data.csv", "a,b\n1,2\n")
    context = derived_context(parent, child, state_tag(parent))
    assert context is not None
    assert context["Dockerfile"].decode() == f"FROM {state_tag(parent)}\nCOPY data.csv /app/incoming/data.csv\n"
    assert context["data.csv"] == b"a,b\n1,2\n"
    rewritten = child.model_copy(deep=True)
    rewritten.set_text(TaskPaths.DOCKERFILE, BASE_DOCKERFILE.replace("bookworm", "trixie"))
    assert derived_context(parent, rewritten, state_tag(parent)) is None


def test_the_state_tag_follows_the_environment_and_the_solution(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path, name="parent"))
    same = Task.load(write_task(tmp_path / "copy", name="parent"))
    assert state_tag(parent) == state_tag(same)
    same.set_text(TaskPaths.SOLVE, same.solve_sh + "echo more\n", executable=True)
    assert state_tag(parent) != state_tag(same)
    assert state_tag(parent).startswith("rst-state:")


def test_the_same_files_but_those_the_engine_writes_need_no_tests() -> None:
    report = FileDigest(size=3, sha256="a" * 64)
    host = FileDigest(size=9, sha256="b" * 64)
    oracle = {"/app/report.csv": report, "/etc/hostname": host}
    assert same_files({"/app/report.csv": report, "/etc/hostname": FileDigest(size=9, sha256="c" * 64)}, oracle)
    assert not same_files({"/app/report.csv": FileDigest(size=3, sha256="d" * 64)}, oracle)
    assert not same_files({"/app/report.csv": report, "/app/extra.txt": report}, oracle)
