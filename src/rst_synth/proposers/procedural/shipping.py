"""Code that runs inside a task, kept as real source: what a step ships is read from a module of the
library (linted, type-checked, unit-tested like the rest) and rendered into the step's solution or
test module, with its parameters put in by one explicit substitution.

A shipped module's top-level `NAME = ...` assignments are its parameters: `render` replaces the ones
given with the value's `repr`, keeps the functions asked for and what they use, and drops the module's
docstring and imports; `used_modules` derives the import lines a piece of generated code needs.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.resources
import importlib.util
import inspect
import re
import shlex
import sys
from collections.abc import Iterable
from types import ModuleType

THIRD_PARTY = frozenset({"pytest"})
"""Modules besides the standard library that a task's test environment always has."""


@functools.cache
def _is_package(name: str) -> bool:
    try:
        return hasattr(importlib.import_module(name), "__path__")
    except ImportError:
        return False


@functools.cache
def _exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _bound(tree: ast.AST) -> set[str]:
    """Every name the code binds itself: assigned, defined, imported, a parameter."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def used_modules(code: str) -> list[str]:
    """The modules generated code uses by name without importing them (`json.loads` -> json, `urllib.parse.quote`
    -> urllib.parse), sorted: the import lines of a test module follow from its code."""
    tree = ast.parse(code)
    bound = _bound(tree)
    found: set[str] = set()
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        chain: list[str] = []
        value: ast.expr = node
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id in bound:
            continue
        if not (value.id in sys.stdlib_module_names or value.id in THIRD_PARTY):
            continue
        module = value.id
        for part in chain:  # the deepest module the chain names (`xml.etree.ElementTree.parse`)
            if not (_is_package(module) and _exists(f"{module}.{part}")) or module == "os":
                break
            module = f"{module}.{part}"
        found.add(module)
    return sorted(found)


def shipped_text(package: str, name: str) -> str:
    """A shipped file that is not Python (a C source, a shell script), from the package that holds it."""
    return importlib.resources.files(package).joinpath(name).read_text(encoding="utf-8")


def source_of(module: ModuleType | str) -> str:
    """A shipped module's text (the file the package holds)."""
    found = importlib.import_module(module) if isinstance(module, str) else module
    return inspect.getsource(found)


def _defined(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _bound_here(nodes: Iterable[ast.AST]) -> set[str]:
    """The names a scope binds itself (assigned, defined, imported), nested scopes' own names aside."""
    names: set[str] = set()
    declared: set[str] = set()
    todo = list(nodes)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            todo.extend([*node.decorator_list, *_defaults(node)])
        elif not isinstance(node, ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
    return names - declared


def _defaults(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *(k.value for k in node.keywords)]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    return []


def _free(node: ast.AST) -> set[str]:
    """The names `node` reads from the module: used and not bound in the scope that uses them (a local
    variable named like a top-level function does not ship that function). Type hints do not count: they are
    stripped."""
    if isinstance(node, _SCOPES):
        inner: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
        bound = _bound_here(inner)
        if not isinstance(node, ast.ClassDef):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            bound |= {a.arg for a in every if a is not None}
        outside = [*getattr(node, "decorator_list", []), *_defaults(node)]
        return set().union(*(_free(n) for n in inner)) - bound | set().union(*(_free(n) for n in outside))
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) else set()
    if isinstance(node, ast.AnnAssign):
        return _free(node.target) | (_free(node.value) if node.value is not None else set())
    return set().union(*(_free(child) for child in ast.iter_child_nodes(node)))


_TYPE_IGNORE = re.compile(r"  # (type: ignore\[[a-z-, ]+\]|noqa\b)[^\n]*$", re.MULTILINE)
"""Linter and type-checker comments: they speak to our checks, not to whoever reads the task."""


_DEFAULT = re.compile(r"^(\s*(?:async )?def \w+)(\(.*?\):)$", re.MULTILINE | re.DOTALL)
"""A signature, to write its defaults as ruff does without hints (`limit=None`, not `limit = None`)."""
_SPACED = re.compile(r"(?<=\w) = ")


def strip_hints(code: str) -> str:
    """`code` without its type hints (parameters, returns, annotated assignments) and `type: ignore`/`noqa` comments:
    shipped code is checked here, and runs in a task whose interpreter need not read them."""
    lines = code.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def at(line: int | None, col: int | None) -> int:
        """The text offset of an AST position (its column counts UTF-8 bytes)."""
        assert line is not None and col is not None
        return starts[line - 1] + len(lines[line - 1].encode()[:col].decode())

    def hint(name_end: int, annotation: ast.expr) -> tuple[int, int]:
        return name_end, at(annotation.end_lineno, annotation.end_col_offset)

    cuts: list[tuple[int, int]] = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    cuts.append(hint(at(arg.lineno, arg.col_offset) + len(arg.arg), arg.annotation))
            if node.returns is not None:
                arrow = code.rindex("->", 0, at(node.returns.lineno, node.returns.col_offset))
                cuts.append(hint(len(code[:arrow].rstrip()), node.returns))
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            cuts.append(hint(at(node.target.lineno, node.target.col_offset) + len(node.target.id), node.annotation))
        elif isinstance(node, ast.AnnAssign) and node.value is None and node.end_lineno is not None:
            cuts.append((starts[node.lineno - 1], starts[node.end_lineno]))  # `x: T` alone binds nothing
    for start, end in sorted(cuts, reverse=True):
        code = code[:start] + code[end:]
    code = _TYPE_IGNORE.sub("", code)
    return _DEFAULT.sub(lambda m: m[1] + _SPACED.sub("=", m[2]), _rejoin(code))


def _rejoin(code: str) -> str:
    """A signature that the hints had spread over lines, on one line again when it fits (ruff's width)."""
    tree = ast.parse(code)
    lines = code.splitlines(keepends=True)
    for node in sorted(
        (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
        key=lambda n: -n.lineno,
    ):
        body = node.body[0].lineno
        while body - node.lineno > 1 and lines[body - 2].strip()[:1] in ("#", ""):
            body -= 1  # a comment opening the body stays where it is
        if body - node.lineno <= 1:
            continue
        head = "".join(lines[node.lineno - 1 : body - 1])
        joined = " ".join(part.strip() for part in head.splitlines())
        joined = joined.replace("( ", "(").replace(", )", ")").replace(",)", ")").replace(" )", ")")
        indent = head[: len(head) - len(head.lstrip())]
        if len(indent) + len(joined) <= 120:
            lines[node.lineno - 1 : body - 1] = [indent + joined + "\n"]
    return "".join(lines)


def _top_level(module: str) -> set[str]:
    return {name for node in ast.parse(source_of(module)).body for name in _defined(node)}


def render(module: ModuleType | str, keep: Iterable[str], tag: str = "", **params: object) -> str:
    """The top-level definitions `keep` of a shipped module and every definition they use, in file order,
    with the parameters given (top-level assignments of those names) set to their values. A parameter that
    neither the module nor a module it borrows from defines is an error: a typo would otherwise ship the
    module's placeholder. With a `tag`, `def test_x` ships as `def test_<tag>_x`, so the tests of two steps
    never share a name. A definition the module imports from another shipped module (`from ...shipped.other
    import helper`) ships too, ahead of the module's own, with the caller's parameters; each definition ships
    once, however many others use it."""
    name = getattr(module, "__name__", module)
    tree = ast.parse(source_of(module))
    defined = {n for node in tree.body for n in _defined(node)}
    reachable = defined.union(*(_top_level(other) for other, _ in _borrowed(tree).values()))
    missing = sorted(set(params) - reachable) + sorted(set(keep) - defined)
    if missing:
        raise ValueError(f"{name}: no top-level {', '.join(missing)} to ship")
    shipped: set[str] = set()
    chunks = []
    for names, code in _chunks(module, list(keep), params):
        if not set(names) & shipped:
            shipped.update(names)
            chunks.append(code)
    code = "\n\n\n".join(chunks) + "\n"
    return re.sub(r"^def test_", f"def test_{tag}_", code, flags=re.MULTILINE) if tag else code


def _borrowed(tree: ast.Module) -> dict[str, tuple[str, str]]:
    """Local name -> (module, name) of what a shipped module imports from the package."""
    return {
        alias.asname or alias.name: (node.module, alias.name)
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rst_synth.")
        for alias in node.names
    }


def _chunks(module: ModuleType | str, keep: list[str], params: dict[str, object]) -> list[tuple[list[str], str]]:
    """`render`'s definitions as (names, code), the borrowed ones first; a name may come more than once."""
    text = source_of(module)
    tree = ast.parse(text)
    body = [n for n in tree.body if _defined(n)]
    by_name = {name: node for node in body for name in _defined(node)}
    borrowed = _borrowed(tree)
    wanted: set[str] = set()
    todo = list(keep)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(n for n in _free(by_name[name]) if n in by_name)
    used = set().union(*(_free(by_name[name]) for name in wanted))
    from_others: dict[str, set[str]] = {}
    for local in sorted(used):
        if local in borrowed and local not in by_name:
            other, original = borrowed[local]
            from_others.setdefault(other, set()).add(original)
    chunks: list[tuple[list[str], str]] = []
    for other, originals in sorted(from_others.items()):
        theirs = {k: v for k, v in params.items() if k in _top_level(other)}
        chunks += _chunks(other, sorted(originals), theirs)
    for node in body:
        names = _defined(node)
        if not set(names) & wanted:
            continue
        if names[0] in params:
            chunks.append((names, f"{names[0]} = {params[names[0]]!r}"))
        else:
            chunks.append((names, strip_hints(ast.get_source_segment(text, node) or "")))
    return chunks


def python_script(code: str, call: str) -> str:
    """Bash that runs shipped code with python3 from a quoted here-document: its imports, then `call`."""
    imports = "".join(f"import {m}\n" for m in used_modules(code + call))
    script = f"{imports}\n\n{code}\n\n{call}\n"
    if "\nPY\n" in f"\n{script}":
        raise ValueError("shipped code holds the here-document's delimiter line PY")
    return f"python3 - <<'PY'\n{script}PY"


def python_tool(code: str, call: str) -> str:
    """The text of an executable Python file of shipped code, for a quoted `<<'PY'` here-document: a `#!`
    line, its imports, the code, then `call`."""
    imports = "".join(f"import {m}\n" for m in used_modules(code + call))
    text = f"#!/usr/bin/env python3\n{imports}\n\n{code}\n\n{call}\n"
    if "\nPY\n" in f"\n{text}":
        raise ValueError("shipped code holds the here-document's delimiter line PY")
    return text


def write_tool(path: str, code: str, call: str) -> str:
    """Bash that writes shipped code to `path` as an executable Python tool (`python_tool`'s text)."""
    return f"cat > {shlex.quote(path)} <<'PY'\n{python_tool(code, call)}PY\nchmod 0755 {shlex.quote(path)}"
