"""Shipped code: the imports generated code needs, a module's definitions rendered with parameters set
and hints dropped, and a script that runs it."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.procedural import shipping
from rst_synth.proposers.procedural.operators.kit import testkit
from rst_synth.proposers.procedural.operators.tables.shipped import group_totals


def test_used_modules_are_the_unbound_names_the_code_reaches_through() -> None:
    code = "def f(x, csv):\n    json = 1\n    return re.sub(x), urllib.parse.quote(x), os.path.join(x), csv.x, json.y\n"
    assert shipping.used_modules(code) == ["os", "re", "urllib.parse"]
    assert shipping.used_modules("import re\nre.sub('a', 'b', 'c')\n") == []
    assert shipping.used_modules("def t():\n    with pytest.raises(ValueError):\n        int('x')\n") == ["pytest"]


def test_render_sets_parameters_keeps_what_is_used_and_drops_hints() -> None:
    code = shipping.render(group_totals, ["test_order"], tag="r2s1", OUT="/srv/out.csv", SRC="/srv/in.csv")
    tree = ast.parse(code)
    names = [getattr(n, "name", None) or n.targets[0].id for n in tree.body]  # type: ignore[attr-defined]
    assert names == ["OUT", "read_out", "test_r2s1_order"]
    assert "OUT = '/srv/out.csv'" in code and "SRC" not in code
    assert "->" not in code and "list[list[str]]" not in code


def test_a_parameter_the_module_lacks_is_an_error() -> None:
    with pytest.raises(ValueError, match="no top-level OUTPUT"):
        shipping.render(group_totals, ["test_order"], OUTPUT="/srv/out.csv")


def test_strip_hints_keeps_the_code_and_rejoins_a_signature() -> None:
    code = shipping.render(testkit, ["run_tool", "http"])
    assert "def run_tool(*command, stdin=None, limit_mb=None, timeout=120):\n" in code
    assert 'def http(port, path, method="GET", body=None):\n' in code
    assert "type: ignore" not in code
    assert shipping.strip_hints("x = zip(a, b)  # noqa: B905\n") == "x = zip(a, b)\n"
    compile(code, "<shipped>", "exec")
    commented = "def f(a: int,\n      b: int) -> int:\n    # opens the body\n    return a\n\n\n"
    commented += "def g(a: int) -> int:\n    # kept\n    return a\n"
    want = "def f(a, b):\n    # opens the body\n    return a\n\n\ndef g(a):\n    # kept\n    return a\n"
    assert shipping.strip_hints(commented) == want  # a comment opening the body is no part of the signature


def test_python_script_runs_with_its_imports() -> None:
    script = shipping.python_script("def main():\n    print(json.dumps({'a': 1}))\n", "main()")
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout == '{"a": 1}\n'
    with pytest.raises(ValueError, match="delimiter"):
        shipping.python_script("X = '''\nPY\n'''\n", "print(X)")


def test_python_tool_is_an_executable_file_with_its_imports(tmp_path: Path) -> None:
    tool = tmp_path / "tool"
    tool.write_text(shipping.python_tool("def main(argv):\n    print(json.dumps(argv[1:]))\n", "main(sys.argv)"))
    tool.chmod(0o755)
    assert tool.read_text().startswith("#!/usr/bin/env python3\nimport json\nimport sys\n")
    assert subprocess.run([tool, "a"], capture_output=True, text=True, check=True).stdout == '["a"]\n'
    with pytest.raises(ValueError, match="delimiter"):
        shipping.python_tool("X = '''\nPY\n'''\n", "print(X)")


def test_a_borrowed_definition_reads_the_callers_parameters() -> None:
    from rst_synth.proposers.procedural.operators.tables.shipped import interval_peak

    code = shipping.render(interval_peak, ["test_peak_and_when"], SRC="/srv/x.csv")
    assert code.count("def when(") == 1 and "SRC = '/srv/x.csv'" in code


SHIPPED = '''"""A shipped module written for the test."""

from rst_synth.proposers.procedural.operators.compiled.shipped.build_checks import assert_same_runs, one_run
from rst_synth.proposers.procedural.operators.kit.testkit import listener, port_of

TOOL = "/app/bin/tool"


def digest(data: bytes) -> str:
    return data.hex()


def test_runs(tmp_path) -> None:  # noqa: ANN001  (the fixture's type)
    digest: str = "local, not the function"
    seen: int
    assert assert_same_runs(TOOL, TOOL, tmp_path) and one_run(TOOL, [], tmp_path) and digest


def test_port() -> None:
    assert listener(port_of(1) or 0) is None
'''


def _shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "shipped_for_test.py").write_text(SHIPPED)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "shipped_for_test"


def test_a_local_name_does_not_ship_the_function_it_shadows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = shipping.render(_shipped(tmp_path, monkeypatch), ["test_runs"])
    assert "def digest(" not in code and "def test_runs(tmp_path):\n" in code
    assert "noqa" not in code and "seen" not in code  # a bare annotation binds nothing: it goes with the hints
    compile(code, "<shipped>", "exec")


def test_each_borrowed_definition_ships_once_with_the_callers_parameters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _shipped(tmp_path, monkeypatch)
    code = shipping.render(module, ["test_runs", "test_port"], PROGRAM_NAME="numstat", INPUTS=["/app/a.txt"])
    for definition in ("def one_run(", "def listening(", "def sockets_of(", "def alive(", "PROGRAM_NAME = "):
        assert code.count(definition) == 1, definition
    assert "PROGRAM_NAME = 'numstat'" in code and "INPUTS = ['/app/a.txt']" in code
    with pytest.raises(ValueError, match="no top-level PROGRAM"):
        shipping.render(module, ["test_runs"], PROGRAM="numstat")  # neither it nor what it borrows has one
