"""What every command shares: the console, running async work, clean exits on signals."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from rst_synth.proposers import Proposer, make_proposer
from rst_synth.sandbox import Sandbox, SandboxError, make_sandbox
from rst_synth.task import Task, TaskFormatError

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


def build_proposer(name: str, sandbox: Sandbox, options: dict[str, Any], cache_dir: Path | None) -> Proposer:
    """A proposer by short name or dotted path; its own factory resolves `options` (an endpoint,
    operators, ...) and may cache paid work under `cache_dir`. A bad option is one error line."""
    try:
        return make_proposer(name, sandbox=sandbox, cache_dir=cache_dir, **options)
    except ValueError as exc:
        raise fail(str(exc).splitlines()[0]) from None


def run_with_sandbox(sandbox: Sandbox, work: Callable[[], Awaitable[T]]) -> T:
    """Run async work; whatever ends it (error, Ctrl-C, SIGTERM), no container is left behind."""

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term)

    async def main() -> T:
        try:
            return await work()
        finally:
            await sandbox.close()

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted[/yellow]: containers removed")
        raise typer.Exit(130) from None
    finally:
        sandbox.remove_all_sync()
        signal.signal(signal.SIGTERM, previous)


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
