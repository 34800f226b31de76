"""The reply format of the llm proposer: fenced code blocks labelled with a file path.

A reply looks like

    ```bash path=solution/steps.sh
    ...
    ```

Nearly right replies are made right by the rules of `recover.py` (a path written inside the
block, a heredoc that writes the file, an unfenced markdown reply), each logged. Every other
malformed reply becomes a `ReplyError` (a ProposalError) with a machine-readable reason, never a
crash: `truncated` (finish_reason "length" or an unclosed fence), `no_code_block`,
`missing_block`, `wrong_language`, `empty_block`, `invalid_bash`, `invalid_python`,
`invalid_toml`, `invalid_dockerfile`, and for files that must do new work (`Expect.new_work`)
`no_new_command` and `no_assertion`. The error names the file at fault and quotes the exact
error (Python's line and caret, `bash -n`'s message and line), which a re-ask shows the model.
"""

from __future__ import annotations

import ast
import builtins
import fnmatch
import logging
import re
import sys
import tomllib
from dataclasses import dataclass, field, replace

from rst_synth.proposers.base import ProposalError
from rst_synth.proposers.llm.errors import bash_error, numbered, python_syntax_error
from rst_synth.proposers.llm.recover import normalize_path, own_path_line, trim_chatter
from rst_synth.validator import Reason
from rst_synth.validator.prechecks import asserts_something, runs_a_command

log = logging.getLogger(__name__)

LANGUAGES: dict[str, str] = {
    "bash": "bash",
    "sh": "bash",
    "shell": "bash",
    "zsh": "bash",
    "python": "python",
    "py": "python",
    "python3": "python",
    "markdown": "markdown",
    "md": "markdown",
    "text": "markdown",
    "txt": "markdown",
    "dockerfile": "dockerfile",
    "docker": "dockerfile",
    "toml": "toml",
}
"""Fence labels the parser understands, by the canonical language they mean."""

_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")
_ATTR = re.compile(r"""(?P<key>[A-Za-z_]+)=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>\S+))""")
_PATH_KEYS = ("path", "file", "filename", "title")


@dataclass(frozen=True)
class Block:
    """One fenced block of a reply."""

    language: str
    """Canonical language ("" when the fence had no label, the raw label when unknown)."""
    path: str | None
    content: str
    line: int
    """1-based line of the opening fence."""


@dataclass(frozen=True)
class Expect:
    """A file the reply must (or may) contain."""

    path: str
    language: str
    required: bool = True
    accept: tuple[str, ...] = field(default=())
    """Other path patterns (fnmatch) that name this file, e.g. "tests/test_*.py"."""
    new_work: bool = False
    """The file must do work: bash that runs a command, a Python module that asserts something."""
    fallback: bool = False
    """Taken when a reply gives it, never asked for again (an older form of what another Expect asks)."""

    def matches(self, path: str) -> bool:
        return path == self.path or any(fnmatch.fnmatch(path, p) for p in self.accept)


def language_of_path(path: str) -> str:
    """The language a file's name implies."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith("Dockerfile"):
        return "dockerfile"
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return {"sh": "bash", "py": "python", "md": "markdown", "toml": "toml"}.get(suffix, "")


class ReplyError(ProposalError):
    """A reply that cannot be used: the reason, the file at fault (None: the reply as a whole) and
    the exact error, as a re-ask quotes it."""

    def __init__(self, reason: Reason, detail: str, *, path: str | None = None, quote: str = "") -> None:
        super().__init__(reason, detail)
        self.path = path
        self.quote = quote or detail


def _parse_info(info: str) -> tuple[str, str | None]:
    """(language, path) from a fence's info string such as `bash path=solution/steps.sh`."""
    path: str | None = None
    for match in _ATTR.finditer(info):
        if match.group("key").lower() in _PATH_KEYS:
            path = match.group("dq") or match.group("sq") or match.group("bare")
    words = _ATTR.sub(" ", info).split()
    label = words[0].lower() if words else ""
    if path is None and len(words) > 1 and ("/" in words[1] or "." in words[1]):
        path = words[1]  # ```bash solution/steps.sh
    if label and ("/" in label or label.startswith("dockerfile.")) and path is None:
        path, label = words[0], ""  # ```solution/steps.sh
    language = LANGUAGES.get(label, label)
    return language, normalize_path(path) if path else None


def split_blocks(text: str) -> list[Block]:
    """Every fenced block; ProposalError(Reason.TRUNCATED) when a fence is never closed."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = _OPEN.match(lines[i])
        if not opening:
            i += 1
            continue
        fence = opening.group("fence")
        language, path = _parse_info(opening.group("info"))
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            body.append(lines[j])
            j += 1
        if j >= len(lines):
            raise ReplyError(
                Reason.TRUNCATED, f"the code block opened on line {i + 1} is never closed (cut off?)", path=path
            )
        content = "\n".join(body)
        blocks.append(Block(language=language, path=path, content=content + "\n" if content else "", line=i + 1))
        i = j + 1
    return blocks


def parse_reply(
    text: str | None, expected: list[Expect], *, finish_reason: str | None = None, require_any: bool = False
) -> dict[str, str]:
    """The files of a reply by their expected path; ReplyError naming what is wrong.

    `require_any`: at least one of the expected files must be present (for replies, such as a
    repair, that may leave some files as they were)."""
    required = [e for e in expected if e.required]
    first = required[0].path if len(required) == 1 else None
    if finish_reason == "length":
        raise ReplyError(Reason.TRUNCATED, "the reply hit the token limit (finish_reason=length)", path=first)
    blocks = split_blocks(text or "")
    if not blocks:
        unfenced = _unfenced_markdown(text or "", expected)
        if unfenced is not None:
            return unfenced
        raise ReplyError(Reason.NO_CODE_BLOCK, "the reply contains no fenced code block", path=first)
    blocks = [_relabel(block, expected) for block in blocks]
    claimed: set[int] = set()
    found: dict[str, str] = {}
    for expect in expected:
        index = _find(blocks, expect, claimed)
        if index is None:
            if expect.required:
                raise _missing(blocks, expect, claimed, expected)
            continue
        claimed.add(index)
        block = blocks[index]
        if block.language and block.language != expect.language:
            raise ReplyError(
                Reason.WRONG_LANGUAGE,
                f"{expect.path}: asked for {expect.language}, got a {block.language} block (line {block.line})",
                path=expect.path,
            )
        if not block.content.strip():
            raise ReplyError(
                Reason.EMPTY_BLOCK, f"{expect.path}: the block on line {block.line} is empty", path=expect.path
            )
        _check_content(expect, block.content)
        found[expect.path] = block.content
    if require_any and not found:
        if expected:
            raise _missing(blocks, expected[0], claimed, expected)
        raise ReplyError(Reason.MISSING_BLOCK, "no file was asked for")
    return found


def _relabel(block: Block, expected: list[Expect]) -> Block:
    """The block with the path its first line names (recover.py, rules 1 and 2)."""
    path, content, _ = own_path_line(block.content, block.path, lambda p: any(e.matches(p) for e in expected))
    if path == block.path and content == block.content:
        return block
    log.info("reply block on line %d: took the path %s from inside the block", block.line, path)
    language = block.language or (language_of_path(path) if path else "")
    return replace(block, path=path, content=content, language=language)


def _unfenced_markdown(text: str, expected: list[Expect]) -> dict[str, str] | None:
    """A reply without fences where only markdown is expected (one file, or one of the two forms of an
    instruction): the whole reply, its chatter trimmed (recover.py, rule 3), as the file its first line
    names, else the last expected (of an instruction's two forms the addendum: appended, a reply that
    cannot be told apart never loses the parent's text); None when that rule does not apply or the text
    names no path (a refusal, an apology)."""
    if not expected or any(e.language != "markdown" for e in expected) or not text.strip():
        return None
    path, content, _ = own_path_line(text, None, lambda p: any(e.matches(p) for e in expected))
    expect = next((e for e in expected if path and e.matches(path)), expected[-1])
    content = trim_chatter(content)
    if not re.search(r"/\w", content):  # an addendum states the paths to write; a refusal names none
        return None
    log.info("reply has no fenced block: took the whole reply, chatter trimmed, as %s", expect.path)
    return {expect.path: content}


def _find(blocks: list[Block], expect: Expect, claimed: set[int]) -> int | None:
    labelled = [k for k, b in enumerate(blocks) if k not in claimed and b.path and expect.matches(b.path)]
    if labelled:
        return labelled[-1]  # a model that revises itself repeats the block; the last one counts
    unlabelled = [k for k, b in enumerate(blocks) if k not in claimed and not b.path and b.language == expect.language]
    return unlabelled[0] if unlabelled else None


def _missing(blocks: list[Block], expect: Expect, claimed: set[int], expected: list[Expect]) -> ReplyError:
    # A block in another language that names no file we asked for was meant as this one.
    others = [
        b
        for k, b in enumerate(blocks)
        if k not in claimed
        and b.language
        and b.language != expect.language
        and (not b.path or not any(e.matches(b.path) for e in expected))
    ]
    if others:
        return ReplyError(
            Reason.WRONG_LANGUAGE,
            f"{expect.path}: asked for a {expect.language} block, "
            f"got a {others[0].language} block (line {others[0].line})",
            path=expect.path,
        )
    seen = ", ".join(b.path or b.language or "unlabelled" for b in blocks)
    return ReplyError(
        Reason.MISSING_BLOCK,
        f"no block for {expect.path} ({expect.language}); blocks seen: {seen}",
        path=expect.path if expect.required else None,
    )


def _check_content(expect: Expect, content: str) -> None:
    path = expect.path
    if expect.language == "python":
        quote = python_syntax_error(content, path)
        if quote is not None:
            where = re.search(r"line (\d+)", quote)
            detail = f"{path}: {quote.splitlines()[-1]}" + (f" (line {where.group(1)})" if where else "")
            raise ReplyError(Reason.INVALID_PYTHON, detail, path=path, quote=quote)
        unimported = unimported_module(content)
        if unimported is not None:
            name, line = unimported
            detail = f"{path}: line {line}: the module {name!r} is used but never imported"
            raise ReplyError(Reason.INVALID_PYTHON, detail, path=path, quote=detail + "\n" + numbered(content, line))
        if expect.new_work and not asserts_something(content):
            detail = f"{path}: no assert statement: a test that asserts nothing can never fail"
            raise ReplyError(Reason.NO_ASSERTION, detail, path=path)
    elif expect.language == "bash":
        quote = bash_error(content, path)
        if quote is not None:
            raise ReplyError(
                Reason.INVALID_BASH, quote.splitlines()[0].removeprefix("bash -n "), path=path, quote=quote
            )
        if expect.new_work and not runs_a_command(content):
            detail = f"{path}: no command, only comments, `set`, `:` or assignments: the steps do no work"
            raise ReplyError(Reason.NO_NEW_COMMAND, detail, path=path)
    elif expect.language == "toml":
        try:
            tomllib.loads(content)
        except tomllib.TOMLDecodeError as exc:
            raise ReplyError(Reason.INVALID_TOML, f"{path}: {exc}", path=path) from None
    elif expect.language == "dockerfile":
        for text in content.splitlines():
            if re.match(r"^\s*FROM\s", text, re.IGNORECASE):
                raise ReplyError(
                    Reason.INVALID_DOCKERFILE,
                    f"{path}: lines appended to the parent's Dockerfile may not start a new stage ({text.strip()!r})",
                    path=path,
                )


def unimported_module(source: str) -> tuple[str, int] | None:
    """(name, line) of a standard-library module the code uses as `name.attr` but never binds
    (the missing `import re`); None when every such name is bound, or the module star-imports."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    bound: set[str] = set()
    used: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name == "*" for alias in node.names):
                return None
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound |= set(node.names)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            used.append((node.value.id, node.lineno))
    for name, line in used:
        if name in sys.stdlib_module_names and name not in bound and not hasattr(builtins, name):
            return name, line
    return None
