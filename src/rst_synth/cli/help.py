"""Help text as paragraphs: the docstrings and option helps keep the line breaks of the source, and
Typer's rich help prints them, so a line broken at 100 columns in the code wrapped again at 80 reads
"... parent and, for a" / "child, the quality checks". `reflow` joins the lines of each paragraph;
`ReflowGroup`, the root group's class, applies it once to every command, group and parameter.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from typer.core import TyperGroup

# Lines that keep their own line: list items, table rows, quotes, code fences.
_OWN_LINE = re.compile(r"^\s*(?:[-*+] |\d+[.)] |\||>|```)")
_FIELDS = ("help", "short_help")


def reflow(text: str) -> str:
    """TEXT with the lines of each paragraph joined by a space; blank lines, list items, table rows,
    code (fenced, or indented four spaces) and a paragraph marked with \\b stay as written, and so
    does anything after \\f (which Typer leaves out of the help)."""
    body, mark, rest = inspect.cleandoc(text).partition("\f")
    return "\n\n".join(_join(paragraph) for paragraph in body.split("\n\n")) + mark + rest


def _join(paragraph: str) -> str:
    if paragraph.startswith("\b"):
        return paragraph
    lines: list[str] = []
    fenced = False
    for line in paragraph.split("\n"):
        fence = line.lstrip().startswith("```")
        verbatim = fenced or fence or line.startswith("    ")
        if lines and not verbatim and not _OWN_LINE.match(line) and not _keeps_own_line(lines[-1]):
            lines[-1] = f"{lines[-1].rstrip()} {line.strip()}"
        else:
            lines.append(line)
        fenced ^= fence
    return "\n".join(lines)


def _keeps_own_line(line: str) -> bool:
    stripped = line.lstrip()
    return line.startswith("    ") or stripped.startswith(("|", "```"))


def reflow_tree(command: object) -> None:
    """Reflow the help of COMMAND, of its parameters and of every subcommand, in place."""
    for holder in (command, *getattr(command, "params", ())):
        for field in _FIELDS:
            text = getattr(holder, field, None)
            if isinstance(text, str):
                setattr(holder, field, reflow(text))
    for sub in getattr(command, "commands", {}).values():
        reflow_tree(sub)


class ReflowGroup(TyperGroup):
    """The root group: its subcommands exist when it is made, so their help is reflowed here once."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        reflow_tree(self)
