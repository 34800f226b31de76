"""When the mutation check may judge an edit by the new test modules alone."""

from __future__ import annotations

from rst_synth.validator.mutation import modules_command

FOLDER = "python3 -m pytest -q -rA -p no:cacheprovider /tests"
NAMED = "python3 -m pytest -q /tests/test_outputs.py /tests/test_step_r1s1.py"
NEW = ["/tests/test_step_r1s1.py"]


def test_a_verifier_that_runs_the_folder_or_names_the_modules_allows_the_quick_run() -> None:
    quick = modules_command(FOLDER, NEW, 60)
    assert quick is not None and quick.endswith("-x -p no:cacheprovider /tests/test_step_r1s1.py")
    assert "timeout -k 5 60 " in quick
    assert modules_command(NAMED, NEW, 60) is not None


def test_a_verifier_that_selects_tests_or_skips_a_module_does_not() -> None:
    assert modules_command(NAMED, ["/tests/test_step_r2s1.py"], 60) is None  # not among the modules it runs
    assert modules_command(FOLDER + " -k 'not slow'", NEW, 60) is None
    assert modules_command(FOLDER + " --deselect /tests/test_step_r1s1.py::test_a", NEW, 60) is None
    assert modules_command("bash /tests/run.sh", NEW, 60) is None  # no pytest it can see
    assert modules_command(FOLDER, [], 60) is None
