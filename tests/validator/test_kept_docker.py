"""Kept states on the real engine: a child's checks start from its parent's final state, a lost
state is made again, a rejected child's state goes, services come back, and a child's environment
additions are built on the parent's state; every verdict as validation from scratch gives it."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from rst_synth.proposers.child import Extension, assemble_child
from rst_synth.sandbox import Sandbox
from rst_synth.sandbox.images import STATE_REPO
from rst_synth.task import Task
from rst_synth.validator import Reason, ValidationReport, Validator, ValidatorConfig
from rst_synth.validator.kept import SERVICES_LABEL, state_tag
from tests.support import quality
from tests.support.docker import our_containers, run_async
from tests.support.tasks import write_task

pytestmark = pytest.mark.docker

KEPT = ValidatorConfig(keep_states=True)


@pytest.fixture(autouse=True)
def _remove_states() -> Iterator[None]:
    """The kept states this test made and the images built on them, newest first (the engine removes
    no image another is built on). Only those: the tests of other files, running beside this one,
    carry the same session label and use images of the same build contexts."""
    started = time.time() - 1
    yield
    api = docker.from_env().api
    made = [
        image
        for image in api.images(filters={"label": f"rst-synth.run={os.environ['RST_RUN_LABEL']}"})
        if int(image.get("Created") or 0) >= started
    ]
    states = {image["Id"] for image in made if any(t.startswith(f"{STATE_REPO}:") for t in image.get("RepoTags") or [])}
    for image in sorted(made, key=lambda image: -int(image.get("Created") or 0)):
        if image["Id"] not in states and not built_on(api, image["Id"], states):
            continue
        for tag in image.get("RepoTags") or []:
            try:
                api.remove_image(tag)
            except docker.errors.APIError:
                pass  # in use by another test's container: `rst gc` territory


def built_on(api: docker.APIClient, image_id: str, roots: set[str]) -> bool:
    """Whether `image_id`'s chain of parent images (the classic builder's) reaches one of `roots`."""
    while image_id:
        if image_id in roots:
            return True
        image_id = api.inspect_image(image_id).get("Parent") or ""
    return False


def image_labels(tag: str) -> dict[str, str] | None:
    async def labels(sandbox: Sandbox) -> dict[str, str] | None:
        return await sandbox.image_labels(tag)

    return run_async(labels)


def validate(config: ValidatorConfig, *pairs: tuple[Task, Task | None]) -> list[ValidationReport]:
    """Validate each (task, parent) in turn with one validator."""

    async def work(sandbox: Sandbox) -> list[ValidationReport]:
        validator = Validator(sandbox, config)
        return [await validator.validate(task, parent) for task, parent in pairs]

    return run_async(work)


def detail(report: ValidationReport, check: str) -> str:
    return report.result_of(check).detail


def test_a_childs_checks_start_from_its_parents_kept_state_which_is_made_again_when_lost(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    child = quality.child(
        parent, quality.writes("r1s1", "/app/a.txt", "first line"), quality.writes("r1s2", "/app/b.txt", "second line")
    )
    seed, first = validate(KEPT, (parent, None), (child, parent))
    assert seed.accepted and first.accepted, first.first_failure
    assert image_labels(state_tag(parent)) is not None
    assert image_labels(state_tag(child)) is not None  # accepted: kept for its own children
    assert "kept state" in detail(first, "parent") and "kept state" in detail(first, "determinism")
    assert detail(first, "steps") == "each of 2 new steps needed"

    docker.from_env().api.remove_image(state_tag(parent))
    (again,) = validate(KEPT, (child, parent))
    assert again.accepted and "kept state" in detail(again, "determinism")
    assert image_labels(state_tag(parent)) is not None  # made again from the parent's solution
    assert our_containers() == []


def test_a_rejected_child_gets_the_verdict_it_gets_from_scratch_and_leaves_no_state(tmp_path: Path) -> None:
    child, parent = quality.unnecessary(tmp_path)
    _, kept = validate(KEPT, (parent, None), (child, parent))
    (scratch,) = validate(ValidatorConfig(), (child, parent))
    assert kept.first_failure is not None and scratch.first_failure is not None
    assert kept.first_failure.reason is scratch.first_failure.reason is Reason.STEP_UNNECESSARY
    assert image_labels(state_tag(child)) is None


SERVE = (
    "mkdir -p /app/site && echo 'stock: 12 crates' > /app/site/stock.txt\n"
    "nohup python3 -m http.server 8123 --bind 127.0.0.1 --directory /app/site >/dev/null 2>&1 &\n"
    "for _ in $(seq 50); do python3 -c \"import urllib.request as u; u.urlopen('http://127.0.0.1:8123/stock.txt')\" "
    "2>/dev/null && break; sleep 0.1; done\n"
)
SERVED_TEST = """import urllib.request


def test_served():
    with urllib.request.urlopen("http://127.0.0.1:8123/stock.txt", timeout=5) as page:
        assert page.read().decode().strip() == "stock: 12 crates"
"""
FETCH = (
    'python3 -c "import urllib.request as u; '
    "open('/app/fetched.txt', 'w').write(u.urlopen('http://127.0.0.1:8123/stock.txt').read().decode().upper())\"\n"
)


def test_a_service_the_parent_left_running_is_started_again_and_its_parent_check_runs_in_full(
    tmp_path: Path,
) -> None:
    parent = Task.load(write_task(tmp_path, name="server", solve=SERVE, tests={"test_served.py": SERVED_TEST}))
    step = quality.step(
        "r1s1",
        FETCH,
        quality.reads_test("/app/fetched.txt", "STOCK: 12 CRATES"),
        "Fetch http://127.0.0.1:8123/stock.txt into /app/fetched.txt in capitals.",
    )
    child = quality.child(parent, step)
    seed, report = validate(KEPT, (parent, None), (child, parent))
    assert seed.accepted and report.accepted, report.first_failure
    labels = image_labels(state_tag(parent)) or {}
    assert "http.server" in labels.get(SERVICES_LABEL, "") and "8123" in labels.get(SERVICES_LABEL, "")
    assert "kept state" in detail(report, "determinism")  # the server came back for the new step
    assert "runs a service" in detail(report, "parent")


def test_a_childs_environment_additions_are_built_on_its_parents_state(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    step = quality.step(
        "r1s1",
        "tr a-z A-Z < /opt/extra/header.txt > /app/summary.txt\n",
        quality.reads_test("/app/summary.txt", quality.SUMMARY.upper()),
        "Write /opt/extra/header.txt in capitals to /app/summary.txt.",
    )
    extra = f"RUN mkdir -p /opt/extra && echo '{quality.SUMMARY}' > /opt/extra/header.txt"
    extension = Extension(steps=[step], dockerfile_append=extra)
    child = assemble_child(parent, extension, proposer="hand")
    _, report = validate(KEPT, (parent, None), (child, parent))
    assert report.accepted, report.first_failure
    assert "kept state" in detail(report, "determinism") and "kept state" in detail(report, "parent")
