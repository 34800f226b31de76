"""Details a test checks that an instruction usually leaves open, found in the test's source.

Two kinds, each a cause of a correct solution's reward 0 seen in generated tests:
- the text of a JSON, CSV or TOML output compared whole (`Path(p).read_text() == ...`), where the
  output's contract leaves its layout free (validator/contracts.py): indentation, key order, quoting;
- a process found by the position of an argument in its command line (`argv[1] == "kvd.py"`,
  `argv[:2] == [...]`), which `python3 -u` or an absolute interpreter path moves.

The instruction check names them (as a note: an instruction may state the layout, and then the
comparison is right), and the tolerance check's failure points at them.
"""

from __future__ import annotations

import ast

from rst_synth.task import OutputContract
from rst_synth.validator.contracts import contract_by_type

_READS = ("read_text", "read_bytes")
_COMMAND_LINES = ("argv", "cmdline")


def open_details(modules: dict[str, bytes], contracts: dict[str, OutputContract]) -> list[str]:
    """What the test `modules` (path -> source) check that their outputs' contracts leave open."""
    found: list[str] = []
    for rel, body in sorted(modules.items()):
        try:
            tree = ast.parse(body.decode("utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        name = rel.rsplit("/", 1)[-1]
        # A tool's entry point reads its own arguments by position: `main(argv)` is no process lookup.
        entry = {
            id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "main" for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            if id(node) in entry:
                continue
            if not isinstance(node, ast.Compare):
                continue
            equality = any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops)
            for side in (node.left, *node.comparators):  # `argv[1] == ...` and `name in argv[:2]` alike
                path = _whole_text_of(side) if equality else None
                if path is not None and _layout_free(path, contracts):
                    found.append(f"{name} compares the whole text of {path}, whose layout is free")
                if isinstance(side, ast.Subscript) and _by_position(side):  # a tool's own `argv[1]` is no match
                    found.append(f"{name} finds a process by the position of an argument (line {node.lineno})")
    return sorted(set(found))


def _whole_text_of(node: ast.expr) -> str | None:
    """The path of `Path("<path>").read_text()` (or read_bytes, also after `.strip()`), else None."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "strip":
        node = node.func.value
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _READS):
        return None
    target = node.func.value
    if isinstance(target, ast.Call) and target.args and isinstance(target.args[0], ast.Constant):
        value = target.args[0].value
        return value if isinstance(value, str) and value.startswith("/") else None
    return None


def _layout_free(path: str, contracts: dict[str, OutputContract]) -> bool:
    contract = contracts.get(path) or contract_by_type(path, None)
    return contract.form in ("json", "csv", "toml") and "layout" not in contract.fixed


def _by_position(node: ast.Subscript) -> bool:
    """`argv[1]`, `argv[:2]`, `cmdline.split(...)[1]`: a command line indexed past its program."""
    value = node.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "split":
        value = value.func.value
    if isinstance(value, ast.Call):  # `argv_of(pid)[:2]`: a helper that reads a command line
        value = value.func
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "sys":
        return False  # a tool reading its own arguments
    named = value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else ""
    if not any(word in named.lower() for word in _COMMAND_LINES):
        return False
    index = node.slice
    if isinstance(index, ast.Constant):
        return isinstance(index.value, int) and index.value >= 1
    if isinstance(index, ast.Slice):
        upper = index.upper.value if isinstance(index.upper, ast.Constant) else None
        return index.lower is None and isinstance(upper, int) and upper >= 2
    return False
