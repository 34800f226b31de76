"""Entry point of the `rst` command."""

from __future__ import annotations

from typing import Annotated

import typer

from rst_synth import __version__
from rst_synth.cli.collect import collect_command
from rst_synth.cli.common import setup_logging
from rst_synth.cli.evaluate import eval_command
from rst_synth.cli.export import export_command
from rst_synth.cli.extend import extend_command
from rst_synth.cli.gc import gc_command
from rst_synth.cli.help import ReflowGroup
from rst_synth.cli.importer import import_app
from rst_synth.cli.report import report_command
from rst_synth.cli.seeds import seeds_app
from rst_synth.cli.stats import stats_command
from rst_synth.cli.synth import synth_command
from rst_synth.cli.validate import validate_command

app = typer.Typer(
    name="rst",
    cls=ReflowGroup,  # the help of every command and option as paragraphs (cli/help.py)
    help="Recursive Synthetic Terminal Tasks: grow verified long-horizon terminal tasks from seeds.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    add_completion=False,
)


@app.callback()
def main(
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Log debug detail to stderr.")] = False,
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(__version__)
        raise typer.Exit()
    setup_logging(verbose)


app.command("synth")(synth_command)
app.command("stats")(stats_command)
app.command("export")(export_command)
app.command("validate")(validate_command)
app.command("extend")(extend_command)
app.command("eval")(eval_command)
app.command("collect")(collect_command)
app.command("gc")(gc_command)
app.command("report")(report_command)
app.add_typer(import_app, name="import", help="Take Harbor (Terminal-Bench 2) or Terminal-Bench 1 tasks as seeds.")
app.add_typer(seeds_app, name="seeds", help="Inspect a library of seed tasks.")
