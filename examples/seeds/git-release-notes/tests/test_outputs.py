"""Checks of the release commit, tag and changelog, recomputed from the git history."""
import re
import subprocess

REPO = "/app/repo"
SUBJECT = re.compile(r"^([a-z]+)(?:\(([^)]+)\))?(!)?: (.+)$")


def git(*args):
    return subprocess.run(
        ["git", "-C", REPO, *args], check=True, capture_output=True, text=True,
        env={"TZ": "UTC", "PATH": "/usr/bin:/bin"},
    ).stdout


def range_commits():
    """(sha, name, email, subject, committer date) for v1.0.0..release^, oldest first."""
    out = git("log", "--reverse", "--format=%H%x1f%an%x1f%ae%x1f%s%x1f%cI", "v1.0.0..v1.1.0^")
    return [line.split("\x1f") for line in out.splitlines() if line]


def changelog_sections():
    text = git("show", "v1.1.0:CHANGELOG.md")
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    sections = {}
    current = None
    for line in lines[1:]:
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        else:
            assert current is not None and line.startswith("- "), line
            sections[current].append(line)
    return lines[0], sections


def expected_sections():
    sections = {"Breaking Changes": [], "Features": [], "Bug Fixes": [], "Performance": []}
    titles = {"feat": "Features", "fix": "Bug Fixes", "perf": "Performance"}
    authors = set()
    for sha, name, email, subject, _ in range_commits():
        authors.add((name, email))
        m = SUBJECT.match(subject)
        if not m:
            continue
        kind, scope, bang, desc = m.groups()
        bullet = f"- **{scope}:** {desc} ({sha[:7]})" if scope else f"- {desc} ({sha[:7]})"
        if bang:
            sections["Breaking Changes"].append(bullet)
        if kind in titles:
            sections[titles[kind]].append(bullet)
    result = {title: bullets for title, bullets in sections.items() if bullets}
    result["Contributors"] = [f"- {n} <{e}>" for n, e in sorted(authors)]
    return result


def test_v1_0_0_and_history_intact():
    assert git("cat-file", "-t", "v1.0.0").strip() == "tag"
    assert len(range_commits()) == 16
    assert git("merge-base", "--is-ancestor", "v1.0.0", "v1.1.0") == ""


def test_release_tag_is_annotated_on_main():
    assert git("cat-file", "-t", "v1.1.0").strip() == "tag"
    assert git("tag", "-l", "--format=%(contents:subject)", "v1.1.0").strip() == "Release v1.1.0"
    assert git("rev-parse", "v1.1.0^{commit}") == git("rev-parse", "main")


def test_release_commit_touches_only_changelog():
    assert git("log", "-1", "--format=%s", "v1.1.0").strip() == "chore(release): v1.1.0"
    changed = git("diff-tree", "--no-commit-id", "--name-only", "-r", "v1.1.0^", "v1.1.0").split()
    assert changed == ["CHANGELOG.md"]
    assert git("status", "--porcelain").strip() == ""


def test_changelog_title():
    title, _ = changelog_sections()
    date = range_commits()[-1][4][:10]
    assert title == f"# v1.1.0 ({date})"


def test_changelog_sections_and_bullets():
    _, sections = changelog_sections()
    assert list(sections) == list(expected_sections())
    for title, bullets in expected_sections().items():
        if title != "Contributors":
            assert sections[title] == bullets, title


def test_changelog_contributors():
    _, sections = changelog_sections()
    assert sections["Contributors"] == expected_sections()["Contributors"]
