"""What each stage's reply must or may hold (`Expect`s for parse.py), and the new part of a file that a
model sent whole (`without_prefix`)."""

from __future__ import annotations

from rst_synth.proposers.llm.parse import Expect
from rst_synth.proposers.llm.prompts import (
    ADDENDUM_PATH,
    CONTRACTS_PATH,
    DOCKERFILE_APPEND_PATH,
    INSTRUCTION_PATH,
    STEPS_PATH,
)
from rst_synth.task.shell import without_trailing_exit

_TESTS = ("tests/test_*.py", "test_*.py")
_CONTRACTS = Expect(CONTRACTS_PATH, "toml", required=False, accept=("*/contracts.toml",))
"""The contracts the model may state for its new outputs (contracts.py)."""


def expected_files(stage: str, test_path: str, *, rewrite: bool) -> list[Expect]:
    """The files of a stage's reply: extend (the steps; a Dockerfile append and contracts where
    needed), realign_tests, realign_instruction (`rewrite`: the whole instruction, else an addendum),
    and a repair's (any of them, each optional)."""
    if stage == "extend":
        return [
            Expect(STEPS_PATH, "bash", accept=("solution/*.sh",), new_work=True),
            Expect(DOCKERFILE_APPEND_PATH, "dockerfile", required=False),
            _CONTRACTS,
        ]
    if stage == "realign_tests":
        return [Expect(test_path, "python", accept=_TESTS, new_work=True)]
    if stage == "realign_instruction":
        return _instruction_expects(rewrite, required=True)
    return [
        Expect(STEPS_PATH, "bash", required=False, accept=("solution/*.sh",), new_work=True),
        Expect(test_path, "python", required=False, accept=_TESTS, new_work=True),
        *_instruction_expects(rewrite, required=False),
        Expect(DOCKERFILE_APPEND_PATH, "dockerfile", required=False),
        _CONTRACTS,
    ]


def _instruction_expects(rewrite: bool, *, required: bool) -> list[Expect]:
    """The instruction's blocks: an addendum (any .md path), required where `required`; for a rewrite,
    first the whole instruction.md (an unlabelled markdown block too), then an addendum, still taken as one
    (replies to older prompts), both optional: the caller then asks for either."""
    if not rewrite:
        return [Expect(ADDENDUM_PATH, "markdown", required=required, accept=("*.md",))]
    return [
        Expect(INSTRUCTION_PATH, "markdown", required=False, accept=("*/instruction.md", "INSTRUCTION.md")),
        Expect(ADDENDUM_PATH, "markdown", required=False, accept=("*.md",), fallback=True),
    ]


def without_prefix(text: str, parent_text: str) -> str:
    """`text` without the parent's own text in front: a model that repeats the whole solve.sh (or the
    whole instruction) instead of only the new part would otherwise run the parent's work twice."""
    body, prefix = text.strip(), without_trailing_exit(parent_text).strip()
    if prefix and body.startswith(prefix):
        rest = body[len(prefix) :].strip("\n")
        return rest + "\n" if rest.strip() else text
    return text
