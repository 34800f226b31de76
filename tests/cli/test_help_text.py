"""`rst --help` and every `rst COMMAND --help` read as paragraphs at 80 columns: no line of the help
ends mid-sentence because the docstring had a line break there."""

from __future__ import annotations

import re

import pytest
import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

from rst_synth.cli.help import ReflowGroup, reflow
from rst_synth.cli.main import app

WIDTH = 80
ENV = {"COLUMNS": str(WIDTH), "TERM": "dumb", "NO_COLOR": "1"}
_GAP = re.compile(r" {2,}")
_BORDER = "│"


def command_paths(command: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and subcommand under COMMAND, the root included, as its words on the command line."""
    found = [path]
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        found += command_paths(sub, (*path, name))
    return found


def _right(line: str) -> int:
    return line.rindex(_BORDER) if line.rstrip().endswith(_BORDER) else WIDTH


def _cell(line: str, start: int, right: int) -> str:
    """The text of LINE's column that starts at START: up to a gap of two spaces, or the box's edge."""
    return _GAP.split(line[start:right].strip(), maxsplit=1)[0]


def hard_breaks(text: str) -> list[str]:
    """Lines that break mid-sentence where the source did, not where the width did. A line breaks so
    when the next line continues its column (its only text starts where the line's column starts, in
    the same box) with a lowercase word, and the line's text is shorter than 60% of the column, ends
    without sentence punctuation and had room for that word: rich wraps greedily, so only a hard line
    break leaves it there."""
    lines = text.splitlines()
    found = []
    for upper, lower in zip(lines, lines[1:], strict=False):
        right = _right(upper)
        if right != _right(lower):
            continue
        row = lower[:right]
        below = row.lstrip(_BORDER).strip()
        start = len(row) - len(row.lstrip(_BORDER).lstrip())
        if not below or _GAP.search(below) or start >= len(upper) or upper[start] == " " or upper[start - 1] != " ":
            continue
        above, room = _cell(upper, start, right), right - start - 1
        word = below.split()[0]
        if (
            not above.endswith((".", ":", ";", "!", "?"))
            and len(above) < 0.6 * room
            and word[0].islower()
            and len(above) + 1 + len(word) <= room
        ):
            found.append(f"{above!r} / {below!r}")
    return found


def render(application: typer.Typer, path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(application, [*path, "--help"], env=ENV)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("path", command_paths(typer.main.get_command(app)), ids=lambda path: " ".join(path) or "rst")
def test_help_breaks_lines_only_where_the_width_does(path: tuple[str, ...]) -> None:
    text = render(app, path)
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    assert hard_breaks(text) == [], text


def sample(cls: type[TyperGroup]) -> typer.Typer:
    """A two-command app whose `go` docstring breaks a sentence early."""
    sample_app = typer.Typer(cls=cls, rich_markup_mode="rich", add_completion=False)

    @sample_app.command()
    def go(count: int = typer.Option(1, help="How many.\nTimes, and this continues past a line break.")) -> None:
        """Do it.

        It runs on to a break, and
        then goes on after it."""

    @sample_app.command()
    def other() -> None:
        """Another, so that the app is a group."""

    return sample_app


def test_the_check_finds_a_docstring_line_break_that_reflow_removes() -> None:
    assert hard_breaks(render(sample(TyperGroup), ("go",))) == [
        "'It runs on to a break, and' / 'then goes on after it.'"
    ]
    assert hard_breaks(render(sample(ReflowGroup), ("go",))) == []
    assert "It runs on to a break, and then goes on after it." in render(sample(ReflowGroup), ("go",))


def test_reflow_joins_the_lines_of_a_paragraph_and_keeps_the_rest() -> None:
    text = """First line
    goes on.

    - an item
      its continuation
    - another

    | a | b |
    | 1 | 2 |

    ```
    code  stays
    as is
    ```

    \b
    kept
    as written
    \f
    after
    the mark"""
    assert reflow(text) == (
        "First line goes on.\n\n- an item its continuation\n- another\n\n| a | b |\n| 1 | 2 |\n\n"
        "```\ncode  stays\nas is\n```\n\n\b\nkept\nas written\n\f\nafter\nthe mark"
    )
