"""Replies that are nearly right, made right by stated rules (what small local models send).

1. The path inside the block: a first line that names the file the block is for, as `path=P`,
   `file: P`, `# P`, `// P`, `<!-- P -->` or a bare `P`, is taken as the block's path and removed from
   its content (when the fence names no path, or the same one). A bare `P` must be a path the
   stage asked for, so a command line such as `/app/run.sh` is never taken.
2. A block that writes its file instead of being it: what remains after rule 1 is one heredoc
   `cat <<'EOF' > "$path"` ... `EOF` into the named path (or into P itself); the block becomes the
   heredoc's body.
3. An unfenced reply where only markdown is expected (one file, or either form of an instruction), and
   which names a path (`/x`), is taken whole as that file (the one its first line names, else the last
   expected: of an instruction's two forms the addendum, which never loses the parent's text), after
   trimming chatter: a first paragraph of one line that ends in a colon or opens with
   "Sure"/"Certainly"/"Here is"/"Here's"/"Below is", and a last paragraph of one line that opens with
   "Let me know"/"I hope"/"Hope this"/"Feel free"/"If you"/"Note:"/"This addendum"/"This text".
"""

from __future__ import annotations

import re
from collections.abc import Callable

_PATH_LINE = re.compile(
    r"""^\s*
    (?P<comment>\#+|//|--|<!--)?\s*
    (?:(?P<key>path|file|filename|title)\s*[=:]\s*)?
    (?P<q>["'`]?)(?P<path>[\w./-]+)(?P=q)
    \s*(?:-->)?\s*$""",
    re.VERBOSE | re.IGNORECASE,
)
_HEREDOC = re.compile(
    r"""^\s*cat\s+(?:
        <<(?P<dash>-?)\s*(?P<q>['"]?)(?P<tag>\w+)(?P=q)\s*>>?\s*(?P<target>\S+)
      | >>?\s*(?P<target2>\S+)\s*<<(?P<dash2>-?)\s*(?P<q2>['"]?)(?P<tag2>\w+)(?P=q2)
    )\s*$""",
    re.VERBOSE,
)
_OPENERS = ("sure", "certainly", "here is", "here's", "below is")
_CLOSERS = ("let me know", "i hope", "hope this", "feel free", "if you", "note:", "this addendum", "this text")


def normalize_path(path: str) -> str:
    """A path as the reply format uses it: relative, no `./`, no quotes."""
    path = path.strip().strip("`\"'")
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def own_path_line(
    content: str, fence_path: str | None, wanted: Callable[[str], bool]
) -> tuple[str | None, str, str | None]:
    """(path, content, variable) after rules 1 and 2: the path the first line names (else
    `fence_path`), the content without that line (unwrapped from a heredoc into it), and the shell
    variable the line assigned (None when the line was not `name=P`). Unchanged when no rule applies."""
    lines = content.splitlines()
    start = next((k for k, line in enumerate(lines) if line.strip() and not line.startswith("#!")), None)
    if start is None:
        return fence_path, content, None
    match = _PATH_LINE.match(lines[start])
    if match:
        named = normalize_path(match.group("path"))
        bare = not match.group("comment") and not match.group("key")
        names_itself = named == fence_path or (fence_path is None and wanted(named))
        if names_itself and ("/" in named or "." in named) and not (bare and lines[start].lstrip().startswith("/")):
            variable = match.group("key") if match.group("key") and "=" in lines[start] else None
            rest = "\n".join(lines[start + 1 :]).strip("\n")
            rest = _unwrap_heredoc(rest, named, variable) or rest
            return named, rest + "\n" if rest else "", variable
    unwrapped = _heredoc_into(lines[start:], fence_path, wanted)
    if unwrapped is not None:
        return unwrapped
    return fence_path, content, None


def _heredoc_into(
    lines: list[str], fence_path: str | None, wanted: Callable[[str], bool]
) -> tuple[str | None, str, str | None] | None:
    """Rule 2 without rule 1: a block that is only `cat > P <<'EOF'` ... `EOF` for a path P asked for."""
    match = _HEREDOC.match(lines[0])
    if not match:
        return None
    target = normalize_path(match.group("target") or match.group("target2"))
    if not (target == fence_path or (fence_path is None and wanted(target))):
        return None
    body = _unwrap_heredoc("\n".join(lines), target, None)
    return (target, body + "\n" if body else "", None) if body is not None else None


def _unwrap_heredoc(text: str, path: str, variable: str | None) -> str | None:
    """The body of `text` when all of it is one `cat` heredoc into `path` (or `$variable`)."""
    lines = text.splitlines()
    if not lines:
        return None
    match = _HEREDOC.match(lines[0])
    if not match:
        return None
    target = (match.group("target") or match.group("target2")).strip("\"'")
    targets = {path, f"/{path}", f"./{path}"} | ({f"${variable}", f"${{{variable}}}"} if variable else set())
    if target not in targets:
        return None
    tag = match.group("tag") or match.group("tag2")
    dash = bool(match.group("dash") or match.group("dash2"))
    for end, line in enumerate(lines[1:], start=1):
        if (line.lstrip("\t") if dash else line) == tag:
            if any(rest.strip() for rest in lines[end + 1 :]):
                return None  # more work after the heredoc: a real script, not a wrapped file
            return "\n".join(lines[1:end]).strip("\n")
    return None


def trim_chatter(text: str) -> str:
    """Rule 3: `text` without a one-line opening and closing remark (see the module's docstring)."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    if paragraphs and _is_opener(paragraphs[0]):
        paragraphs = paragraphs[1:]
    if paragraphs and "\n" not in paragraphs[-1].strip() and paragraphs[-1].strip().lower().startswith(_CLOSERS):
        paragraphs = paragraphs[:-1]
    return "\n\n".join(p.strip("\n") for p in paragraphs) + "\n" if paragraphs else ""


def _is_opener(paragraph: str) -> bool:
    line = paragraph.strip()
    return "\n" not in line and (line.endswith(":") or line.lower().startswith(_OPENERS))
