"""The reference of json-merge-patch-tool, called directly: its patch and its tool (`main`, run as a tool)
pass its tests; a diff that takes `true` for `1`, an apply that replaces nested objects instead of merging
them, a diff that writes a null member instead of refusing, and a patch missing a change fail them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.json_docs.shipped import merge_patch_tool as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file

OLD = {"name": "api", "limits": {"cpu": 2, "mem": 512}, "tags": ["a"], "ratio": 1}
NEW = {"name": "api", "limits": {"cpu": 4, "mem": 512}, "tags": ["a", "b"], "ratio": 1.0, "owner": "ops"}


def tool(path: Path, patch: str = "") -> str:
    """The tool as the step ships it (rendered, standalone), with `patch` run after its definitions."""
    return tool_file(path, f"{render(shipped, ['main'])}\n{patch}\n", "sys.exit(main())")


@pytest.fixture
def paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "old.json").write_text(json.dumps(OLD), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(NEW), encoding="utf-8")
    for name, value in {
        "SRC": str(tmp_path / "old.json"),
        "NEW": str(tmp_path / "new.json"),
        "PATCH": str(tmp_path / "patch.json"),
        "TOOL": tool(tmp_path / "merge_patch"),
        "SEED": 11,
    }.items():
        monkeypatch.setattr(shipped, name, value)
    (tmp_path / "scratch").mkdir()
    return tmp_path


def run_tests(scratch: Path) -> None:
    shipped.test_patch_to_the_new_version()
    shipped.test_tool_diff_gives_the_smallest_patch(scratch)
    shipped.test_tool_diff_refuses_what_no_patch_expresses(scratch)
    shipped.test_tool_apply(scratch)
    shipped.test_tool_rejects_what_is_not_json(scratch)


def test_the_reference_passes_its_tests(paths: Path) -> None:
    done = shipped.run_tool(shipped.TOOL, "diff", paths / "old.json", paths / "new.json")
    assert done.returncode == 0 and json.loads(done.stdout) == {
        "limits": {"cpu": 4},
        "tags": ["a", "b"],
        "owner": "ops",
    }
    (paths / "patch.json").write_bytes(done.stdout)
    run_tests(paths / "scratch")


@pytest.mark.parametrize(
    "patch",
    [
        "same = lambda a, b: a == b",
        "apply = lambda target, patch: {**target, **patch} if isinstance(patch, dict) else patch",
        "whole = lambda value: value",
    ],
)
def test_a_wrong_tool_fails(paths: Path, monkeypatch: pytest.MonkeyPatch, patch: str) -> None:
    done = shipped.run_tool(shipped.TOOL, "diff", paths / "old.json", paths / "new.json")
    (paths / "patch.json").write_bytes(done.stdout)
    monkeypatch.setattr(shipped, "TOOL", tool(paths / "wrong", patch))
    with pytest.raises(AssertionError):
        run_tests(paths / "scratch")


def test_a_patch_missing_a_change_fails(paths: Path) -> None:
    (paths / "patch.json").write_text(json.dumps({"limits": {"cpu": 4}, "tags": ["a", "b"]}))
    with pytest.raises(AssertionError):
        shipped.test_patch_to_the_new_version()
