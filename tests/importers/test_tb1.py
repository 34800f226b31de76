"""Terminal-Bench 1 import: TB1 task directories written for each test, converted in memory."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from rst_synth.importers.tb1 import convert_tb1, fetches_from_internet, python_requirements, uses_original_runner
from rst_synth.task import Task, TaskFormatError, TaskPaths
from rst_synth.validator.static import static_check

TB1_DOCKERFILE = (
    "FROM debian:bookworm-slim\n"
    "RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest"
    " && rm -rf /var/lib/apt/lists/*\n"
    "WORKDIR /app\n"
)
TB1_YAML = """\
instruction: |-
  Write the word hello to /app/out.txt.
author_name: Ada Lovelace
author_email: ada@example.com
difficulty: easy
category: file-operations
tags: [files, bash]
parser_name: pytest
max_agent_timeout_sec: 120
max_test_timeout_sec: 30
run_tests_in_same_shell: false
expert_time_estimate_min: 2
"""
COMPOSE = """\
services:
  client:
    build:
      dockerfile: Dockerfile
    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}
    container_name: ${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}
    command: [ "sh", "-c", "sleep infinity" ]
    environment:
      - TEST_DIR=${T_BENCH_TEST_DIR}
      - GREETING=hello
    volumes:
      - ${T_BENCH_TASK_LOGS_PATH}:${T_BENCH_CONTAINER_LOGS_PATH}
"""
OFFLINE_RUN_TESTS = "#!/bin/bash\npython3 -m pytest -rA $TEST_DIR/test_outputs.py\n"
UV_RUN_TESTS = """\
#!/bin/bash
apt-get update && apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh
source $HOME/.local/bin/env
uv init && uv add pytest==8.4.1 pandas==2.2.3
uv run pytest $TEST_DIR/test_outputs.py -rA
"""
TEST_OUTPUTS = """\
from pathlib import Path


def test_greeting():
    assert Path("/app/out.txt").read_text().strip() == "hello"
"""


def write_tb1(
    root: Path,
    name: str = "hello-tb1",
    *,
    task_yaml: str = TB1_YAML,
    solution: str | None = "#!/bin/bash\necho hello > /app/out.txt\n",
    run_tests: str = OFFLINE_RUN_TESTS,
    dockerfile: str = TB1_DOCKERFILE,
    compose: str | None = COMPOSE,
    extra: dict[str, str] | None = None,
) -> Path:
    """A TB1-layout task directory under `root/name`; `extra` adds files by relative path."""
    task = root / name
    (task / "tests").mkdir(parents=True)
    (task / "task.yaml").write_text(task_yaml)
    (task / "Dockerfile").write_text(dockerfile)
    (task / "run-tests.sh").write_text(run_tests)
    (task / "tests" / "test_outputs.py").write_text(TEST_OUTPUTS)
    if solution is not None:
        (task / "solution.sh").write_text(solution)
    if compose is not None:
        (task / "docker-compose.yaml").write_text(compose)
    for rel, body in (extra or {}).items():
        (task / rel).parent.mkdir(parents=True, exist_ok=True)
        (task / rel).write_text(body)
    return task


def reason(src: Path) -> str:
    with pytest.raises(TaskFormatError) as info:
        convert_tb1(src)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_normal_task_maps_to_the_harbor_layout(tmp_path: Path) -> None:
    src = write_tb1(tmp_path, extra={"data/input.txt": "x\n", "tests/helpers.py": "X = 1\n"})
    task = convert_tb1(src)
    assert task.name == "tb1/hello-tb1"
    assert task.instruction == "Write the word hello to /app/out.txt.\n"
    assert sorted(task.files) == [
        "environment/Dockerfile",
        "environment/data/input.txt",
        "solution/solve.sh",
        "tests/helpers.py",
        "tests/run-tests.sh",
        "tests/test.sh",
        "tests/test_outputs.py",
    ]
    assert task.text(TaskPaths.SOLVE) == (src / "solution.sh").read_text()
    assert task.text("tests/run-tests.sh") == OFFLINE_RUN_TESTS
    assert uses_original_runner(task)
    assert task.config.agent.timeout_sec == 120 and task.config.verifier.timeout_sec == 30
    assert task.config.environment.network_mode == "no-network"
    assert static_check(task).passed


def test_test_sh_wraps_run_tests_and_writes_the_reward(tmp_path: Path) -> None:
    test_sh = convert_tb1(write_tb1(tmp_path)).text(TaskPaths.TEST_SH)
    assert "export TEST_DIR=/tests" in test_sh
    assert "bash $TEST_DIR/run-tests.sh" in test_sh
    assert "echo 1 > /logs/verifier/reward.txt" in test_sh and "echo 0 > /logs/verifier/reward.txt" in test_sh
    assert subprocess.run(["bash", "-n"], input=test_sh, text=True, check=False).returncode == 0


def test_compose_environment_becomes_env_lines_without_harness_variables(tmp_path: Path) -> None:
    dockerfile = convert_tb1(write_tb1(tmp_path)).dockerfile
    assert dockerfile.startswith(TB1_DOCKERFILE)
    assert 'ENV GREETING="hello"' in dockerfile
    assert "TEST_DIR" not in dockerfile and "T_BENCH" not in dockerfile


def test_metadata_and_unknown_keys_survive_save_and_load(tmp_path: Path) -> None:
    out = convert_tb1(write_tb1(tmp_path)).save(tmp_path / "out" / "hello-tb1")
    metadata = Task.load(out).config.metadata
    assert (metadata.difficulty, metadata.category, metadata.tags) == ("easy", "file-operations", ["files", "bash"])
    dumped = metadata.model_dump()
    assert (dumped["author_name"], dumped["author_email"]) == ("Ada Lovelace", "ada@example.com")
    assert dumped["tb1"] == {"parser_name": "pytest", "run_tests_in_same_shell": False, "expert_time_estimate_min": 2}
    assert os.access(out / TaskPaths.TEST_SH, os.X_OK) and os.access(out / "tests" / "run-tests.sh", os.X_OK)


def test_older_descriptions_form_gives_the_base_instruction(tmp_path: Path) -> None:
    task_yaml = (
        "descriptions:\n  - key: base\n    description: Do the base thing.\n"
        "  - key: hard\n    description: Do the hard thing.\n"
    )
    task = convert_tb1(write_tb1(tmp_path, task_yaml=task_yaml))
    assert task.instruction == "Do the base thing.\n"
    assert task.config.metadata.model_dump()["tb1"]["descriptions"][1]["key"] == "hard"
    assert task.config.agent.timeout_sec == 360 and task.config.verifier.timeout_sec == 60  # TB1's defaults


def test_run_tests_fetching_from_the_internet_becomes_offline_pytest(tmp_path: Path) -> None:
    task = convert_tb1(write_tb1(tmp_path, run_tests=UV_RUN_TESTS))
    test_sh = task.text(TaskPaths.TEST_SH)
    assert "python3 -m pytest -rA" in test_sh and "$TEST_DIR/test_outputs.py" in test_sh
    assert not uses_original_runner(task)
    assert task.text("tests/run-tests.sh") == UV_RUN_TESTS  # the original is kept for reference
    added = task.dockerfile.removeprefix(TB1_DOCKERFILE)
    assert "apt-get install -y --no-install-recommends python3 python3-pytest python3-pip" in added
    assert "pip install --no-cache-dir pandas==2.2.3" in added
    assert "curl" not in added and "uv" not in added.split()


def test_offline_pytest_on_a_python_base_uses_pip_and_restores_the_user(tmp_path: Path) -> None:
    dockerfile = "FROM python:3.13-slim-bookworm\nRUN useradd -m agent\nUSER agent\nWORKDIR /app\n"
    run_tests = "#!/bin/bash\npip install pytest\npytest $TEST_DIR/test_outputs.py\n"
    added = convert_tb1(write_tb1(tmp_path, dockerfile=dockerfile, run_tests=run_tests, compose=None)).dockerfile
    lines = added.removeprefix(dockerfile).splitlines()
    assert lines[1:] == [
        "USER root",
        "RUN PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --no-cache-dir pytest",
        "USER agent",
    ]


def test_offline_pytest_without_test_outputs_runs_every_test_module(tmp_path: Path) -> None:
    src = write_tb1(tmp_path, run_tests=UV_RUN_TESTS, extra={"tests/test_more.py": TEST_OUTPUTS})
    (src / "tests" / "test_outputs.py").unlink()
    assert "$TEST_DIR/test_*.py" in convert_tb1(src).text(TaskPaths.TEST_SH)


def test_solution_that_downloads_gets_network(tmp_path: Path) -> None:
    solution = "#!/bin/bash\npip install requests\npython3 -c 'import requests'\n"
    assert convert_tb1(write_tb1(tmp_path, solution=solution)).config.environment.network_mode == "public"


def test_no_compose_file_uses_the_dockerfile(tmp_path: Path) -> None:
    assert convert_tb1(write_tb1(tmp_path, compose=None)).dockerfile == TB1_DOCKERFILE


def test_solution_yaml_is_not_supported(tmp_path: Path) -> None:
    src = write_tb1(tmp_path, solution=None, extra={"solution.yaml": "- command: echo hi\n"})
    assert reason(src) == f"{src / 'solution.yaml'}: tmux command-list solutions are not supported; only solution.sh"


def test_two_compose_services_are_not_supported(tmp_path: Path) -> None:
    compose = COMPOSE + "  db:\n    image: postgres:16\n"
    src = write_tb1(tmp_path, compose=compose)
    message = reason(src)
    assert message.startswith(f"{src / 'docker-compose.yaml'}: 2 services (client, db)")


def test_build_context_outside_the_task_is_not_supported(tmp_path: Path) -> None:
    compose = COMPOSE.replace("      dockerfile: Dockerfile\n", "      context: ${T_BENCH_REPO_ROOT}\n")
    assert "build context" in reason(write_tb1(tmp_path, compose=compose))


def test_missing_task_yaml_is_one_line_naming_it(tmp_path: Path) -> None:
    src = write_tb1(tmp_path)
    (src / "task.yaml").unlink()
    assert reason(src) == f"{src / 'task.yaml'}: missing required file"


@pytest.mark.parametrize(
    ("task_yaml", "expected"),
    [
        ("instruction: [unclosed\n", "task.yaml: invalid YAML"),
        ("- a list\n", "task.yaml: not a YAML mapping"),
        ("difficulty: easy\n", "task.yaml: no instruction"),
        ("instruction: hi\nmax_test_timeout_sec: soon\n", "task.yaml: max_test_timeout_sec: must be a positive number"),
    ],
)
def test_bad_task_yaml_is_one_line_naming_it(tmp_path: Path, task_yaml: str, expected: str) -> None:
    assert expected in reason(write_tb1(tmp_path, task_yaml=task_yaml))


def test_missing_run_tests_and_dockerfile_are_named(tmp_path: Path) -> None:
    src = write_tb1(tmp_path)
    (src / "run-tests.sh").unlink()
    assert reason(src) == f"{src / 'run-tests.sh'}: missing required file"
    (src / "run-tests.sh").write_text(OFFLINE_RUN_TESTS)
    (src / "Dockerfile").unlink()
    assert reason(src) == f"{src / 'Dockerfile'}: missing required file"


def test_fetch_detection_ignores_comments() -> None:
    assert fetches_from_internet("source $TEST_DIR/setup-uv-pytest.sh\n")
    assert fetches_from_internet("wget -q https://example.com/x\n")
    assert not fetches_from_internet("# curl was needed once\npython3 -m pytest $TEST_DIR/test_outputs.py\n")


def test_python_requirements_keep_pins_and_skip_flags() -> None:
    script = "uv add pytest==8.4.1 'numpy>=1.26' -r reqs.txt > log\npip install --index-url http://x requests\n"
    assert python_requirements(script) == ["pytest==8.4.1", "numpy>=1.26", "requests"]
