"""Every file-name convention of a task, on disk and inside the container, in one place."""

from __future__ import annotations

from pathlib import Path, PurePosixPath


class TaskPaths:
    """File layout of one Harbor-format task directory."""

    CONFIG = "task.toml"
    INSTRUCTION = "instruction.md"
    ENVIRONMENT_DIR = "environment"
    DOCKERFILE = "environment/Dockerfile"
    SOLUTION_DIR = "solution"
    SOLVE = "solution/solve.sh"
    TESTS_DIR = "tests"
    TEST_SH = "tests/test.sh"

    REQUIRED = (CONFIG, INSTRUCTION, DOCKERFILE, SOLVE, TEST_SH)
    CONTENT_DIRS = (ENVIRONMENT_DIR, SOLUTION_DIR, TESTS_DIR)

    # Inside the container (the Harbor runtime contract).
    CONTAINER_SOLUTION_DIR = PurePosixPath("/solution")
    CONTAINER_TESTS_DIR = PurePosixPath("/tests")
    CONTAINER_VERIFIER_LOGS = PurePosixPath("/logs/verifier")
    CONTAINER_AGENT_LOGS = PurePosixPath("/logs/agent")
    CONTAINER_REWARD_TXT = PurePosixPath("/logs/verifier/reward.txt")
    CONTAINER_REWARD_JSON = PurePosixPath("/logs/verifier/reward.json")
    CONTAINER_XTRACE_LOG = PurePosixPath("/logs/agent/rst-xtrace.log")

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def __truediv__(self, relative: str) -> Path:
        return self.root / relative

    @property
    def config_path(self) -> Path:
        return self.root / self.CONFIG

    @property
    def instruction_path(self) -> Path:
        return self.root / self.INSTRUCTION

    @property
    def environment_dir(self) -> Path:
        return self.root / self.ENVIRONMENT_DIR

    @property
    def dockerfile_path(self) -> Path:
        return self.root / self.DOCKERFILE

    @property
    def solution_dir(self) -> Path:
        return self.root / self.SOLUTION_DIR

    @property
    def solve_path(self) -> Path:
        return self.root / self.SOLVE

    @property
    def tests_dir(self) -> Path:
        return self.root / self.TESTS_DIR

    @property
    def test_sh_path(self) -> Path:
        return self.root / self.TEST_SH

    def test_files(self) -> list[Path]:
        """The pytest modules of the verifier."""
        return sorted(self.tests_dir.glob("test_*.py"))
