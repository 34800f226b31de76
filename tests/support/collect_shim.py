"""The commands `collected_tests` puts first on PATH (argv[1] says which one was called): pytest only
collects, and logs what it found; installers do nothing; python runs as this interpreter."""

from __future__ import annotations

import os
import subprocess
import sys

# Options of pytest plugins the verifiers use, with their value: the collecting pytest lacks the plugins.
PLUGIN_OPTIONS = {"--ctrf", "--timeout", "--json-report-file", "--junitxml", "--junit-xml"}
UV_VALUED = {"-p", "--python", "-w", "--with", "--from", "--with-requirements", "--directory", "--project"}


def collect(args: list[str]) -> int:
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        option = arg.split("=", 1)[0]
        if arg in ("--quiet", "--verbose") or (arg.startswith("-") and set(arg[1:]) <= {"q", "v"}):
            continue  # verbosity changes how collected ids print: one -q below prints them one a line
        if option in PLUGIN_OPTIONS:
            skip = "=" not in arg
            continue
        kept.append(arg)
    import pytest  # here, not at the top: the other shims start faster without it

    class Record:
        ids: list[str] = []

        def pytest_collection_finish(self, session: pytest.Session) -> None:
            Record.ids = [item.nodeid for item in session.items]

    code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *kept], plugins=[Record()])
    with open(os.environ["RST_COLLECT_LOG"], "a") as log:
        log.write("".join(f"{node_id}\n" for node_id in Record.ids))
    return int(code)


def after_uv_options(args: list[str]) -> list[str]:
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 1 if "=" in args[k] or args[k] not in UV_VALUED else 2
    return args[k:]


def main(name: str, args: list[str]) -> int:
    if name in ("pytest", "py.test"):
        return collect(args)
    if name in ("python", "python3"):
        if args[:2] == ["-m", "pytest"]:
            return collect(args[2:])
        return subprocess.run([os.environ["RST_REAL_PYTHON"], *args], check=False).returncode
    if name in ("uvx", "uv"):
        rest = args[1:] if name == "uv" and args[:1] == ["run"] else args if name == "uvx" else []
        command = after_uv_options(rest)
        if command[:1] in (["pytest"], ["py.test"]):
            return collect(command[1:])
        if command[:1] in (["python"], ["python3"]):
            return main("python3", command[1:])
        return 0  # uv pip install, uv venv, ...: nothing to fetch here
    return 0  # curl, wget, pip, apt-get: the image would have what they fetch


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
