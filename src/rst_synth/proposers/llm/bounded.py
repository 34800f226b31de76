"""Bounded views of texts that grow with a lineage: a text cut to a character budget around an elision
marker, and a task's test modules (the newest in full, older ones by the names of their tests)."""

from __future__ import annotations

import ast
import re
from pathlib import PurePosixPath

from rst_synth.task import Task, TaskPaths

_STEP_MODULE = re.compile(r"test_step_r(\d+)(?:s(\d+))?")


def elide(text: str, budget: int) -> str:
    """`text` when it fits in `budget` characters, else its head and tail around an elision marker."""
    if len(text) <= budget:
        return text
    lines = text.splitlines()
    head: list[str] = []
    tail: list[str] = []
    used, half = 0, budget // 2
    for line in lines:
        if used + len(line) + 1 > half:
            break
        head.append(line)
        used += len(line) + 1
    used = 0
    for line in reversed(lines[len(head) :]):
        if used + len(line) + 1 > half:
            break
        tail.insert(0, line)
        used += len(line) + 1
    gone = len(lines) - len(head) - len(tail)
    if gone <= 0:  # one enormous line
        return text[:half] + f"\n[... {len(text) - 2 * half} characters elided ...]\n" + text[-half:]
    return "\n".join([*head, f"[... {gone} lines elided ...]", *tail]) + "\n"


def tail(text: str, budget: int) -> str:
    if len(text) <= budget:
        return text
    cut = text[-budget:]
    return f"[... {text.count(chr(10), 0, len(text) - budget)} lines elided ...]\n" + cut.split("\n", 1)[-1]


def names_of_tests(source: str) -> list[str]:
    """Names of the test functions (and test classes) of a module; [] when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            names.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names += [
                f"{node.name}.{n.name}"
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")
            ]
    return names


def _module_age(rel: str) -> tuple[int, int, str]:
    """Sort key: the seed's own modules first, then step modules by round and step."""
    match = _STEP_MODULE.search(rel)
    if not match:
        return (0, 0, rel)
    return (int(match.group(1)), int(match.group(2) or 0), rel)


def pytest_modules(task: Task) -> list[tuple[str, str]]:
    """(path, source) of the task's pytest modules, oldest first."""
    mods = [
        (rel, body.decode("utf-8", errors="replace"))
        for rel, body in task.files.items()
        if rel.startswith(f"{TaskPaths.TESTS_DIR}/")
        and PurePosixPath(rel).name.startswith("test_")
        and rel.endswith(".py")
    ]
    return sorted(mods, key=lambda m: _module_age(m[0]))


def summarize_tests(
    task: Task, budget: int, summary_budget: int = 1500
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(modules shown in full, modules summarized by test names): only the newest one in full, the
    older ones by name within `summary_budget` characters, newest first; the rest are counted."""
    mods = pytest_modules(task)
    if not mods:
        return [], []
    *older, (newest_rel, newest_src) = mods
    full = [{"path": newest_rel, "source": elide(newest_src, budget)}]
    summary: list[dict[str, str]] = []
    used = 0
    for index, (rel, src) in enumerate(reversed(older)):
        names = names_of_tests(src)
        shown = ", ".join(names[:25]) + (f" (+{len(names) - 25} more)" if len(names) > 25 else "")
        entry = {"path": rel, "names": shown or "(no test functions found)"}
        used += len(rel) + len(entry["names"]) + 4
        if used > summary_budget:
            rest = list(reversed(older))[index:]
            count = sum(len(names_of_tests(s)) for _, s in rest)
            summary.append({"path": f"{len(rest)} older modules", "names": f"{count} tests, not listed"})
            break
        summary.append(entry)
    return full, list(reversed(summary))
