"""The Harbor tasks written for the tests (tests/fixtures/harbor), one per test.sh shape found in the
wild, and scripted model replies that extend any of them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from rst_synth.importers.harbor import convert_harbor
from rst_synth.task import Task
from tests.support.fake_server import Reply
from tests.support.llm_proposer import fence, stage_of
from tests.support.tasks import REPO

FIXTURES = REPO / "tests" / "fixtures" / "harbor"

SHAPES = {
    "named-file": "names one file: `python3 -m pytest -q -rA /tests/test_outputs.py`",
    "folder-run": "runs the folder: `cd /tests; pytest /tests`",
    "uv-at-test-time": "installs uv at test time: `curl .../uv/install.sh` piped to sh, `uvx -w pytest pytest ...`",
    "reward-json": "writes /logs/verifier/reward.json",
    "ctrf-report": "CTRF report (`uvx -w pytest-json-ctrf ... --ctrf`), reward read from it",
    "pytest-plugins": "pytest plugins: `pip install uv; uv run --with pytest-timeout pytest --timeout 60`, conftest",
    "workdir-srv": "WORKDIR /srv/ledger",
    "non-root-user": "non-root USER dev",
    "tests-read-files": "tests read tests/bands.json beside them (`cd /tests; pytest test_outputs.py`)",
}
"""Fixture -> the test.sh shape it stands for."""

UNCONVERTIBLE = {
    "needs-gpu": "task.toml: [environment].gpus = 1: the task needs a GPU",
    "two-services": "environment/docker-compose.yaml: 2 services (main, db)",
    "prebuilt-image": "task.toml: [environment].docker_image 'registry.invalid/rst-fixtures/prebuilt:1' cannot be",
}
"""Fixture -> the start of the one line that says why it is skipped."""

OUTPUTS = {
    "named-file": "/app/status_counts.csv",
    "folder-run": "/app/summary.json",
    "uv-at-test-time": "/app/revenue.csv",
    "reward-json": "/app/sensor_means.csv",
    "ctrf-report": "/app/app.json",
    "pytest-plugins": "/app/word_freq.csv",
    "workdir-srv": "/srv/ledger/balances.csv",
    "non-root-user": "/home/dev/work/per_user.json",
    "tests-read-files": "/app/price_bands.csv",
}
"""Fixture -> the file its reference solution writes."""

FETCHING = ("uv-at-test-time", "ctrf-report", "pytest-plugins")
"""The fixtures whose test.sh fetches at test time (they need --offline)."""


def no_wheels(requirements: list[str], python: str) -> dict[str, bytes]:
    """Unit tests import offline without reaching the package index: no wheel files."""
    return {}


def import_fixture(name: str, *, offline: bool = True, **options: Any) -> Task:
    """A fixture converted in memory; with no wheels unless `fetch_wheels` says otherwise."""
    options.setdefault("fetch_wheels", no_wheels)
    return convert_harbor(FIXTURES / name, offline=offline, **options)


def fingerprint_replies(output: str) -> Callable[[dict[str, Any]], Reply]:
    """A scripted model for any fixture: generation N writes llm_digest_N.txt beside `output`, with the
    sha256 and newline count of `output` and the sha256 of llm_digest_(N-1).txt ("none" for the first),
    so each generation's file is new work; its tests check exactly that file."""
    directory = str(PurePosixPath(output).parent)

    def respond(request: dict[str, Any]) -> Reply:
        stage = stage_of(request)
        prompt = request["messages"][-1]["content"]
        if stage == "extend":
            steps = (
                f"n=$(find {directory} -maxdepth 1 -name 'llm_digest_*.txt' | wc -l)\n"
                f'digest="{directory}/llm_digest_$((n + 1)).txt"\n'
                f'sha256sum {output} | cut -c1-64 > "$digest"\n'
                f"tr -cd '\\n' < {output} | wc -c | tr -d ' ' >> \"$digest\"\n"
                'if [ "$n" -gt 0 ]; then\n'
                f'  sha256sum "{directory}/llm_digest_$n.txt" | cut -c1-64 >> "$digest"\n'
                "else\n"
                '  echo none >> "$digest"\n'
                "fi\n"
            )
            return Reply(content=fence("bash", "solution/steps.sh", steps), usage=(900, 120))
        match = re.search(r"new test module, `?(tests/test_step_r(\d+)\w*\.py)", prompt, flags=re.IGNORECASE)
        if match is None:
            raise AssertionError(f"{stage}: the prompt names no new test module")
        test_path, generation = match.group(1), int(match.group(2))
        digest, previous = f"{directory}/llm_digest_{generation}.txt", f"{directory}/llm_digest_{generation - 1}.txt"
        if stage in ("realign_tests", "repair"):
            before = f"hashlib.sha256(Path({previous!r}).read_bytes()).hexdigest()" if generation > 1 else '"none"'
            tests = (
                "import hashlib\nfrom pathlib import Path\n\n"
                f"OUTPUT = Path({output!r})\nDIGEST = Path({digest!r})\n\n\n"
                f"def test_fingerprint_of_output_r{generation}():\n"
                "    lines = DIGEST.read_text().splitlines()\n"
                "    assert lines[0] == hashlib.sha256(OUTPUT.read_bytes()).hexdigest()\n"
                '    assert int(lines[1]) == OUTPUT.read_bytes().count(b"\\n")\n'
                f"    assert lines[2] == {before}\n"
            )
            return Reply(content=fence("python", test_path, tests), usage=(1100, 150))
        first = "`none`" if generation == 1 else f"the SHA-256 hex digest of `{previous}`"
        addendum = (
            f"Then record a fingerprint of `{output}` in `{digest}`: on its first line the SHA-256 hex digest of "
            f"that file, on its second line the number of newline characters it contains, on its third line {first}.\n"
        )
        return Reply(content=fence("markdown", "instruction_addendum.md", addendum), usage=(800, 60))

    return respond


def fixture_names() -> list[str]:
    return sorted(SHAPES)


def fixture_path(name: str) -> Path:
    return FIXTURES / name
