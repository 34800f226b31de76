"""What the prompts say of the solver's attempts (proposers/llm/solver.py): the shortened commands,
and the extend prompt of a parent with a solve rate."""

from __future__ import annotations

from pathlib import Path

from rst_synth.proposers.llm.prompts import PromptBudgets, environment, messages, parent_context
from rst_synth.proposers.llm.solver import shorten_commands
from rst_synth.task import SolveRate, SolverEvidence, Task
from tests.support.tasks import write_task


def test_shortening_keeps_the_first_commands_each_cut_to_its_width_all_within_the_budget() -> None:
    commands = ["ls -la /app", "awk -F,\n  '{ s += $2 } END { print s }'   data.csv", "x" * 500, "wc -l a", "tail b"]
    shown, more = shorten_commands(commands, most=4, width=60, chars=1000)
    assert shown[:2] == ["ls -la /app", "awk -F, '{ s += $2 } END { print s }' data.csv"]  # on one line each
    assert shown[2] == "x" * 57 + "..." and len(shown[2]) == 60
    assert (len(shown), more) == (4, 1)  # the first 4; the fifth is left out and counted
    tight, left = shorten_commands(commands, most=4, width=60, chars=50)
    assert tight == shown[:1] and left == 4  # the second would pass 50 characters: only the first
    assert shorten_commands(["y" * 300], most=4, width=200, chars=100) == (["y" * 197 + "..."], 0)  # one always shown
    assert shorten_commands([], most=4, width=40, chars=100) == ([], 0)


def _parent(tmp_path: Path, rates: dict[str, SolveRate] | None) -> Task:
    parent = Task.load(write_task(tmp_path))
    parent.config.metadata.solve_rate = rates
    return parent


def _extend(parent: Task, budgets: PromptBudgets | None = None) -> str:
    context = parent_context(parent, None, budgets or PromptBudgets(), "reporting")
    return messages(environment(), "extend", context)[1]["content"]


def test_the_extend_prompt_says_how_the_solver_did_on_the_parent(tmp_path: Path) -> None:
    evidence = SolverEvidence(
        solved=3, k=4, commands_per_solved=[5, 2, 7], commands=["cat /app/out.txt", "sort -u /app/out.txt > /app/s"]
    )
    rates = {
        "solver-m": SolveRate(rate=0.75, agent="llm", model="m", k=4, evidence=evidence),
        "old-eval": SolveRate(rate=0.5),  # a bare share of an older export: nothing to count
    }
    said = _extend(_parent(tmp_path, rates))
    block = said[said.index("How agents did on the parent") :]
    assert "- llm (solver-m) solved it in 3 of 4 attempts, running 5, 2, 7 commands per solved attempt." in block
    assert "      cat /app/out.txt\n      sort -u /app/out.txt > /app/s\n" in block
    assert "old-eval" not in block
    assert said.rstrip().endswith("sort -u /app/out.txt > /app/s")  # the block ends the prompt


def test_a_rate_without_attempts_gives_its_count_and_no_rate_no_block(tmp_path: Path) -> None:
    said = _extend(_parent(tmp_path / "a", {"solver-m": SolveRate(rate=0.25, agent="llm", k=4)}))
    assert said.rstrip().endswith("- llm (solver-m) solved it in 1 of 4 attempts.")
    assert "How agents did" not in _extend(_parent(tmp_path / "b", None))


def test_the_quoted_commands_follow_the_budgets(tmp_path: Path) -> None:
    evidence = SolverEvidence(
        solved=1, k=1, commands_per_solved=[9], commands=[f"step {n} " + "z" * 80 for n in range(9)]
    )
    rates = {"solver-m": SolveRate(rate=1.0, agent="llm", k=1, evidence=evidence)}
    said = _extend(_parent(tmp_path, rates), PromptBudgets(solver_commands=3, solver_command_chars=40))
    assert "its first 3 commands" in said and "step 2 " in said and "step 3 " not in said
    block = said[said.index("How agents did on the parent") :]
    assert all(len(line.strip()) <= 40 for line in block.splitlines() if line.strip().startswith("step "))


def test_the_evidence_stays_in_memory(tmp_path: Path) -> None:
    evidence = SolverEvidence(solved=1, k=2, commands=["secret-command"])
    parent = _parent(tmp_path, {"solver-m": SolveRate(rate=0.5, k=2, evidence=evidence)})
    assert "secret-command" not in parent.config.to_toml() and "rate = 0.5" in parent.config.to_toml()
