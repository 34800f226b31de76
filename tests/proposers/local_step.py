"""Run a procedural step on this machine, without Docker: its planted files and every path under the
given container folders move below a temporary root, its solution runs with bash, and its test module
is loaded so a test can call each generated test function (and run them again after breaking an output)."""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.procedural.operator import Step

_BUILD_SCRIPT = re.compile(r"RUN printf '%s' '([A-Za-z0-9+/=]*)' \| base64 -d \| python3 -")
_PLANT = re.compile(r"RUN mkdir -p (\S+) && printf '%s' '([A-Za-z0-9+/=]*)' \| base64 -d > (\S+) && chmod (\d+) \S+")


class LocalStep:
    """One step moved below `root`: `plant()`, `solve()`, then `tests()` and `run_tests()`."""

    def __init__(self, step: Step, root: Path, folders: tuple[str, ...] = ("/app",)) -> None:
        self.step, self.root = step, root
        self._pattern = re.compile(
            r"(?<![\w.~-])(" + "|".join(re.escape(f.rstrip("/")) for f in folders) + r")(?=/|\b)"
        )
        # `#!/usr/bin/env python3` through a version manager's shim costs a few tenths of a second a run
        self._bin = root / ".bin"
        self._bin.mkdir(parents=True, exist_ok=True)
        python = self._bin / "python3"
        if not python.exists():
            python.symlink_to(os.path.realpath(sys._base_executable))
        self.env = dict(os.environ, PATH=f"{self._bin}{os.pathsep}{os.environ.get('PATH', '')}")

    def path(self, container_path: str) -> Path:
        """Where a container path lies on this machine."""
        return Path(self.moved(container_path))

    def moved(self, text: str) -> str:
        return self._pattern.sub(lambda m: f"{self.root}{m.group(1)}", text)

    def put(self, container_path: str, content: str | bytes) -> Path:
        """Write a file the parent's solution would have made."""
        target = self.path(container_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)
        return target

    def plant(self) -> None:
        for match in _PLANT.finditer(self.step.dockerfile):
            target = self.path(match.group(3))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(base64.b64decode(match.group(2)))
            target.chmod(int(match.group(4), 8))
        for match in _BUILD_SCRIPT.finditer(self.step.dockerfile):
            subprocess.run([sys.executable, "-c", self.moved(base64.b64decode(match.group(1)).decode())], check=True)

    def solve(self, env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["bash", "-c", "set -e\n" + self.moved(self.step.solution)],
            capture_output=True,
            text=True,
            env={**self.env, **(env or {})},
        )
        if check:
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return done

    def rerun_after(self, marker: str) -> None:
        """Run the solution's lines after the first line containing `marker` again (after a tool was broken)."""
        rest = self.step.solution.split(marker, 1)[1].split("\n", 1)[1]
        subprocess.run(["bash", "-c", self.moved(rest)], capture_output=True, check=False, env=self.env)

    def tests(self) -> dict[str, Any]:
        imports = "".join(f"import {m}\n" for m in sorted({*self.step.imports, "pathlib"}))
        namespace: dict[str, Any] = {}
        exec(imports + self.moved(self.step.tests), namespace)
        return namespace

    def run_tests(self, tmp: Path, only: str = "") -> list[str]:
        """Run every generated test function (whose name contains `only`); the names that ran."""
        ran = []
        saved = os.environ["PATH"]
        os.environ["PATH"] = self.env["PATH"]
        try:
            for name, test in list(self.tests().items()):
                if not (name.startswith("test_") and callable(test) and only in name):
                    continue
                _call(test, tmp / name)
                ran.append(name)
        finally:
            os.environ["PATH"] = saved
        return ran

    def assert_caught(self, tool: str, wrong: tuple[str, str], tmp: Path) -> None:
        """The step's generated tests fail once `tool` (a container path) has `wrong[0]` replaced by `wrong[1]`."""
        path = self.path(tool)
        source = path.read_text()
        assert wrong[0] in source
        path.write_text(source.replace(wrong[0], wrong[1]))
        with pytest.raises(AssertionError):
            self.run_tests(tmp, only="generated")


def _call(test: Callable[..., Any], tmp: Path) -> None:
    code = test.__code__
    if "tmp_path" in code.co_varnames[: code.co_argcount]:
        tmp.mkdir(parents=True, exist_ok=True)
        test(tmp)
    else:
        test()
