"""The reference of config-layered-merge, called directly: the tool written from it passes the shipped tests
on results it wrote; a wrong result, or a tool that applies the overlay after the variables, fails them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.config.shipped import layered_merge as shipped
from rst_synth.proposers.procedural.shipping import python_tool, render

BASE = '[http]\nport = 80\ndebug = false\n[db]\nurl = "https://db.test"\nhosts = ["a"]\n'
TOP = '[http]\nport = 8080\n[db]\nurl = "!unset"\n[metrics]\nenabled = true\n'
ENV = "# set\nAPP__HTTP__PORT=9090\nAPP__HTTP__DEBUG=yes\nOTHER__X=1\n"
CALL = "sys.exit(main(sys.argv))"


@pytest.fixture
def tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The reference tool, written as the solution writes it, run on one environment's layers."""
    path = tmp_path / "layers"
    path.write_text(python_tool(render(shipped, ["main"], PREFIX="APP"), CALL))
    path.chmod(0o755)
    base, top, env, out = (tmp_path / n for n in ("base.toml", "top.toml", "prod.env", "out.toml"))
    base.write_text(BASE)
    top.write_text(TOP)
    env.write_text(ENV)
    out.write_bytes(subprocess.run([str(path), str(base), str(top), str(env)], capture_output=True).stdout)
    for name, value in (("TOOL", str(path)), ("BASE", str(base)), ("PREFIX", "APP"), ("SEED", 11)):
        monkeypatch.setattr(shipped, name, value)
    monkeypatch.setattr(shipped, "CASES", [(str(top), str(env), str(out))])
    return path


def test_the_reference_passes_its_tests(tool: Path, tmp_path: Path) -> None:
    out = Path(shipped.CASES[0][2])
    assert shipped.load_doc(out) == {
        "http": {"port": 9090, "debug": True},
        "db": {"hosts": ["a"]},
        "metrics": {"enabled": True},
    }
    shipped.test_effective_configuration_per_environment()
    for test in (shipped.test_tool_on_fresh_layers, shipped.test_tool_rejects_bad_layers):
        case = tmp_path / test.__name__
        case.mkdir()
        test(case)


def test_a_wrong_result_fails(tool: Path) -> None:
    out = Path(shipped.CASES[0][2])
    out.write_text(out.read_text().replace("9090", "8080"))  # the overlay beat the variable
    with pytest.raises(AssertionError):
        shipped.test_effective_configuration_per_environment()


def test_a_wrong_tool_fails(tool: Path, tmp_path: Path) -> None:
    code = render(shipped, ["main"], PREFIX="APP")
    right = "doc = copy.deepcopy(overlay(load_doc(base), load_doc(top)))"
    assert right in code
    tool.write_text(python_tool(code.replace(right, "doc = copy.deepcopy(load_doc(base))"), CALL))
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_layers(tmp_path)
