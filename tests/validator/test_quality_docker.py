"""The quality checks against the real Docker engine: each reason on a tiny child written for it,
and a good child accepted with every edit of its output noticed."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.task import Task
from rst_synth.validator import QUALITY_CHECKS, Reason, ValidationReport, Validator, ValidatorConfig, Verdict
from tests.support import quality
from tests.support.docker import our_containers, run_async
from tests.support.tasks import BASE_DOCKERFILE

pytestmark = pytest.mark.docker


def validate(task: Task, parent: Task) -> ValidationReport:
    return run_async(lambda sandbox: Validator(sandbox, ValidatorConfig()).validate(task, parent))


def test_a_good_child_is_accepted_and_its_output_restored(tmp_path: Path) -> None:
    child, parent = quality.good(tmp_path)
    report = validate(child, parent)
    assert report.accepted, report.first_failure
    assert [report.result_of(c.value).verdict for c in QUALITY_CHECKS] == [Verdict.PASS] * len(QUALITY_CHECKS)
    assert report.figures.kill_rate == 1.0
    assert our_containers() == []


@pytest.mark.parametrize("reason", sorted(quality.CASES))
def test_each_reason_rejects_the_child_written_for_it(tmp_path: Path, reason: str) -> None:
    child, parent = quality.CASES[reason](tmp_path)
    report = validate(child, parent)
    failure = report.first_failure
    assert failure is not None and failure.reason is Reason(reason), [c.model_dump() for c in report.checks]
    assert "/app/" in failure.detail or "step r1s2" in failure.detail


def test_the_header_only_table_with_varying_rows_is_accepted(tmp_path: Path) -> None:
    """The degenerate_output case above, its table given rows whose counts differ."""
    child, parent = quality.varying(tmp_path)
    report = validate(child, parent)
    assert report.accepted, report.first_failure
    assert report.result_of("degenerate").detail.startswith("1 of 1 new output(s) judged")
    assert our_containers() == []


def test_mutations_run_as_root_while_the_tests_run_as_the_images_user(tmp_path: Path) -> None:
    """The image's USER wrote the output; copies and restores work, and the tests still pass after."""
    dockerfile = BASE_DOCKERFILE + "RUN useradd -m agent && chown agent /app\nUSER agent\n"
    parent = quality.parent(tmp_path)
    (tmp_path / "parent" / "environment" / "Dockerfile").write_text(dockerfile)
    parent = Task.load(tmp_path / "parent")
    child = quality.child(parent, quality.writes("r1s1", "/app/summary.txt", quality.SUMMARY))
    report = validate(child, parent)
    assert report.accepted, report.first_failure
    assert report.figures.kill_rate == 1.0
