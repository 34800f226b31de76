"""Per-step credit in the flat form: the plugin under real pytest (the share of each step's tests,
the overall reward as test.sh writes it), which verifiers allow it, and the flat export adding it."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from rst_synth.export.credit import CONFTEST, PLUGIN, credit_blocked, with_step_credit
from rst_synth.export.dataset import task_form
from rst_synth.task import Task
from tests.export.lineage import three_round_run
from tests.support.tasks import REPO

HARBOR_FIXTURES = REPO / "tests" / "fixtures" / "harbor"
STEPS = {"r0-seed": None, "r1-stats": ["test_step_r1s1.py"], "r2-tool": ["test_step_r2s1.py", "test_step_r2s2.py"]}
MODULES = {
    "test_outputs.py": "def test_a():\n    assert True\n\ndef test_b():\n    assert False\n",
    "test_step_r1s1.py": "def test_c():\n    assert True\n",
    "test_step_r2s1.py": "def test_d():\n    assert 1 == 2\n",
    "test_step_r2s2.py": "def test_e():\n    assert True\n\ndef test_f():\n    assert True\n",
}


def run_plugin(tmp_path: Path, modules: dict[str, str], *args: str) -> dict[str, float]:
    """pytest (this interpreter's) over a tests folder holding `modules` and the plugin, which writes
    its reward.json under tmp_path instead of /logs/verifier."""
    tests = tmp_path / "tests"
    tests.mkdir(parents=True)
    for name, body in modules.items():
        (tests / name).write_text(body)
    reward = tmp_path / "reward.json"
    plugin = PLUGIN.replace("__STEPS__", repr(STEPS)).replace('"/logs/verifier/reward.json"', repr(str(reward)))
    (tests / "conftest.py").write_text(plugin)
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, str(tests)],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    found: dict[str, float] = json.loads(reward.read_text())
    return found


def test_each_step_gets_the_share_of_its_tests_that_passed(tmp_path: Path) -> None:
    rewards = run_plugin(tmp_path, MODULES)
    # The seed's step has every module no step names.
    assert rewards == {"reward": 0.0, "r0-seed": 0.5, "r1-stats": 1.0, "r2-tool": 0.6667}


def test_a_module_that_does_not_import_fails_its_step(tmp_path: Path) -> None:
    broken = {**MODULES, "test_step_r2s1.py": "import not_installed_anywhere\n"}
    continued = run_plugin(tmp_path / "a", broken, "--continue-on-collection-errors")
    assert continued == {"reward": 0.0, "r0-seed": 0.5, "r1-stats": 1.0, "r2-tool": 0.6667}
    # By default pytest runs no test at all after a collection error: nothing passed, nothing earned.
    assert run_plugin(tmp_path / "b", broken) == {"reward": 0.0, "r0-seed": 0.0, "r1-stats": 0.0, "r2-tool": 0.0}


def test_all_passing_gives_reward_one_and_full_credit(tmp_path: Path) -> None:
    passing = {name: "def test_ok():\n    assert True\n" for name in MODULES}
    assert run_plugin(tmp_path, passing) == {"reward": 1.0, "r0-seed": 1.0, "r1-stats": 1.0, "r2-tool": 1.0}


def test_node_ids_relative_to_another_rootdir_map_to_the_same_modules(tmp_path: Path) -> None:
    passing = {name: "def test_ok():\n    assert True\n" for name in MODULES}
    assert run_plugin(tmp_path, passing, "--rootdir", str(tmp_path))["r2-tool"] == 1.0


@pytest.mark.parametrize(
    "fixture, blocked",
    [
        ("folder-run", None),
        ("named-file", None),
        ("tests-read-files", None),
        ("uv-at-test-time", None),
        ("reward-json", "the verifier writes reward.json itself"),
        ("pytest-plugins", "tests/conftest.py is the task's own"),
        ("ctrf-report", "the verifier does not write reward.txt as a literal 1 or 0"),
    ],
)
def test_the_plugin_goes_only_where_the_reward_follows_pytests_status(fixture: str, blocked: str | None) -> None:
    task = Task.load(HARBOR_FIXTURES / fixture)
    assert credit_blocked(task) == blocked
    assert with_step_credit(task, {"r0-x": None}) is (blocked is None)


def test_a_verifier_running_pytest_twice_gets_no_plugin(tmp_path: Path) -> None:
    task = Task.load(HARBOR_FIXTURES / "named-file")
    task.set_text(
        "tests/test.sh", task.text("tests/test.sh").replace("python3 -m pytest", "pytest -x /tests; python3 -m pytest")
    )
    assert credit_blocked(task) == "the verifier runs 2 pytest commands, not one"


def test_the_flat_export_names_the_steps_and_their_modules(tmp_path: Path) -> None:
    run, rows = three_round_run(tmp_path)
    task = task_form(run.root / rows[-1].path, multi_step=False)
    keys = ["r0-seed0", "r1-touch", "r2-touch", "r3-touch"]
    assert task.config.metadata.model_extra == {"step_credit": keys}
    assert tomllib.loads(task.config.to_toml())["metadata"]["step_credit"] == keys
    plugin = task.text(CONFTEST)
    assert "'r0-seed0': None, 'r1-touch': ['test_step_r1s1.py']" in plugin
    assert task.text("tests/test.sh") == Task.load(run.root / rows[-1].path).text("tests/test.sh")  # as it was
