"""The references of python-source-inventory, c-source-function-list and shell-script-commands, called
directly: what they write passes their tests; a line number off, a definition missed, an order or a count
otherwise fails them."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.procedural.operators.source.shipped import c_function_list, python_inventory, shell_commands

PY = (
    'import os\n\n\n@decorated\ndef f():\n    """Doc."""\n\n\nclass C:\n    def m(self):\n        pass\n\n\n'
    "async def g():\n    return 1\n"
)
C = (
    "#include <stdio.h>\nstatic int add(int a, int b);\nstatic int add(int a, int b)\n{\n    if (a) return a;\n}\n\n"
    "int\nmain (void) {\n  return 0;\n}\nchar *name(void)\n{\n}\nunsigned long\tcount (void)\n"
)
SH = "#!/bin/sh\n# deploy\nset -e\n\necho one\n  echo two\nrsync -a src dst\n"


def _setup(module: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str, **params: object) -> Path:
    (tmp_path / "src").write_text(text)
    monkeypatch.setattr(module, "SRC", str(tmp_path / "src"))
    monkeypatch.setattr(module, "OUT", str(tmp_path / "out"))
    for name, value in params.items():
        monkeypatch.setattr(module, name, value)
    return tmp_path / "out"


@pytest.mark.parametrize("extra", ["", "end_line", "docstring"])
def test_python_inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str) -> None:
    out = _setup(python_inventory, monkeypatch, tmp_path, PY, EXTRA=extra)
    python_inventory.write_inventory()
    data = json.loads(out.read_text())
    assert [(i["name"], i["kind"], i["line"]) for i in data] == [
        ("f", "function", 5),
        ("C", "class", 9),
        ("g", "function", 14),
    ]
    assert [i.get("end_line") for i in data] == ([6, 11, 15] if extra == "end_line" else [None] * 3)
    assert [i.get("docstring") for i in data] == ([True, False, False] if extra == "docstring" else [None] * 3)
    python_inventory.test_inventory_matches_source()
    for wrong in (data[:2], [{**data[0], "line": 4}, *data[1:]], [data[1], data[0], data[2]]):
        out.write_text(json.dumps(wrong))
        with pytest.raises(AssertionError):
            python_inventory.test_inventory_matches_source()


@pytest.mark.parametrize("order", ["line", "name"])
def test_c_function_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str) -> None:
    out = _setup(c_function_list, monkeypatch, tmp_path, C, ORDER=order)
    c_function_list.write_functions()
    rows = list(csv.reader(out.open(newline="")))
    found = [["add", "3"], ["name", "12"], ["count", "15"]]  # `main (` has no return type on its line
    assert rows == [["name", "line"], *(found if order == "line" else sorted(found))]
    c_function_list.test_function_list()
    for wrong in ([rows[0], *rows[1:3]], [rows[0], ["add", "2"], *rows[2:]]):
        with out.open("w", newline="") as f:
            csv.writer(f).writerows(wrong)
        with pytest.raises(AssertionError):
            c_function_list.test_function_list()


@pytest.mark.parametrize("counted", [False, True])
def test_shell_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, counted: bool) -> None:
    out = _setup(shell_commands, monkeypatch, tmp_path, SH, COUNTED=counted)
    monkeypatch.setattr(shell_commands.expected, "__defaults__", (counted,))  # bound when the module was read
    shell_commands.write_summary()
    data = json.loads(out.read_text())
    words = {"echo": 2, "rsync": 1, "set": 1}
    assert data == {"code_lines": 4, "first_words": words if counted else sorted(words)}
    shell_commands.test_code_lines_and_first_words()
    for wrong in ({**data, "code_lines": 5}, {**data, "code_lines": 4.0}, {**data, "first_words": ["echo"]}):
        out.write_text(json.dumps(wrong))
        with pytest.raises(AssertionError):
            shell_commands.test_code_lines_and_first_words()
