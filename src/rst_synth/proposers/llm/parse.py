"""The reply format of the llm proposer: fenced code blocks labelled with a file path.

A reply looks like

    ```bash path=solution/steps.sh
    ...
    ```

Every malformed reply becomes a ProposalError with a machine-readable reason, never a crash:
`truncated` (finish_reason "length" or an unclosed fence), `no_code_block`, `missing_block`,
`wrong_language`, `empty_block`, `invalid_bash`, `invalid_python`, `invalid_toml`,
`invalid_dockerfile`.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass, field

from rst_synth.proposers.base import ProposalError
from rst_synth.validator import Reason
from rst_synth.validator.static import bash_syntax_error

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

    def matches(self, path: str) -> bool:
        return path == self.path or any(fnmatch.fnmatch(path, p) for p in self.accept)


def language_of_path(path: str) -> str:
    """The language a file's name implies."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith("Dockerfile"):
        return "dockerfile"
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return {"sh": "bash", "py": "python", "md": "markdown", "toml": "toml"}.get(suffix, "")


def _normalize_path(path: str) -> str:
    path = path.strip().strip("`")
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


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
    return language, _normalize_path(path) if path else None


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
            raise ProposalError(Reason.TRUNCATED, f"the code block opened on line {i + 1} is never closed")
        content = "\n".join(body)
        blocks.append(Block(language=language, path=path, content=content + "\n" if content else "", line=i + 1))
        i = j + 1
    return blocks


def parse_reply(
    text: str | None, expected: list[Expect], *, finish_reason: str | None = None, require_any: bool = False
) -> dict[str, str]:
    """The files of a reply by their expected path; ProposalError naming what is wrong.

    `require_any`: at least one of the expected files must be present (for replies, such as a
    repair, that may leave some files as they were)."""
    if finish_reason == "length":
        raise ProposalError(Reason.TRUNCATED, "the reply hit the token limit (finish_reason=length)")
    blocks = split_blocks(text or "")
    if not blocks:
        raise ProposalError(Reason.NO_CODE_BLOCK, "the reply contains no fenced code block")
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
            raise ProposalError(
                Reason.WRONG_LANGUAGE,
                f"{expect.path}: asked for {expect.language}, got a {block.language} block (line {block.line})",
            )
        if not block.content.strip():
            raise ProposalError(Reason.EMPTY_BLOCK, f"{expect.path}: the block on line {block.line} is empty")
        _check_content(expect, block.content)
        found[expect.path] = block.content
    if require_any and not found:
        raise _missing(blocks, expected[0], claimed, expected) if expected else ProposalError(Reason.MISSING_BLOCK, "")
    return found


def _find(blocks: list[Block], expect: Expect, claimed: set[int]) -> int | None:
    labelled = [k for k, b in enumerate(blocks) if k not in claimed and b.path and expect.matches(b.path)]
    if labelled:
        return labelled[-1]  # a model that revises itself repeats the block; the last one counts
    unlabelled = [k for k, b in enumerate(blocks) if k not in claimed and not b.path and b.language == expect.language]
    return unlabelled[0] if unlabelled else None


def _missing(blocks: list[Block], expect: Expect, claimed: set[int], expected: list[Expect]) -> ProposalError:
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
        return ProposalError(
            Reason.WRONG_LANGUAGE,
            f"{expect.path}: asked for a {expect.language} block, "
            f"got a {others[0].language} block (line {others[0].line})",
        )
    seen = ", ".join(b.path or b.language or "unlabelled" for b in blocks)
    return ProposalError(Reason.MISSING_BLOCK, f"no block for {expect.path} ({expect.language}); blocks seen: {seen}")


def _check_content(expect: Expect, content: str) -> None:
    if expect.language == "python":
        try:
            compile(content, expect.path, "exec")
        except (SyntaxError, ValueError) as exc:
            raise ProposalError(Reason.INVALID_PYTHON, f"{expect.path}: {exc}") from None
    elif expect.language == "bash":
        error = bash_syntax_error(content.encode("utf-8"))
        if error:
            raise ProposalError(Reason.INVALID_BASH, f"{expect.path}: {error}")
    elif expect.language == "toml":
        try:
            tomllib.loads(content)
        except tomllib.TOMLDecodeError as exc:
            raise ProposalError(Reason.INVALID_TOML, f"{expect.path}: {exc}") from None
    elif expect.language == "dockerfile":
        for line in content.splitlines():
            if re.match(r"^\s*FROM\s", line, re.IGNORECASE):
                raise ProposalError(
                    Reason.INVALID_DOCKERFILE,
                    f"{expect.path}: lines appended to the parent's "
                    f"Dockerfile may not start a new stage ({line.strip()!r})",
                )
