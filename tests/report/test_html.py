"""`rst report` on a small real run: the engine on the fake sandbox (real run directory, real task
directories, three rounds with near-duplicate rejections and repaired candidates), then the oracle
and nop agents through `rst eval`'s runner. The page is read back as a parser and as headless
Chromium sees it."""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rst_synth.agents import make_agent
from rst_synth.evaluation.runner import EvalTask, run_eval
from rst_synth.store import RunPaths, Store
from tests.engine.test_engine_fake import fake_seeds, run_engine
from tests.report.browser import Chromium
from tests.support.cli import rst
from tests.support.fakes import FakeProposer, FakeSandbox

FIGURES = {"growth", "spread", "checks", "cost", "passk", "rejections"}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report-run")
    seeds, run = fake_seeds(root, 3), root / "run"
    run_engine(run, seeds, FakeProposer(cost_per_call=0.01), rounds=1, fanout=2)[1].close()
    # Round 2: every parent's three candidates are the same child, so two of three are near duplicates.
    run_engine(run, seeds, FakeProposer(twins=True, cost_per_call=0.01), rounds=2, fanout=3, repairs=0)[1].close()
    # Round 3: every first proposal fails its oracle; one repair each makes it pass.
    _, store = run_engine(run, seeds, FakeProposer(broken=True, cost_per_call=0.01), rounds=3, fanout=1, repairs=1)
    tasks = [EvalTask(key=t.id, round=t.round, path=run / t.path) for t in store.tasks()]
    for agent, k in (("oracle", 2), ("nop", 1)):
        asyncio.run(
            run_eval(
                tasks,
                make_agent(agent),
                FakeSandbox(),
                store,
                eval_name=agent,
                k=k,
                jobs=2,
                root=run,
                out_dir=RunPaths(run).eval_dir(agent),
            )
        )
    store.close()
    return run


@pytest.fixture(scope="module")
def report(run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "site"
    result = rst("report", str(run), "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "index.html" in result.stdout
    return out


class _Page(HTMLParser):
    """Tables (rows of cell texts), links, images and the diff lines of one page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.links: list[str] = []
        self.images: list[str] = []
        self.diff: list[tuple[str, str]] = []
        self._cell: list[str] | None = None
        self._span: str | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a" and found.get("href"):
            self.links.append(found["href"] or "")
        elif tag == "img":
            self.images.append(found.get("src") or "")
        elif tag == "span" and found.get("class") in ("add", "del", "same", "hunk", "file"):
            self._span = found["class"]
            self.diff.append((self._span or "", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "span":
            self._span = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._span is not None:
            kind, text = self.diff[-1]
            self.diff[-1] = (kind, text + data)

    def table(self, first_header: str) -> list[list[str]]:
        return next(t for t in self.tables if t and t[0] and t[0][0] == first_header)

    def table_after(self, title: str) -> list[list[str]]:
        return next(t for t in self.tables if t and t[0] and t[0][0].startswith(title))


def _page(path: Path) -> _Page:
    return _Page(path.read_text())


def _quartiles(values: list[float]) -> str:
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return f"{median:.1f} [{q1:.1f}–{q3:.1f}]"


def test_the_front_page_holds_the_runs_figures(run: Path, report: Path) -> None:
    store = Store(RunPaths(run).db)
    page = _page(report / "index.html")
    assert {Path(src).stem for src in page.images} == FIGURES
    for src in page.images:
        assert (report / src).read_bytes().startswith(b"\x89PNG"), src

    rounds = page.table("round")
    assert [row[0] for row in rounds[1:]] == ["0", "1", "2", "3"]
    for row in rounds[1:]:
        tasks = store.tasks(int(row[0]))
        assert row[3] == str(len(tasks))  # accepted
        assert row[7] == _quartiles([float(t.solution_lines or 0) for t in tasks])
        assert row[8] == _quartiles([float(t.executed_commands or 0) for t in tasks])

    rejections = page.table("check:reason")
    duplicates = [c for c in store.candidates(2) if c.rejection_reason == "near_duplicate"]
    assert len(duplicates) == 12
    assert rejections[1][0] == "novelty:near_duplicate" and rejections[1][3] == str(len(duplicates))

    oracle, nop = page.table_after("oracle"), page.table_after("nop")
    assert [row[-2:] for row in oracle[2:]] == [["1.00", "1.00"]] * 4  # pass@1, pass@2
    assert [row[-1] for row in nop[2:]] == ["0.00"] * 4

    repaired = {c.id for c in store.candidates(3)}
    slowest, most_rejected = (t for t in page.tables if t[0][0] == "candidate")
    assert len(slowest) == 16  # --top 15 and the header
    listed = {row[0]: row for row in most_rejected[1:]}
    assert repaired <= set(listed)
    assert all(listed[c][6] == "oracle:tests_failed" for c in repaired)
    store.close()


def test_every_task_has_a_lineage_page_with_its_added_steps(run: Path, report: Path) -> None:
    store = Store(RunPaths(run).db)
    tasks = {t.id: t for t in store.tasks()}
    index = _page(report / "index.html")
    assert {f"tasks/{task_id}.html" for task_id in tasks} <= set(index.links)
    deepest = next(t for t in tasks.values() if t.round == 3)
    page = _page(report / "tasks" / f"{deepest.id}.html")
    chain = [deepest.id]
    while tasks[chain[-1]].parent_id:
        chain.append(tasks[chain[-1]].parent_id or "")
    assert [row[0] for row in page.table("task")[1:]] == chain[::-1]
    assert f"../tasks/{deepest.parent_id}.html" in page.links

    parent = tasks[deepest.parent_id or ""]
    before = (run / parent.path / "solution" / "solve.sh").read_text().splitlines()
    after = (run / deepest.path / "solution" / "solve.sh").read_text().splitlines()
    assert after[: len(before)] == before  # the fake proposer appends its step to the parent's script
    added = after[len(before) :]
    assert any(line.startswith("touch ") for line in added)
    assert [text[1:] for kind, text in page.diff if kind == "add"] == added
    assert not [text for kind, text in page.diff if kind == "del"]
    store.close()


def test_a_lineage_limit_keeps_whole_lineages(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = rst("report", str(run), "--out", str(out), "--lineage-limit", "5")
    assert result.returncode == 0, result.stdout + result.stderr
    pages = {p.stem for p in (out / "tasks").glob("*.html")}
    store = Store(RunPaths(run).db)
    tasks = {t.id: t for t in store.tasks()}
    store.close()
    assert 5 <= len(pages) < len(tasks)
    assert all(tasks[p].parent_id is None or tasks[p].parent_id in pages for p in pages)
    assert max(tasks[p].round for p in pages) == 3


def test_a_folder_without_a_run_is_named(tmp_path: Path) -> None:
    result = rst("report", str(tmp_path), "--out", str(tmp_path / "site"))
    assert result.returncode != 0
    assert "run.db" in result.stdout + result.stderr and not (tmp_path / "site").exists()


def test_the_report_loads_in_headless_chromium(run: Path, report: Path, tmp_path: Path, capsys) -> None:
    store = Store(RunPaths(run).db)
    deepest = next(t for t in store.tasks() if t.round == 3)
    store.close()
    browser = Chromium(tmp_path / "profile", tmp_path / "chromium.log")
    try:
        front = browser.load((report / "index.html").as_uri(), tmp_path / "report-front.png")
        lineage = browser.load((report / "tasks" / f"{deepest.id}.html").as_uri(), tmp_path / "report-lineage.png")
    finally:
        browser.close()
    for page in (front, lineage):
        assert page.problems == [], page.url
        assert page.screenshot and page.screenshot.read_bytes().startswith(b"\x89PNG")
    assert {Path(i["src"]).stem for i in front.images} == FIGURES
    assert all(i["complete"] and i["naturalWidth"] > 0 for i in front.images), front.images

    artifacts = Path(os.environ.get("RST_TEST_ARTIFACTS") or Path(tempfile.gettempdir()) / "rst-test-artifacts")
    artifacts.mkdir(parents=True, exist_ok=True)
    for page in (front, lineage):
        assert page.screenshot is not None
        shutil.copy(page.screenshot, artifacts / page.screenshot.name)
    with capsys.disabled():
        print(f"\nreport screenshots: {artifacts / 'report-front.png'} {artifacts / 'report-lineage.png'}")
