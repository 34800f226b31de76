"""The soak: 1,000 candidates through the engine on the fakes, and a few on the real engine: no
container left, memory that does not grow with the run, and a store that matches the disk.
bench/soak.py runs the same with larger counts and prints the figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.sandbox import make_sandbox
from tests.support.docker import our_containers
from tests.support.fakes import FakeSandbox
from tests.support.soak import soak, write_seeds

pytestmark = pytest.mark.slow


def test_1000_candidates_on_the_fakes(tmp_path: Path) -> None:
    sandbox = FakeSandbox()
    result = soak(tmp_path / "run", write_seeds(tmp_path, 10), sandbox, total=1000, marks=(100, 1000))
    print(result)
    assert result.candidates == 1000 and result.errors == 0
    assert result.accepted > 700 and result.rejected > 100  # every fifth child is broken
    assert result.store_and_disk_agree
    assert sandbox.live == 0 and sandbox.containers >= 2 * result.candidates
    assert result.rss_mb[1000] - result.rss_mb[100] < 60  # bounded by what the run holds, not by leaks


@pytest.mark.docker
def test_candidates_on_the_real_engine(tmp_path: Path) -> None:
    sandbox = make_sandbox("docker")
    result = soak(tmp_path / "run", write_seeds(tmp_path, 2), sandbox, total=4, marks=(4,), workers=2)
    print(result)
    assert result.candidates == 4 and result.errors == 0 and result.store_and_disk_agree
    assert not our_containers()
