"""`convert_harbor`: Harbor tasks as seeds, each change recorded, the unconvertible ones one line each."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rst_synth.importers.harbor import WHEELS_DIR, convert_harbor, import_record
from rst_synth.importers.tb1 import fetches_from_internet
from rst_synth.task import Task, TaskFormatError, TaskPaths
from rst_synth.task.shell import logical_lines
from tests.support.harbor import harbor_python
from tests.support.harbor_fixtures import FETCHING, FIXTURES, SHAPES, UNCONVERTIBLE, fixture_path, import_fixture


def code_lines(script: str) -> list[str]:
    return [line.joined for line in logical_lines(script) if line.code]


def reward_logic(script: str) -> list[str]:
    """The lines that turn the test run into a reward: those that test its status or write the reward
    file, and here-document bodies (the CTRF fixture computes its reward in one)."""
    return [
        line.text
        for line in logical_lines(script)
        if "/logs/verifier/reward" in line.text
        or "$?" in line.text
        or (not line.code and line.text.strip() and not line.text.lstrip().startswith("#"))
    ]


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_shape_converts_and_records_what_changed(name: str) -> None:
    task = import_fixture(name)
    record = import_record(task)
    assert record is not None and record.origin == name and record.offline
    assert task.name == f"harbor/{name}"
    assert task.config.environment.memory_mb == 1024 and "memory" not in (task.config.environment.model_extra or {})
    assert "task.toml: [environment].memory = '1G' -> memory_mb = 1024" in record.changes
    source = (fixture_path(name) / TaskPaths.TEST_SH).read_text()
    test_sh = task.text(TaskPaths.TEST_SH)
    assert not any(fetches_from_internet(line) for line in code_lines(test_sh))
    # The reward logic is the source's, line for line.
    assert reward_logic(test_sh) == reward_logic(source) != []
    assert (test_sh == source) == (name not in FETCHING)


def test_uv_at_test_time_runs_the_baked_pytest(tmp_path: Path) -> None:
    fetched: list[tuple[list[str], str]] = []

    def wheels(requirements: list[str], python: str) -> dict[str, bytes]:
        fetched.append((requirements, python))
        return {"pytest-8.4.1-py3-none-any.whl": b"wheel"}

    task = import_fixture("uv-at-test-time", fetch_wheels=wheels)
    assert fetched == [(["pytest==8.4.1"], "3.11")]  # pinned by `-w`, for bookworm's python3
    code = code_lines(task.text(TaskPaths.TEST_SH))
    assert "python3 -m pytest /tests/test_outputs.py -rA" in code
    assert not any("uv" in line.split() or "curl" in line for line in code)
    assert task.files[f"environment/{WHEELS_DIR}/pytest-8.4.1-py3-none-any.whl"] == b"wheel"
    added = task.dockerfile.removeprefix((fixture_path("uv-at-test-time") / TaskPaths.DOCKERFILE).read_text())
    assert f"COPY {WHEELS_DIR} /tmp/{WHEELS_DIR}" in added
    assert f"--no-index --find-links /tmp/{WHEELS_DIR} pytest==8.4.1" in added
    assert "curl" not in added  # only the dropped uv installer used it
    record = import_record(task)
    assert record is not None
    assert any("apt package curl not baked" in change for change in record.changes)
    assert any("uv asked for Python 3.11" in change for change in record.changes)
    saved = Task.load(task.save(tmp_path / "out"))
    assert subprocess.run(["bash", "-n", str(saved.source_dir / TaskPaths.TEST_SH)]).returncode == 0  # type: ignore[operator]


def test_ctrf_and_plugins_bake_their_plugins() -> None:
    seen: list[list[str]] = []

    def wheels(requirements: list[str], python: str) -> dict[str, bytes]:
        seen.append(requirements)
        return {}

    import_fixture("ctrf-report", fetch_wheels=wheels)
    import_fixture("pytest-plugins", fetch_wheels=wheels)
    assert seen == [["pytest==8.4.1", "pytest-json-ctrf==0.3.5"], ["pytest", "pytest-timeout"]]


def test_without_offline_a_fetching_verifier_is_kept_and_flagged() -> None:
    task = import_fixture("uv-at-test-time", offline=False)
    assert task.text(TaskPaths.TEST_SH) == (fixture_path("uv-at-test-time") / TaskPaths.TEST_SH).read_text()
    record = import_record(task)
    assert record is not None and not record.offline
    assert any("fetches at test time" in note and "--offline" in note for note in record.notes)


@pytest.mark.parametrize("name", sorted(UNCONVERTIBLE))
def test_unconvertible_tasks_say_why_in_one_line(name: str) -> None:
    def cannot_pull(image: str) -> str:
        return "no such host"

    with pytest.raises(TaskFormatError) as caught:
        import_fixture(name, image_problem=cannot_pull)
    where = caught.value.path.relative_to(FIXTURES / name).as_posix()
    message = f"{where}: {caught.value.problem}"
    assert message.startswith(UNCONVERTIBLE[name]) and "\n" not in message


def test_a_pullable_prebuilt_image_becomes_the_dockerfile() -> None:
    task = import_fixture("prebuilt-image", image_problem=lambda image: None)
    assert task.dockerfile == "FROM registry.invalid/rst-fixtures/prebuilt:1\n"
    assert "docker_image" not in (task.config.environment.model_extra or {})


def test_docker_image_beside_a_dockerfile_is_dropped_for_the_build(tmp_path: Path) -> None:
    src = shutil.copytree(FIXTURES / "named-file", tmp_path / "named-file")
    toml = (src / "task.toml").read_text().replace("cpus = 1\n", 'cpus = 1\ndocker_image = "example/prebuilt:1"\n')
    (src / "task.toml").write_text(toml)
    task = convert_harbor(src, image_problem=lambda image: "must not be asked")
    assert "docker_image" not in (task.config.environment.model_extra or {})
    record = import_record(task)
    assert record is not None and any("docker_image 'example/prebuilt:1' removed" in c for c in record.changes)


def test_base_replaces_every_from_but_a_stage_name(tmp_path: Path) -> None:
    src = shutil.copytree(FIXTURES / "named-file", tmp_path / "named-file")
    (src / "environment" / "Dockerfile").write_text(
        "FROM golang:1.22 AS build\nRUN true\nFROM --platform=linux/amd64 python:3.12-slim\n"
        "COPY --from=build /x /x\nFROM build AS again\n"
    )
    task = convert_harbor(src, base="debian:bookworm-slim")
    assert task.dockerfile == (
        "FROM debian:bookworm-slim AS build\nRUN true\nFROM --platform=linux/amd64 debian:bookworm-slim\n"
        "COPY --from=build /x /x\nFROM build AS again\n"
    )
    record = import_record(task)
    assert record is not None and record.base == "debian:bookworm-slim"
    assert "environment/Dockerfile: FROM python:3.12-slim -> FROM debian:bookworm-slim (--base)" in record.changes


def test_verifier_and_environment_variables_are_set_where_validation_runs(tmp_path: Path) -> None:
    src = shutil.copytree(FIXTURES / "named-file", tmp_path / "named-file")
    toml = (src / "task.toml").read_text()
    toml = toml.replace("[verifier]\n", '[verifier]\nenv = { MODE = "strict", LEVEL = "${LEVEL:-3}" }\n')
    (src / "task.toml").write_text(toml + 'env = { LANG = "C.UTF-8" }\n')
    task = convert_harbor(src)
    assert task.text(TaskPaths.TEST_SH).startswith("#!/bin/bash\nexport MODE='strict'\nexport LEVEL='3'\n")
    assert task.dockerfile.endswith('ENV LANG="C.UTF-8"\n')

    (src / "task.toml").write_text(toml.replace("${LEVEL:-3}", "${API_KEY}"))
    with pytest.raises(TaskFormatError, match=r"\[verifier\]\.env\.LEVEL needs the host's \$API_KEY"):
        convert_harbor(src)


@pytest.mark.parametrize(
    "line, problem",
    [
        ("uv sync", "needs the uv project's index"),
        ("curl -sSL https://example.com/data.csv -o /tmp/data.csv", "fetches at test time"),
        ("uvx ruff check /app", "runs ruff through uv"),
    ],
)
def test_a_fetch_offline_cannot_bake_skips_the_task(tmp_path: Path, line: str, problem: str) -> None:
    src = shutil.copytree(FIXTURES / "named-file", tmp_path / "named-file")
    (src / "tests" / "test.sh").write_text(f"#!/bin/bash\n{line}\npython3 -m pytest /tests/test_outputs.py\n")
    with pytest.raises(TaskFormatError, match=problem) as caught:
        convert_harbor(src, offline=True)
    assert caught.value.path == src / TaskPaths.TEST_SH and "line 2" in caught.value.problem


def test_local_curl_and_a_requirements_file_stay_offline(tmp_path: Path) -> None:
    src = shutil.copytree(FIXTURES / "named-file", tmp_path / "named-file")
    (src / "tests" / "requirements.txt").write_text("pytest==8.4.1\n# a comment\nrequests>=2\n")
    (src / "tests" / "test.sh").write_text(
        "#!/bin/bash\npip3 install -r /tests/requirements.txt && curl -s http://localhost:8080/health\n"
        "pytest /tests/test_outputs.py && echo 1 > /logs/verifier/reward.txt\n"
    )
    seen: list[list[str]] = []
    task = convert_harbor(src, offline=True, fetch_wheels=lambda reqs, python: seen.append(reqs) or {})
    assert seen == [["pytest==8.4.1", "requests>=2"]]
    assert "true && curl -s http://localhost:8080/health" in code_lines(task.text(TaskPaths.TEST_SH))


def test_a_folder_of_tasks_and_missing_files(tmp_path: Path) -> None:
    src = shutil.copytree(FIXTURES / "named-file", tmp_path / "broken")
    (src / "solution" / "solve.sh").unlink()
    with pytest.raises(TaskFormatError, match="missing required file") as caught:
        convert_harbor(src)
    assert caught.value.path == src / TaskPaths.SOLVE


@pytest.mark.slow
def test_harbor_itself_loads_the_fixtures_and_what_the_import_writes(tmp_path: Path) -> None:
    """Harbor's own task model (from .venv-harbor) reads every fixture and every imported task."""
    python = harbor_python()
    for name in sorted(SHAPES):
        import_fixture(name).save(tmp_path / name)
    script = (
        "import sys\nfrom pathlib import Path\nfrom harbor.models.task.task import Task\n"
        "for arg in sys.argv[1:]:\n    task = Task(Path(arg))\n    print(task.config.task.name if task.config.task "
        "else Path(arg).name, task.config.environment.memory_mb)\n"
    )
    dirs = [str(FIXTURES / n) for n in sorted(SHAPES)] + [str(tmp_path / n) for n in sorted(SHAPES)]
    result = subprocess.run([str(python), "-c", script, *dirs], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert lines[len(SHAPES) :] == [f"harbor/{n} 1024" for n in sorted(SHAPES)]
