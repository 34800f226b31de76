"""Import a Terminal-Bench 1 task (task.yaml, solution.sh, run-tests.sh, docker-compose.yaml).

The result is an in-memory Harbor-layout `Task`; anything we cannot express raises one
TaskFormatError line naming the file at fault.
"""

from __future__ import annotations

import json
import re
import shlex
import stat
from pathlib import Path
from typing import Any

import yaml

from rst_synth.task.config import AgentConfig, EnvironmentConfig, Metadata, TaskConfig, TaskInfo, VerifierConfig
from rst_synth.task.dockerfile import apt_base, as_root
from rst_synth.task.errors import TaskFormatError
from rst_synth.task.paths import TaskPaths
from rst_synth.task.task import Task

CONFIG = "task.yaml"
SOLUTION = "solution.sh"
SOLUTION_YAML = "solution.yaml"
RUN_TESTS = "run-tests.sh"
TESTS_DIR = "tests"
COMPOSE_FILES = ("docker-compose.yaml", "docker-compose.yml")
NOT_ENVIRONMENT = frozenset({CONFIG, SOLUTION, SOLUTION_YAML, RUN_TESTS, TESTS_DIR, *COMPOSE_FILES})
NAME_PREFIX = "tb1/"

# Terminal-Bench 1's own defaults, used when task.yaml leaves a timeout out.
AGENT_TIMEOUT_SEC = 360.0
TEST_TIMEOUT_SEC = 60.0

MAPPED_KEYS = {
    "instruction",
    "author_name",
    "author_email",
    "difficulty",
    "category",
    "tags",
    "max_agent_timeout_sec",
    "max_test_timeout_sec",
}
RUN_ORIGINAL = "bash $TEST_DIR/run-tests.sh"

_FETCH = re.compile(
    r"\b(curl|wget|uvx?|pip3?\s+install|apt(-get)?\s+(install|update)|git\s+clone|cargo\s+install"
    r"|(npm|yarn|pnpm)\s+(install|i|add)|go\s+(get|install))\b"
)
_PY_INSTALL = re.compile(r"\b(?:uv\s+add|(?:uv\s+)?pip3?\s+install)\s+([^;&|\n]*)")
_REQUIREMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9_,.-]*\])?([<>=!~]=?[A-Za-z0-9.*+!_-]+)?$")
_FLAGS_WITH_ARG = {
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-e",
    "--editable",
    "-p",
    "--python",
    "--group",
}
_SKIPPED_PARTS = {"__pycache__", ".git", ".DS_Store"}


def convert_tb1(src: Path) -> Task:
    """One TB1 task directory as a Harbor-layout Task named `tb1/<dir name>`."""
    src = Path(src)
    if not src.is_dir():
        raise TaskFormatError(src, "not a directory")
    raw = _read_config(src / CONFIG)
    instruction = _instruction(src / CONFIG, raw)
    solve = _solution(src)
    run_tests = _read_bytes(src / RUN_TESTS)
    service = _compose_service(src)
    dockerfile_name = _dockerfile_name(src, service)

    files, executable = copy_tree(src, TaskPaths.ENVIRONMENT_DIR, exclude=NOT_ENVIRONMENT)
    dockerfile = _read_bytes(src / dockerfile_name).decode("utf-8", errors="replace")
    tests, test_exec = copy_tree(src / TESTS_DIR, TaskPaths.TESTS_DIR)
    if TaskPaths.TEST_SH in tests:
        raise TaskFormatError(src / TESTS_DIR / "test.sh", "clashes with the generated verifier tests/test.sh")
    files.update(tests)
    executable |= test_exec

    runner = run_tests.decode("utf-8", errors="replace")
    if fetches_from_internet(runner):
        command = _offline_pytest(src, tests)
        dockerfile = bake_test_dependencies(dockerfile, python_requirements(runner))
    else:
        command = RUN_ORIGINAL
    dockerfile += _env_lines(service)

    files[TaskPaths.DOCKERFILE] = dockerfile.encode("utf-8")
    files[TaskPaths.SOLVE] = solve
    files[f"{TaskPaths.TESTS_DIR}/{RUN_TESTS}"] = run_tests
    files[TaskPaths.TEST_SH] = verifier_script(command).encode("utf-8")
    executable |= {TaskPaths.SOLVE, TaskPaths.TEST_SH, f"{TaskPaths.TESTS_DIR}/{RUN_TESTS}"}

    # The oracle must run in validation too, so a solution that downloads gets the network.
    online = fetches_from_internet(solve.decode("utf-8", errors="replace")) and service.get("network_mode") != "none"
    return Task(
        config=_task_config(src, raw, online),
        instruction=instruction,
        files=files,
        executable=executable,
        source_dir=src,
    )


def uses_original_runner(task: Task) -> bool:
    """Whether the converted verifier runs TB1's run-tests.sh (else pytest directly, offline)."""
    return RUN_ORIGINAL in task.text(TaskPaths.TEST_SH)


def fetches_from_internet(script: str) -> bool:
    """Whether a shell script downloads or installs anything (comment lines ignored)."""
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))
    return _FETCH.search(code) is not None


def python_requirements(script: str) -> list[str]:
    """Packages a script installs with `uv add` / `pip install`, pins kept, in order, pytest included."""
    found: list[str] = []
    for match in _PY_INSTALL.finditer(script):
        try:
            words = shlex.split(match.group(1), comments=True)
        except ValueError:
            words = match.group(1).split()
        skip_next = False
        for word in words:
            if re.match(r"\d*>", word):
                break  # a redirection ends the package list
            if skip_next or word.startswith("-"):
                skip_next = not skip_next and word in _FLAGS_WITH_ARG
                continue
            if _REQUIREMENT.match(word) and word not in found:
                found.append(word)
    return found


def verifier_script(command: str) -> str:
    """Harbor's verifier entry point: run the TB1 tests, write 1 or 0 as the reward."""
    return (
        "#!/bin/bash\n"
        "# Verifier entry point made by `rst import tb1`: run the tests, write the reward Harbor reads.\n"
        "export TEST_DIR=/tests\n"
        "export PYTHONDONTWRITEBYTECODE=1\n"
        "mkdir -p /logs/verifier\n"
        f"if {command}; then\n"
        "  echo 1 > /logs/verifier/reward.txt\n"
        "else\n"
        "  echo 0 > /logs/verifier/reward.txt\n"
        "fi\n"
    )


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise TaskFormatError(path, "missing required file") from None
    except IsADirectoryError:
        raise TaskFormatError(path, "is a directory, not a file") from None


class _NoAliasLoader(yaml.SafeLoader):
    """safe_load without aliases: `*name` references let a few lines of YAML stand for billions of
    values (a "billion laughs"), which the importer would then write out; TB1 files use none."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("aliases (*name) are not accepted")
        return super().compose_node(parent, index)


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.load(_read_bytes(path).decode("utf-8"), Loader=_NoAliasLoader)
    except UnicodeDecodeError:
        raise TaskFormatError(path, "not UTF-8 text") from None
    except yaml.YAMLError as exc:
        raise TaskFormatError(path, f"invalid YAML: {exc}") from None


def _read_config(path: Path) -> dict[str, Any]:
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise TaskFormatError(path, "not a YAML mapping")
    return data


def _solution(src: Path) -> bytes:
    if (src / SOLUTION).is_file():
        return _read_bytes(src / SOLUTION)
    if (src / SOLUTION_YAML).exists():
        raise TaskFormatError(src / SOLUTION_YAML, "tmux command-list solutions are not supported; only solution.sh")
    raise TaskFormatError(src / SOLUTION, "missing required file")


def _instruction(path: Path, raw: dict[str, Any]) -> str:
    text = raw.get("instruction")
    if not isinstance(text, str):
        described = [
            d for d in raw.get("descriptions") or [] if isinstance(d, dict) and isinstance(d.get("description"), str)
        ]
        base = [d for d in described if d.get("key") == "base"] or described
        text = base[0]["description"] if base else None
    if not isinstance(text, str) or not text.strip():
        raise TaskFormatError(path, "no instruction: neither 'instruction' nor a 'descriptions' entry with key 'base'")
    return text.strip() + "\n"


def _compose_service(src: Path) -> dict[str, Any]:
    """The single service of docker-compose.yaml; {} when the task has no compose file."""
    path = next((src / name for name in COMPOSE_FILES if (src / name).is_file()), None)
    if path is None:
        return {}
    data = _read_yaml(path)
    services = data.get("services") if isinstance(data, dict) else None
    if not isinstance(services, dict) or not services:
        raise TaskFormatError(path, "no 'services' mapping")
    if len(services) > 1:
        names = ", ".join(str(name) for name in services)
        raise TaskFormatError(path, f"{len(services)} services ({names}); only single-container tasks are supported")
    service = next(iter(services.values()))
    return service if isinstance(service, dict) else {}


def _dockerfile_name(src: Path, service: dict[str, Any]) -> str:
    build = service.get("build")
    build = {"context": build} if isinstance(build, str) else build if isinstance(build, dict) else {}
    context, dockerfile = str(build.get("context", ".")), str(build.get("dockerfile", "Dockerfile"))
    if context.rstrip("/") not in (".", ""):
        compose = next(name for name in COMPOSE_FILES if (src / name).is_file())
        raise TaskFormatError(src / compose, f"build context {context!r} outside the task directory is not supported")
    if not (src / dockerfile).is_file():
        raise TaskFormatError(src / dockerfile, "missing required file")
    return dockerfile


def _env_lines(service: dict[str, Any]) -> str:
    """The service's literal environment as ENV lines; values naming variables ($X) are dropped."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(str(item).split("=", 1) for item in env if "=" in str(item))
    if not isinstance(env, dict):
        return ""
    lines = [
        f"ENV {key}={json.dumps(str(value))}"
        for key, value in env.items()
        if value is not None
        and "$" not in str(value)
        and key != "TEST_DIR"
        and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(key))
    ]
    return "".join(line + "\n" for line in lines)


def copy_tree(root: Path, dest: str, exclude: frozenset[str] = frozenset()) -> tuple[dict[str, bytes], set[str]]:
    """Every file under `root` keyed `dest/<relative path>`, and those with an execute bit."""
    files: dict[str, bytes] = {}
    executable: set[str] = set()
    if not root.is_dir():
        return files, executable
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        skipped = rel.parts[0] in exclude or _SKIPPED_PARTS & set(rel.parts) or path.suffix == ".pyc"
        if skipped or not path.is_file():
            continue
        key = f"{dest}/{rel.as_posix()}"
        files[key] = path.read_bytes()
        if path.stat().st_mode & stat.S_IXUSR:
            executable.add(key)
    return files, executable


def _offline_pytest(src: Path, tests: dict[str, bytes]) -> str:
    prefix = f"{TaskPaths.TESTS_DIR}/"
    modules = [rel for rel in tests if re.fullmatch(rf"{prefix}test_[^/]*\.py", rel)]
    if not modules:
        raise TaskFormatError(src / TESTS_DIR, "no test_*.py to run offline (run-tests.sh fetches from the internet)")
    target = "test_outputs.py" if f"{prefix}test_outputs.py" in modules else "test_*.py"
    return f"python3 -m pytest -rA -p no:cacheprovider $TEST_DIR/{target}"


def bake_test_dependencies(
    dockerfile: str,
    requirements: list[str],
    *,
    made_by: str = "rst import tb1",
    wheels: str | None = None,
    apt_packages: list[str] | None = None,
) -> str:
    """The Dockerfile plus lines baking in pytest, the tests' Python packages and `apt_packages`, so the
    verifier runs offline. `wheels` names a folder of the build context holding every wheel the
    requirements need: pip then installs from it alone (builds need no index); without it pip reaches
    the index at build time, and an apt base gets Debian's pytest."""
    pins = [r for r in requirements if re.split(r"[<>=!~\[]", r, maxsplit=1)[0].lower() != "pytest"]
    pytest_req = next((r for r in requirements if r not in pins), "pytest")
    pip = "PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --no-cache-dir"
    if wheels:
        pip += f" --no-index --find-links /tmp/{wheels}"
    from_pip = [pytest_req, *pins] if wheels else pins
    if apt_base(dockerfile):
        apt = (
            ["python3", "python3-pip"] if wheels else ["python3", "python3-pytest"] + (["python3-pip"] if pins else [])
        )
        apt += [p for p in apt_packages or [] if p not in apt]
        install = f"apt-get install -y --no-install-recommends {' '.join(apt)}"
        run = f"apt-get update && {install} && rm -rf /var/lib/apt/lists/*"
        if from_pip:
            run += f" && {pip} {' '.join(shlex.quote(p) for p in from_pip)}"
    else:
        run = f"{pip} {' '.join(shlex.quote(p) for p in [pytest_req, *pins])}"
    copy = f"COPY {wheels} /tmp/{wheels}\n" if wheels else ""
    if wheels:
        run += f" && rm -rf /tmp/{wheels}"
    comment = f"# Added by `{made_by}`: test dependencies baked in, so the verifier runs offline.\n"
    return dockerfile.rstrip("\n") + "\n" + comment + as_root(dockerfile, f"{copy}RUN {run}\n")


def _positive(path: Path, raw: dict[str, Any], key: str, default: float) -> float:
    value = raw.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise TaskFormatError(path, f"{key}: must be a positive number, got {value!r}")
    return float(value)


def _metadata(raw: dict[str, Any]) -> Metadata:
    tags = raw.get("tags") or []
    fields: dict[str, Any] = {
        "difficulty": raw.get("difficulty"),
        "category": raw.get("category"),
        "tags": [str(t) for t in (tags if isinstance(tags, list) else [tags])],
        "author_name": raw.get("author_name"),
        "author_email": raw.get("author_email"),
    }
    fields = {k: (str(v) if k in ("difficulty", "category") else v) for k, v in fields.items() if v is not None}
    unknown = {k: v for k, v in raw.items() if k not in MAPPED_KEYS}
    descriptions = unknown.get("descriptions")
    if isinstance(descriptions, list) and len(descriptions) == 1 and "instruction" not in raw:
        del unknown["descriptions"]  # its only entry became instruction.md
    if unknown:
        # JSON round trip: TOML wants string keys and has no null or arbitrary objects.
        fields["tb1"] = json.loads(json.dumps(unknown, default=str))
    return Metadata(**fields)


def _task_config(src: Path, raw: dict[str, Any], online: bool) -> TaskConfig:
    path = src / CONFIG
    return TaskConfig(
        task=TaskInfo(name=f"{NAME_PREFIX}{src.resolve().name}"),
        metadata=_metadata(raw),
        agent=AgentConfig(timeout_sec=_positive(path, raw, "max_agent_timeout_sec", AGENT_TIMEOUT_SEC)),
        verifier=VerifierConfig(timeout_sec=_positive(path, raw, "max_test_timeout_sec", TEST_TIMEOUT_SEC)),
        environment=EnvironmentConfig(network_mode="public" if online else "no-network"),
    )
