"""Shipped code as the executable tool a step writes, for the unit tests of the shipped modules."""

from __future__ import annotations

import sys
from pathlib import Path

from rst_synth.proposers.procedural.shipping import python_tool

SHEBANG = "#!/usr/bin/env python3\n"


def tool_file(path: Path, code: str, call: str = "sys.exit(main(sys.argv))", wrong: tuple[str, str] = ("", "")) -> str:
    """`python_tool(code, call)` written to `path` as an executable run by this interpreter (not a `python3`
    found on `PATH`), with the text `wrong[0]` of `code` (which must be there) replaced by `wrong[1]`; the
    path, as the shipped tests take it."""
    assert wrong[0] in code, wrong[0]
    text = python_tool(code.replace(*wrong) if wrong[0] else code, call)
    assert text.startswith(SHEBANG)
    path.write_text(f"#!{sys.executable}\n" + text.removeprefix(SHEBANG), encoding="utf-8")
    path.chmod(0o755)
    return str(path)
