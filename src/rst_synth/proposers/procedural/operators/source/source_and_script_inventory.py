"""Operators on source files: a Python module inventory, C function list, shell script summary."""

from __future__ import annotations

import ast
import re
from typing import Any

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import (
    Step,
    StepContext,
    register,
)
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.source.shipped import c_function_list, python_inventory, shell_commands
from rst_synth.proposers.procedural.shipping import render

MIN_DEFINITIONS = 4
"""An inventory of fewer definitions (a two-function script) lists what a glance shows: bookkeeping."""


def _output(artifact: Artifact, ctx: StepContext, suffix: str, ext: str) -> str:
    """ctx.output_path, but next to the repository when the file lies inside a git work tree
    (an untracked output there would make `git status` of the parent's checks dirty)."""
    for repo in ctx.discovery.of_kind(Kind.GIT):
        root = repo.path.rstrip("/")
        if artifact.path.startswith(root + "/") and root.rsplit("/", 1)[0]:
            proxy = Artifact(path=f"{root.rsplit('/', 1)[0]}/{repo.name}_{artifact.name}", kind=artifact.kind)
            return ctx.output_path(proxy, suffix, ext)
    return ctx.output_path(artifact, suffix, ext)


def _complete(artifact: Artifact) -> bool:
    return len(artifact.sample) < SAMPLE_CHARS


_TOP_DEF = re.compile(r"^(async[ \t]+def|def|class)[ \t]+[A-Za-z_]", re.MULTILINE)


@register
class PythonSourceInventory(ReportOperator):
    """Top-level functions and classes of a Python module, as JSON."""

    name = "python-source-inventory"
    final = True
    kinds = (Kind.PYTHON_SOURCE,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        if not _complete(artifact):
            return len(_TOP_DEF.findall(artifact.sample)) >= MIN_DEFINITIONS
        try:
            tree = ast.parse(artifact.sample)
        except (SyntaxError, ValueError):
            return False
        defined = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        return len(defined) >= MIN_DEFINITIONS

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        extra = ctx.rng.choice(("", "end_line", "docstring"))
        out = _output(artifact, ctx, "inventory", "json")
        params = {"SRC": artifact.path, "EXTRA": extra, "OUT": out}
        solution = self.report_solution(
            render(python_inventory, ["write_inventory"], **params), call="write_inventory()"
        )
        tests = render(python_inventory, ["test_inventory_matches_source"], tag=ctx.tag, **params)
        extra_text = {
            "": "",
            "end_line": ", `end_line` (the line number of its last line, as an integer)",
            "docstring": ", `docstring` (JSON `true` when it has a docstring, else `false`)",
        }[extra]
        keys = ["name", "kind", "line"] + ([extra] if extra else [])
        instruction = (
            f"Write an inventory of `{artifact.path}` to `{out}`: a JSON array with one object per "
            "function or class defined directly at the top level of the module (statements of the module body "
            "itself; not methods, nested definitions, or definitions inside `if`/`try` blocks), ordered by line "
            f'number. Each object has exactly the keys `name`, `kind` (`"function"` for `def` and `async def`, '
            f'`"class"` for `class`), `line` (the 1-based line number of the `def`/`class` keyword, not of any '
            f"decorator, as an integer){extra_text}."
        )
        produced = Artifact(
            path=out,
            kind=Kind.JSON,
            details={
                "type": "records",
                "length": None,
                "keys": sorted(keys),
                "numeric_keys": sorted(k for k in keys if k in ("line", "end_line")),
                "string_keys": ["kind", "name"],
            },
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


C_FUNCTION = r"^[A-Za-z_][A-Za-z0-9_ \t*]*[ \t*]([A-Za-z_][A-Za-z0-9_]*)[ \t]*\("
C_NOT_NAMES = ("if", "while", "for", "switch", "return", "sizeof")


def c_functions(text: str) -> list[tuple[str, int]]:
    """The documented rule (kept identical to the generated solution and tests)."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        m = re.match(C_FUNCTION, line)
        if m and not line.rstrip().endswith(";") and m.group(1) not in C_NOT_NAMES:
            found.append((m.group(1), number))
    return found


@register
class CSourceFunctionList(ReportOperator):
    """Function definitions of a C file found by a documented line rule, as CSV."""

    name = "c-source-function-list"
    final = True
    kinds = (Kind.C_SOURCE,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        sample = artifact.sample if _complete(artifact) else artifact.sample.rsplit("\n", 1)[0]
        return len(c_functions(sample)) >= MIN_DEFINITIONS

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        order = ctx.rng.choice(("line", "name"))
        out = _output(artifact, ctx, "functions", "csv")
        params: dict[str, Any] = {
            "SRC": artifact.path,
            "PATTERN": C_FUNCTION,
            "SKIP": C_NOT_NAMES,
            "ORDER": order,
            "OUT": out,
        }
        solution = self.report_solution(
            render(c_function_list, ["write_functions"], **params), call="write_functions()"
        )
        tests = render(c_function_list, ["test_function_list"], tag=ctx.tag, **params)
        ordering = (
            "in file order (ascending line number)"
            if order == "line"
            else "ordered by name (ascending string order by character code), ties by line number"
        )
        instruction = (
            f"Then list the function definitions of `{artifact.path}` in `{out}`, using this rule: split the file "
            "(UTF-8) on newline characters and number the lines from 1; a line is a function definition when it "
            f"matches the Python regular expression `{C_FUNCTION}` at its start (so it begins at column 0 with a "
            "return type and has the function name directly before its first `(`), does not end with `;` once "
            "trailing whitespace is removed, and the captured name is not one of "
            f"{', '.join(f'`{n}`' for n in C_NOT_NAMES)}. Write a comma-separated file with the header "
            f"`name,line` and one row per such line (the captured name and the line number), {ordering}."
        )
        produced = csv_output(out, ["name", "line"], ["line"])
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


def _code_lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip() and not line.strip().startswith("#")]


@register
class ShellScriptCommands(ReportOperator):
    """Code lines and the distinct first words of a shell script, as JSON."""

    name = "shell-script-commands"
    final = True
    kinds = (Kind.SHELL_SCRIPT,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return bool(_code_lines(artifact.sample))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        counted = ctx.rng.choice((False, True))
        out = _output(artifact, ctx, "commands", "json")
        params: dict[str, Any] = {"SRC": artifact.path, "COUNTED": counted, "OUT": out}
        solution = self.report_solution(render(shell_commands, ["write_summary"], **params), call="write_summary()")
        tests = render(shell_commands, ["test_code_lines_and_first_words"], tag=ctx.tag, **params)
        words = (
            "an object mapping each distinct first word to the number of code lines that start with it"
            if counted
            else "an array of the distinct first words in ascending string order (by character code)"
        )
        instruction = (
            f"Summarise the shell script `{artifact.path}` in `{out}`. Split the file (UTF-8) on newline "
            "characters; a code line is one that is not blank (not only whitespace) and whose first non-whitespace "
            "character is not `#` (so the `#!` line and comments are not code lines). The first word of a code line "
            "is its first whitespace-separated token. Write a JSON object with exactly two keys: `code_lines`, the "
            f"number of code lines as an integer, and `first_words`, {words}."
        )
        produced = Artifact(
            path=out,
            kind=Kind.JSON,
            details={
                "type": "object",
                "keys": ["code_lines", "first_words"],
                "numeric_keys": ["code_lines"],
                "string_keys": [],
            },
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
