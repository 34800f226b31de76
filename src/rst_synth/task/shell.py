"""Reading a verifier script the way bash does, as far as the importers and the child assembly need:
logical lines (backslash continuations joined, comments and here-document bodies told apart) and
the commands of a line between `&&`, `||` and `;`."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEREDOC = re.compile(r"(?<!<)<<(?!<)-?\s*([\"']?)(\w+)\1")
_TRAILING_EXIT = re.compile(r"(\n\s*exit(\s+0)?\s*)+\s*$")


def without_trailing_exit(script: str) -> str:
    """A script without the `exit` / `exit 0` it ends with: appended steps would never run after it."""
    return _TRAILING_EXIT.sub("\n", script.rstrip("\n") + "\n").rstrip("\n") + "\n"


@dataclass(frozen=True)
class LogicalLine:
    start: int
    """Offset of its first character in the script."""
    end: int
    """Offset just after its last character, the newline excluded."""
    number: int
    """1-based number of its first physical line."""
    text: str
    """As written, continuations included."""
    code: bool
    """False for comments, blank lines and here-document bodies: text bash does not run as commands."""

    @property
    def joined(self) -> str:
        """The command with its continuations joined into one line."""
        return re.sub(r"[ \t]*\\\n[ \t]*", " ", self.text).strip()


def logical_lines(script: str) -> list[LogicalLine]:
    """Every logical line of `script`, in order."""
    found: list[LogicalLine] = []
    physical = script.splitlines(keepends=True)
    offset, k, heredoc_end = 0, 0, None
    while k < len(physical):
        start, number = offset, k + 1
        text = physical[k]
        while heredoc_end is None and text.rstrip("\n").endswith("\\") and k + 1 < len(physical):
            k += 1
            text += physical[k]
        k += 1
        offset += len(text)
        body = text.rstrip("\n")
        stripped = body.strip()
        if heredoc_end is not None:
            heredoc_end = None if stripped == heredoc_end else heredoc_end
            found.append(LogicalLine(start, start + len(body), number, body, code=False))
            continue
        code = bool(stripped) and not stripped.startswith("#")
        found.append(LogicalLine(start, start + len(body), number, body, code=code))
        marker = _HEREDOC.search(body) if code else None
        if marker:
            heredoc_end = marker.group(2)
    return found


def commands(line: str) -> list[tuple[str, str]]:
    """The commands of one joined line and the separator after each ("&&", "||", ";" or ""), split
    outside quotes; pipes stay inside a command."""
    parts: list[tuple[str, str]] = []
    current, quote, k = "", "", 0
    while k < len(line):
        char = line[k]
        if quote:
            quote = "" if char == quote else quote
            current += char
        elif char in "'\"":
            quote = char
            current += char
        elif char == "\\" and k + 1 < len(line):
            current += line[k : k + 2]
            k += 1
        elif line.startswith(("&&", "||"), k):
            parts.append((current.strip(), line[k : k + 2]))
            current = ""
            k += 1
        elif char == ";" and not line.startswith(";;", k):
            parts.append((current.strip(), ";"))
            current = ""
        elif char == "#" and (not current or current[-1].isspace()):
            break  # a trailing comment
        else:
            current += char
        k += 1
    if current.strip():
        parts.append((current.strip(), ""))
    return parts
