"""Prompts of the llm proposer: bounded context from a parent task, rendered with Jinja2.

Prompts stay bounded as a lineage grows: every part of the parent that grows by a round
(solution, instruction, Dockerfile, test modules) is cut to a character budget, keeping its
head and its tail around a "[... N lines elided ...]" marker; the newest test module is shown
in full (to its budget), older ones by the names of their test functions.
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic import BaseModel, Field

from rst_synth.proposers.artifacts import Artifact
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.llm.bounded import elide, summarize_tests, tail
from rst_synth.proposers.llm.solver import evidence_context, parent_solved
from rst_synth.task import SolverEvidence, Task, TaskPaths
from rst_synth.validator import QUALITY_CHECKS, Check

THEMES: tuple[str, ...] = (
    "reporting",
    "data-validation",
    "packaging-and-release",
    "scheduling-and-automation",
    "backup-and-restore",
    "indexing-and-search",
    "format-conversion",
    "auditing-and-permissions",
    "incremental-processing",
    "error-handling-and-recovery",
    # problems that need reasoning, not procedures (extend.j2 says what each asks)
    "fault-diagnosis",
    "broken-state-recovery",
    "measured-bound",
    "tool-generalisation",
    "source-conflict-resolution",
)
"""Workflow themes, one drawn per child for diversity; the drawn theme names the step in the lineage."""

RULE_CHECKS: tuple[str, ...] = tuple(c.value for c in (Check.DETERMINISM, *QUALITY_CHECKS))
"""The checks whose rules every prompt states before the first try (templates/_rules.j2 holds a rule per
check and stage; rendering fails for a check it lacks, so a new quality check cannot go unstated)."""

InstructionMode = Literal["rewrite", "addendum"]
"""How a child's instruction is realigned: rewritten whole for the new workflow, or a paragraph appended."""

STAGES: tuple[str, ...] = ("extend", "realign_tests", "realign_instruction", "repair")
"""The stages with a prompt of their own; a re-ask ("reask") follows up on one of them."""

STEPS_PATH = "solution/steps.sh"
DOCKERFILE_APPEND_PATH = "environment/Dockerfile.append"
ADDENDUM_PATH = "instruction_addendum.md"
INSTRUCTION_PATH = "instruction.md"
CONTRACTS_PATH = "contracts.toml"


class PromptBudgets(BaseModel):
    """Character budgets of the parts of a prompt that grow with the lineage."""

    solution_chars: int = Field(default=6000, ge=200)
    instruction_chars: int = Field(default=4000, ge=200)
    tests_chars: int = Field(default=4000, ge=200)
    """Budget of the newest test module shown in full; older modules are listed by test names."""
    tests_summary_chars: int = Field(default=1500, ge=100)
    """Budget of the list of older test modules (newest first; the oldest beyond it are counted)."""
    dockerfile_chars: int = Field(default=2000, ge=200)
    artifacts: int = Field(default=30, ge=0)
    """Most artifacts listed."""
    artifact_sample_lines: int = Field(default=4, ge=0)
    output_tail_chars: int = Field(default=3000, ge=200)
    """End of the validator's output shown to a repair."""
    candidate_chars: int = Field(default=8000, ge=200)
    """Budget of each file of the candidate being realigned or repaired (the model's own output)."""
    solver_commands: int = Field(default=8, ge=1)
    """Most commands of a solved attempt quoted (a too_easy repair; the extend prompt of a solved parent)."""
    solver_command_chars: int = Field(default=160, ge=40)
    """Width each quoted command is cut to."""
    solver_chars: int = Field(default=1000, ge=100)
    """Budget of the quoted commands together."""

    rewrite_chars: int = Field(default=12000, ge=200)
    """Longest parent instruction rewritten whole (a rewrite must see all of it); a longer one gets an addendum."""


_DETAIL_KEYS = (
    "header",
    "rows",
    "delimiter",
    "type",
    "length",
    "keys",
    "numeric_keys",
    "tables",
    "views",
    "format",
    "sections",
    "members",
    "branch",
    "commits",
    "tags",
    "lines",
)


def describe_artifact(artifact: Artifact, sample_lines: int) -> str:
    facts = {k: artifact.details[k] for k in _DETAIL_KEYS if k in artifact.details}
    info = json.dumps(facts, sort_keys=True, default=str)
    if len(info) > 240:
        info = info[:237] + "..."
    exe = ", executable" if artifact.executable else ""
    line = f"- {artifact.path} ({artifact.kind.value}, {artifact.state}{exe}, {artifact.size} bytes) {info}"
    sample = [s[:120] for s in artifact.sample.splitlines()[:sample_lines]]
    if sample:
        line += "\n" + "\n".join(f"    | {s}" for s in sample)
    return line


def step_tag(parent: Task) -> str:
    """Tag of the child's step within the lineage, e.g. "r2"; unique among the parent's modules."""
    lineage = parent.config.metadata.lineage
    round_ = (lineage.round if lineage else 0) + 1
    tag, n = f"r{round_}", 1
    while f"{TaskPaths.TESTS_DIR}/test_step_{tag}.py" in parent.files:
        n += 1
        tag = f"r{round_}x{n}"
    return tag


def _nl(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def instruction_mode(parent: Task, budgets: PromptBudgets, wanted: InstructionMode) -> InstructionMode:
    """`wanted`, unless a rewrite would have to see an instruction past its budget: then an addendum."""
    return "addendum" if len(parent.instruction) > budgets.rewrite_chars else wanted


def parent_context(
    parent: Task,
    discovery: Discovery | None,
    budgets: PromptBudgets,
    theme: str,
    instruction: InstructionMode = "rewrite",
) -> dict[str, Any]:
    """The parts of the parent every stage shows, each within its budget, and the child's theme and tag;
    `instruction`: how the realign_instruction stage asks for the child's instruction."""
    mode = instruction_mode(parent, budgets, instruction)
    whole = parent.instruction.strip()
    full, summary = summarize_tests(parent, budgets.tests_chars, budgets.tests_summary_chars)
    artifacts = discovery.artifacts[: budgets.artifacts] if discovery else []
    more = len(discovery.artifacts) - len(artifacts) if discovery else 0
    solve = parent.solve_sh
    tag = step_tag(parent)
    return {
        "parent_name": parent.name,
        "instruction": _nl(elide(parent.instruction.strip(), budgets.instruction_chars)),
        "solution": _nl(elide(solve, budgets.solution_chars)),
        "solution_lines": len(solve.splitlines()),
        "dockerfile": _nl(elide(parent.dockerfile, budgets.dockerfile_chars)),
        "tests_full": [{**m, "source": _nl(m["source"])} for m in full],
        "tests_summary": summary,
        "artifacts": [describe_artifact(a, budgets.artifact_sample_lines) for a in artifacts],
        "artifacts_more": more,
        "discovered": discovery is not None,
        "workdir": discovery.workdir if discovery else "/app",
        "tools": ", ".join(discovery.tools) if discovery else "",
        "python_modules": ", ".join(discovery.python_modules) if discovery else "",
        "steps_path": STEPS_PATH,
        "contracts_path": CONTRACTS_PATH,
        "dockerfile_append_path": DOCKERFILE_APPEND_PATH,
        "addendum_path": ADDENDUM_PATH,
        "instruction_path": INSTRUCTION_PATH,
        "instruction_mode": mode,
        # a rewrite needs the instruction whole: shown again where the parent's part above cuts it
        "instruction_whole": _nl(whole) if mode == "rewrite" and len(whole) > budgets.instruction_chars else "",
        "rule_checks": RULE_CHECKS,
        "theme": theme,
        "theme_text": theme.replace("-", " "),
        "tag": tag,
        "test_path": f"{TaskPaths.TESTS_DIR}/test_step_{tag}.py",
        "parent_solved": parent_solved(parent, **_solver_budget(budgets)),
    }


def _solver_budget(budgets: PromptBudgets) -> dict[str, int]:
    return {"most": budgets.solver_commands, "width": budgets.solver_command_chars, "chars": budgets.solver_chars}


def candidate_context(
    budgets: PromptBudgets,
    *,
    steps: str = "",
    tests: str = "",
    addendum: str = "",
    dockerfile_append: str = "",
    instruction: str = "",
    contracts: str = "",
) -> dict[str, Any]:
    """The candidate's own files (what a later stage or a repair is shown), each within its budget;
    `instruction`: the child's whole instruction where it was rewritten (then `addendum` is "");
    `contracts`: the contracts.toml the model stated for its outputs ("" where it stated none)."""
    return {
        "steps": _nl(elide(steps, budgets.candidate_chars)),
        "tests": _nl(elide(tests, budgets.candidate_chars)),
        "addendum": _nl(elide(instruction or addendum, budgets.candidate_chars)),
        "rewritten": bool(instruction),
        "dockerfile_append": _nl(elide(dockerfile_append, budgets.candidate_chars)),
        "contracts": _nl(elide(contracts, budgets.candidate_chars)),
    }


def rejection_context(
    budgets: PromptBudgets,
    *,
    check: str,
    reason: str,
    detail: str,
    output_tail: str,
    attempt: int,
    hint: str,
    error: str = "",
    evidence: SolverEvidence | None = None,
    second_steps: str = "",
    also: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """What a repair is told of the rejection; `error` is the exact error quoted (errors.py), `evidence`
    the solver's attempts behind a too_easy rejection, `second_steps` the steps a failed second solution
    ran (engine/second.py), `also` the other checks that failed (check, reason, detail, hint), so that one
    repair can fix every problem."""
    return {
        "also": also or [],
        "solver": evidence_context(evidence, **_solver_budget(budgets)) if evidence is not None else None,
        "second_steps": _nl(elide(second_steps, budgets.candidate_chars)),
        "check": check,
        "reason": reason,
        "detail": detail,
        "attempt": attempt,
        "hint": hint,
        "error": _nl(elide(error.strip("\n"), budgets.output_tail_chars)) if error.strip() else "",
        "output_tail": _nl(tail(output_tail.strip("\n"), budgets.output_tail_chars)),
    }


def reask_message(
    env: Environment,
    budgets: PromptBudgets,
    *,
    reason: str,
    quote: str,
    hint: str,
    files: list[tuple[str, str]],
    single: bool,
) -> dict[str, str]:
    """The user message that follows a malformed reply: the exact parse error, and a request for the
    broken block only (`single`) or for all of `files` ((path, language) pairs) again."""
    path, language = files[0]
    text = env.get_template("reask.j2").render(
        reason=reason,
        quote=elide(quote.strip("\n"), budgets.output_tail_chars).rstrip("\n"),
        hint=hint.rstrip("."),
        path=path if single else "",
        language=language,
        first_path=path,
        files=", ".join(f"{p} ({lang})" for p, lang in files),
        placeholder="# the complete file" if language in ("bash", "python", "dockerfile") else "the complete text",
    )
    return {"role": "user", "content": text.strip() + "\n"}


def environment() -> Environment:
    """The Jinja2 environment of the prompt templates (a fresh one per proposer: no global state)."""
    return Environment(
        loader=PackageLoader("rst_synth.proposers.llm", "templates"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def messages(env: Environment, stage: str, context: dict[str, Any]) -> list[dict[str, str]]:
    """System and user messages of one stage."""
    system = env.get_template("system.j2").render(**context).strip() + "\n"
    user = env.get_template(f"{stage}.j2").render(**context).strip() + "\n"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def approx_tokens(chat: list[dict[str, str]]) -> int:
    """Approximate prompt tokens: characters / 4, rounded up (the usual rule of thumb for English and code)."""
    return math.ceil(sum(len(m["content"]) for m in chat) / 4)


_SAMPLE_STEPS = "".join(f'echo "step line {k}" >> /app/new_output_{k % 5}.txt\n' for k in range(40))
_SAMPLE_TESTS = "from pathlib import Path\n\n" + "".join(
    f"def test_sample_{k}():\n    assert Path('/app/new_output_{k % 5}.txt').read_text().count('step') > 0\n\n"
    for k in range(12)
)
_SAMPLE_ADDENDUM = "Then write the new outputs under /app as described.\n" * 8


def stage_contexts(
    parent: Task,
    discovery: Discovery | None,
    budgets: PromptBudgets,
    theme: str,
    steps: str = _SAMPLE_STEPS,
    tests: str = _SAMPLE_TESTS,
    addendum: str = _SAMPLE_ADDENDUM,
    dockerfile_append: str = "",
    instruction: InstructionMode = "rewrite",
) -> dict[str, dict[str, Any]]:
    """The template context of every stage for one candidate (defaults: a representative 40-line step)."""
    base = parent_context(parent, discovery, budgets, theme, instruction)
    candidate = candidate_context(
        budgets, steps=steps, tests=tests, addendum=addendum, dockerfile_append=dockerfile_append
    )
    rejection = rejection_context(
        budgets,
        check="parent",
        reason="parent_solution_passes",
        detail="the parent's solution passes the child's tests",
        output_tail="1 passed in 0.01s",
        attempt=1,
        hint="",
        error="FAILED tests/test_step_r1.py::test_sample_0 - assert 0 > 0",
    )
    return {
        "extend": base,
        "realign_tests": {**base, **candidate},
        "realign_instruction": {**base, **candidate},
        "repair": {**base, **candidate, **rejection},
    }


def prompt_tokens(
    parent: Task,
    discovery: Discovery | None = None,
    budgets: PromptBudgets | None = None,
    theme: str = THEMES[0],
    instruction: InstructionMode = "rewrite",
) -> dict[str, int]:
    """Approximate prompt tokens (characters / 4, system message included) of each stage for `parent`.

    Stages after the first are measured with a representative 40-line candidate step."""
    env = environment()
    contexts = stage_contexts(parent, discovery, budgets or PromptBudgets(), theme, instruction=instruction)
    return {stage: approx_tokens(messages(env, stage, contexts[stage])) for stage in STAGES}
