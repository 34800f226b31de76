"""Templates render for every stage, prompts stay bounded as tasks grow, children assemble right."""

from __future__ import annotations

from pathlib import Path

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.llm import THEMES, Parts, PromptBudgets, build_child, parts_of, prompt_tokens
from rst_synth.proposers.llm.bounded import elide, names_of_tests, summarize_tests
from rst_synth.proposers.llm.budget import budget_rows, markdown_table, synthetic_parent
from rst_synth.proposers.llm.prompts import STAGES, environment, messages, stage_contexts, step_tag
from rst_synth.task import Task, TaskConfig
from tests.support.tasks import write_task

REPO = Path(__file__).resolve().parents[3]


def discovery() -> Discovery:
    csv = Artifact(
        path="/app/report/counts.csv",
        kind=Kind.CSV,
        size=40,
        details={"header": ["status", "count"], "rows": 2},
        sample="status,count\n200,5\n404,1\n",
    )
    return Discovery(workdir="/app", artifacts=[csv], tools=["python3", "awk"], python_modules=["sqlite3"])


def test_every_stage_renders_with_its_marker_and_the_parents_parts() -> None:
    parent = Task.load(REPO / "examples" / "children" / "access-log-report-errors")
    env = environment()
    contexts = stage_contexts(parent, discovery(), PromptBudgets(), "data-validation")
    for stage in STAGES:
        system, user = messages(env, stage, contexts[stage])
        assert system["role"] == "system" and "path=solution/steps.sh" in system["content"]
        assert user["content"].startswith("### The parent task: ") and f"\n## STAGE: {stage}\n" in user["content"]
        assert "data validation" in user["content"]
    extend = messages(env, "extend", contexts["extend"])[1]["content"]
    assert "/app/report/counts.csv (csv, new, 40 bytes)" in extend and "    | 404,1" in extend
    assert "Tools in the image: python3, awk" in extend
    assert "status_counts.csv" in extend  # the parent's solution, in full (it is short)
    assert "tests/test_errors.py: test_error_totals, test_worst_paths" in extend or "def test_error_totals" in extend
    repair = messages(env, "repair", contexts["repair"])[1]["content"]
    assert "reason: parent_solution_passes" in repair and "1 passed in 0.01s" in repair
    assert "path=tests/test_step_r2.py" in repair  # the child of a round-1 task is round 2


def test_elide_keeps_head_and_tail_with_a_marker() -> None:
    text = "".join(f"line {k:04d} of the solution\n" for k in range(400))
    short = elide(text, 1000)
    assert len(short) <= 1100 and short.startswith("line 0000") and short.rstrip().endswith("line 0399 of the solution")
    gone = 400 - len(short.splitlines()) + 1
    assert f"[... {gone} lines elided ...]" in short
    assert elide("tiny\n", 1000) == "tiny\n"


def test_older_test_modules_are_summarized_by_name() -> None:
    parent = synthetic_parent(200)
    full, summary = summarize_tests(parent, 4000)
    assert [m["path"] for m in full] == ["tests/test_step_r7.py"]
    assert summary[0]["path"] == "tests/test_outputs.py"
    assert summary[1]["names"] == "test_round1_check0, test_round1_check1, test_round1_check2, test_round1_check3"
    assert names_of_tests("class TestA:\n    def test_b(self): pass\ndef helper(): pass\n") == ["TestA.test_b"]
    _, capped = summarize_tests(synthetic_parent(2000), 4000, summary_budget=300)
    assert capped[0]["path"].endswith("older modules") and "not listed" in capped[0]["names"]


def test_prompts_stay_bounded_and_grow_sublinearly() -> None:
    sizes = {n: prompt_tokens(synthetic_parent(n), instruction="addendum") for n in (50, 100, 200, 400, 800)}
    for stage in STAGES:
        assert sizes[400][stage] < 6000, (stage, sizes[400])
        assert sizes[400][stage] < 2 * sizes[50][stage]  # 8x the solution, well under 2x the prompt
        assert sizes[800][stage] <= sizes[400][stage] * 1.05  # past the budgets: flat
    # A rewrite sees the parent's instruction whole, up to its own budget; past it the child gets an addendum.
    rewrite = {n: prompt_tokens(synthetic_parent(n))["realign_instruction"] for n in (400, 800, 3200)}
    assert rewrite[800] > sizes[800]["realign_instruction"]
    assert len(synthetic_parent(3200).instruction) > PromptBudgets().rewrite_chars
    assert rewrite[3200] <= sizes[800]["realign_instruction"] * 1.05 < rewrite[800] < 7000
    assert (
        sizes[400]["extend"]
        < prompt_tokens(
            synthetic_parent(400),
            budgets=PromptBudgets(solution_chars=10**9, instruction_chars=10**9, tests_chars=10**9),
        )["extend"]
        / 2
    )


def test_budget_table_has_a_row_per_size() -> None:
    table = markdown_table(budget_rows((10, 400)))
    assert table.splitlines()[0].startswith("| solution_lines | rounds | extend |")
    assert table.splitlines()[3].startswith("| 400 | 16 |")


def test_child_assembly_realigns_everything_and_parts_come_back(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path, solve="echo hello > /app/out.txt\nexit 0\n"))
    assert step_tag(parent) == "r1"
    parts = Parts(
        theme=THEMES[1],
        tag="r1",
        steps="cp /app/out.txt /app/copy.txt\n",
        tests="from pathlib import Path\n\ndef test_copy():\n    assert Path('/app/copy.txt').exists()\n",
        addendum="Then copy `/app/out.txt` to `/app/copy.txt`.\n",
        dockerfile_append="RUN true\n",
    )
    child = build_child(parent, parts, ["/app/out.txt"])
    assert child.solve_sh.startswith(parent.solve_sh.replace("exit 0\n", "").rstrip("\n"))
    assert "exit 0" not in child.solve_sh
    assert (
        "# --- step r1: data-validation, building on /app/out.txt ---\ncp /app/out.txt /app/copy.txt\n"
        in child.solve_sh
    )
    assert child.text("tests/test_step_r1.py") == parts.tests
    assert child.instruction.startswith(parent.instruction.rstrip()) and parts.addendum.strip() in child.instruction
    assert child.dockerfile == parent.dockerfile + "RUN true\n"
    meta = child.config.metadata
    assert meta.lineage.parent == "test/tiny" and meta.lineage.root == "test/tiny" and meta.lineage.round == 1
    assert meta.lineage.proposer == "llm" and meta.lineage.steps == ["data-validation"]
    assert meta.metrics is None and meta.difficulty is None and child.name != parent.name
    TaskConfig.from_toml(child.config.to_toml())  # task.toml still parses
    assert parts_of(parent, child) == parts
    assert parts_of(parent, child.model_copy(update={"files": {**child.files}})).tag == "r1"
