"""Tiny Harbor tasks written for a test."""

from __future__ import annotations

from pathlib import Path

from rst_synth.task import Task

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "examples" / "seeds"

# Same first lines as the bundled seeds, so the test images reuse their cached layers.
BASE_DOCKERFILE = (
    "FROM debian:bookworm-slim\n"
    "RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest"
    " && rm -rf /var/lib/apt/lists/*\n"
    "WORKDIR /app\n"
)
TEST_SH = """#!/bin/bash
mkdir -p /logs/verifier
if python3 -m pytest -q -p no:cacheprovider /tests; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
"""
GREETING_TEST = """from pathlib import Path

def test_greeting():
    assert Path("/app/out.txt").read_text().strip() == "hello"
"""


def write_task(
    root: Path,
    *,
    name: str = "tiny",
    solve: str = "echo hello > /app/out.txt\n",
    tests: dict[str, str] | None = None,
    test_sh: str = TEST_SH,
    dockerfile: str = BASE_DOCKERFILE,
    instruction: str = "Write the word hello to /app/out.txt.\n",
    toml_extra: str = "",
) -> Path:
    """A minimal Harbor task directory under `root/name`."""
    task = root / name
    (task / "environment").mkdir(parents=True)
    (task / "solution").mkdir()
    (task / "tests").mkdir()
    (task / "task.toml").write_text(
        f'schema_version = "1.4"\n[task]\nname = "test/{name}"\n'
        f"[verifier]\ntimeout_sec = 60\n[agent]\ntimeout_sec = 60\n{toml_extra}"
    )
    (task / "instruction.md").write_text(instruction)
    (task / "environment" / "Dockerfile").write_text(dockerfile)
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\nset -e\n" + solve)
    (task / "tests" / "test.sh").write_text(test_sh)
    for rel, body in (tests or {"test_outputs.py": GREETING_TEST}).items():
        (task / "tests" / rel).write_text(body)
    return task


def load(path: Path) -> Task:
    return Task.load(path)
