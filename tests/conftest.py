"""Fixtures and the Docker policy: tests marked `docker` need the real engine. Outside CI they are
skipped, with the reason, when no engine answers; on CI (CI=true) a missing engine is a failure."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.docker import engine_answers, our_containers
from tests.support.tasks import write_task

# Containers of this test session (and of the CLI subprocesses it starts) carry this label, so
# the checks below see only our own, whatever else runs on the engine.
os.environ["RST_RUN_LABEL"] = f"pytest-{uuid.uuid4().hex[:12]}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    needs_docker = [item for item in items if item.get_closest_marker("docker")]
    if not needs_docker or engine_answers():
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        reason = "no Docker engine answers, and on CI that is a failure: scripts/setup-machine.sh starts one"
        for item in needs_docker:
            item.add_marker(pytest.mark.usefixtures("_docker_required"))
        config.stash[_MISSING_ENGINE] = reason
        return
    skip = pytest.mark.skip(reason="no Docker engine answers (run scripts/setup-machine.sh to start one)")
    for item in needs_docker:
        item.add_marker(skip)


_MISSING_ENGINE = pytest.StashKey[str]()


@pytest.fixture
def _docker_required(request: pytest.FixtureRequest) -> None:
    pytest.fail(request.config.stash[_MISSING_ENGINE], pytrace=False)


@pytest.fixture
def task_factory(tmp_path: Path) -> Callable[..., Path]:
    def make(**kwargs: object) -> Path:
        return write_task(tmp_path, **kwargs)  # type: ignore[arg-type]

    return make


@pytest.fixture(scope="session", autouse=True)
def no_container_left_behind(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the suite, no container of ours may remain (only checked when Docker tests ran)."""
    yield
    ran_docker = any(
        item.get_closest_marker("docker") and not item.get_closest_marker("skip") for item in request.session.items
    )
    if ran_docker and engine_answers():
        leaked = our_containers()
        assert not leaked, f"containers left behind: {leaked}"
