"""What every command shares: the console, one error line, the run directory and its lock, the
sandbox, executor and proposer made from options, running async work, clean exits on signals."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from rst_synth.executors import Executor, WorkSpec, make_executor
from rst_synth.proposers import Proposer, make_proposer
from rst_synth.proposers.discovery import Discover
from rst_synth.sandbox import Sandbox, SandboxError, make_sandbox
from rst_synth.store import RunPaths, Store
from rst_synth.store.lock import RunLock, RunLocked
from rst_synth.task import Task, TaskFormatError
from rst_synth.validator import Validator

T = TypeVar("T")
# Tables stay readable when output goes to a file or a CI log (rich assumes 80 columns there).
console = Console(width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print one error line and return the Exit to raise."""
    # Text, not markup: messages quote TOML tables like [verifier] that rich would swallow.
    err_console.print(Text.assemble(("error: ", "red"), message), highlight=False, soft_wrap=True)
    return typer.Exit(code)


def load_task(path: Path) -> Task:
    try:
        return Task.load(path)
    except TaskFormatError as exc:
        raise fail(str(exc)) from None


def open_sandbox(backend: str, **options: object) -> Sandbox:
    try:
        return make_sandbox(backend, **options)
    except (SandboxError, ValueError) as exc:
        raise fail(str(exc)) from None


def open_run(run: Path) -> tuple[RunPaths, Store]:
    paths = RunPaths(run)
    if not paths.exists():
        raise fail(f"{paths.db}: no run here (start one with `rst synth SEEDS --out {run}`)")
    return paths, Store(paths.db)


def own(lock: RunLock) -> None:
    """Hold the folder (creating it) or stop at once: one owner per run directory or eval folder, and
    only the owner prunes the containers labelled with it."""
    try:
        lock.acquire()
    except RunLocked as exc:
        raise fail(str(exc), code=1) from None


def open_executor(
    name: str, address: str | None, sandbox: Sandbox, validator: Validator | None, spec: WorkSpec
) -> Executor:
    """The executor of --executor (local: `sandbox` and `validator` in process; ray: the cluster at
    `address`, whose nodes make their own from `spec`); a bad name or an unreachable cluster is one line."""
    if address and name != "ray":
        raise fail("--ray-address needs --executor ray")
    options: dict[str, Any] = {"address": address} if name == "ray" else {}
    try:
        return make_executor(name, sandbox=sandbox, validator=validator, spec=spec, **options)
    except ValueError as exc:
        raise fail(str(exc).splitlines()[0]) from None


def build_proposer(name: str, discovery: Discover, options: dict[str, Any], cache_dir: Path | None) -> Proposer:
    """A proposer by short name or dotted path, discovering through `discovery` (the executor's); its
    own factory resolves `options` (an endpoint, operators, ...) and may cache paid work under
    `cache_dir`. A bad option is one error line."""
    try:
        return make_proposer(name, discovery=discovery, cache_dir=cache_dir, **options)
    except ValueError as exc:
        raise fail(str(exc).splitlines()[0]) from None


SIGNAL_NAMES: dict[int, str] = {signal.SIGINT: "SIGINT (Ctrl-C)", signal.SIGTERM: "SIGTERM"}
_received: list[int] = []
"""The first SIGINT/SIGTERM since the outermost `signals_deferred` began (at most one entry)."""
_depth = 0


def _remember(signum: int, frame: object) -> None:
    if not _received:
        _received.append(signum)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """While synchronous work runs (opening the store, writing run.toml, printing), a SIGINT or
    SIGTERM is only noted: `exit_if_signalled` acts on it at the next safe point, so no file is
    left half-written and no traceback is printed. Nested uses share the one noted signal."""
    global _depth
    previous = {signum: signal.getsignal(signum) for signum in SIGNAL_NAMES}
    for signum in SIGNAL_NAMES:
        signal.signal(signum, _remember)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if _depth == 0:
            _received.clear()


def hold_signals() -> None:
    """For the rest of this command's process, note SIGINT/SIGTERM as `signals_deferred` does:
    for commands that write files before and after their async work (run.toml, the store)."""
    global _depth
    for signum in SIGNAL_NAMES:
        signal.signal(signum, _remember)
    _depth += 1


def exit_if_signalled() -> None:
    """Exit 128+signal with one line when a SIGINT or SIGTERM came in; otherwise nothing."""
    if _received:
        signum = _received[0]
        err_console.print(
            Text.assemble(
                ("interrupted", "yellow"),
                f" by {SIGNAL_NAMES.get(signum, str(signum))}: stopped taking work, cancelled what was in "
                "flight and removed its containers; nothing is half-written",
            ),
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(128 + signum)


def run_with_sandbox(sandbox: Sandbox, work: Callable[[], Awaitable[T]]) -> T:
    """Run async work; whatever ends it (error, Ctrl-C, SIGTERM), no container is left behind.

    A SIGINT or SIGTERM cancels the work (every candidate in flight, each removing its own
    container once), then the sandbox removes whatever is left, then the command exits 130 or
    143 with one line: no traceback, no task left pending. A second signal during that cleanup
    is ignored: the cleanup is what makes the exit safe."""

    async def main() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()

        def on_signal(signum: int) -> None:
            if not _received and task is not None:
                _received.append(signum)
                task.cancel()

        for signum in SIGNAL_NAMES:
            loop.add_signal_handler(signum, on_signal, signum)
        try:
            return await work()
        finally:
            await sandbox.close()

    with signals_deferred():
        exit_if_signalled()
        try:
            result = asyncio.run(main())
        except asyncio.CancelledError:
            if not _received:
                raise
        finally:
            signal.signal(signal.SIGINT, _remember)  # the loop's handlers are gone with the loop
            signal.signal(signal.SIGTERM, _remember)
            sandbox.remove_all_sync()
        exit_if_signalled()
        return result


class JsonLogFormatter(logging.Formatter):
    """One JSON object a line, so run logs can be filtered with jq."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def setup_logging(verbose: bool, log_file: Path | None = None) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    handlers[0].setLevel(logging.DEBUG if verbose else logging.WARNING)
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        file_handler = logging.FileHandler(log_file)
        file_handler.setFormatter(JsonLogFormatter())
        file_handler.setLevel(logging.DEBUG)
        handlers.append(file_handler)
    logging.basicConfig(level=logging.DEBUG, handlers=handlers, force=True)
