"""Every relative link and image in README.md and docs/*.md resolves: the file exists and, where
the link names a heading (`page.md#anchor`), the page has that heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.tasks import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_LINK = re.compile(r"!?\[[^\]]*\]\(([^()\s]+)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_CODE = re.compile(r"`[^`\n]*`")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def prose(text: str) -> str:
    """TEXT without code blocks and code spans, where brackets are not links."""
    return _CODE.sub("", _FENCE.sub("", text))


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation but `-` and `_` dropped, spaces as `-`."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    return re.sub(r"[^\w\- ]", "", text.replace("`", "").lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {anchor(heading) for heading in _HEADING.findall(_FENCE.sub("", page.read_text(encoding="utf-8")))}


def targets(page: Path) -> list[str]:
    return [t for t in _LINK.findall(prose(page.read_text(encoding="utf-8"))) if not re.match(r"[a-z]+:", t)]


def broken(page: Path) -> list[str]:
    found = []
    for target in targets(page):
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            found.append(f"{target}: no such file")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            found.append(f"{target}: no such heading")
    return found


def test_there_are_pages_and_links() -> None:
    assert len(PAGES) > 2 and sum(len(targets(page)) for page in PAGES) > 20
    assert any(target.endswith(".png") for target in targets(REPO / "README.md"))  # images are checked too


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken(page) == []


def test_a_missing_file_or_heading_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# A heading: with `code` / more\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#a-heading-with-code--more) ![gone](img.png) [no](other.md#nothing) [self](#top)\n"
        "`[not a link](nowhere.md)` [web](https://example.com/x.md)\n\n## Top\n"
    )
    assert broken(page) == ["img.png: no such file", "other.md#nothing: no such heading"]
