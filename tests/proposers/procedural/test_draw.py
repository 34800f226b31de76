"""How the procedural proposer composes a lineage: domain inputs only, no (operator, input) pair twice,
bookkeeping once and never a round's first step, a draw weighted towards domain operators,
and the whole history recorded in task.toml."""

from __future__ import annotations

import random
from collections import Counter

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.child import Extension, NewStep, assemble_child, split_child
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural import ProceduralProposer
from rst_synth.proposers.procedural.library import bookkeeping_operators
from rst_synth.proposers.procedural.operator import OPERATORS, Step
from rst_synth.proposers.procedural.proposer import domain_artifacts, looks_bookkeeping
from rst_synth.proposers.procedural.scenarios import BY_NAME
from rst_synth.task import HistoryStep, Task
from tests.support.tasks import write_task

SALES = (  # eight rows, regions that repeat: a table that statistics and groups mean something on
    "region,amount,units\nnorth,10.50,3\nsouth,4.25,1\nnorth,7,2\neast,12.00,4\nsouth,3.75,1\nwest,8.40,2\n"
    "east,5.10,3\nwest,9.99,5\n"
)
CHECKSUMS = "0" * 64 + "  /app/out/sales.csv\n"


def file_artifact(path: str, text: str) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def found(*extra: Artifact) -> Discovery:
    artifacts = [
        file_artifact("/app/out/sales.csv", SALES),
        file_artifact("/app/out/notes.txt", "alpha beta\ngamma delta\n"),
        *extra,
    ]
    return Discovery(workdir="/app", artifacts=artifacts, tools=["python3", "sha256sum", "tar", "gzip"])


def test_bookkeeping_operators_are_marked() -> None:
    marked = bookkeeping_operators()
    assert {"files-bundle-targz", "file-sha256-manifest", "archive-manifest", "text-line-stats"} <= marked
    assert not marked & {"git-revert-on-branch", "sqlite-window-report", "csv-rollup-tool", "csv-group-totals"}
    # bookkeeping weighs less than a domain step; the permissions policy (its audit repeats the policy) weighs
    # no more than a one-command step
    assert "permissions-policy" in marked and OPERATORS["permissions-policy"].weight <= 1
    assert all(OPERATORS[name].weight < 1 for name in marked - {"permissions-policy"})


def test_no_step_builds_on_a_bookkeeping_output() -> None:
    archive = Artifact(path="/app/out/bundle.tar.gz", kind=Kind.ARCHIVE, details={"format": "tar.gz"})
    listing = file_artifact("/app/out/sales_sha256.txt", CHECKSUMS)
    assert looks_bookkeeping(archive) and looks_bookkeeping(listing)
    assert not looks_bookkeeping(file_artifact("/app/out/notes.txt", "alpha\n"))
    counts = file_artifact("/app/out/sales_stats.json", '{"lines": 3}')
    history = [HistoryStep(name="text-line-stats", consumes=["/app/x"], produces=[counts.path], bookkeeping=True)]
    kept = domain_artifacts([*found().artifacts, archive, listing, counts], history)
    assert [a.path for a in kept] == ["/app/out/sales.csv", "/app/out/notes.txt"]


def test_copies_of_one_text_count_once() -> None:
    module = "def main():\n    return 1\n"
    copies = [file_artifact(path, module) for path in ("/app/project/tool.py", "/usr/local/lib/tool.py")]
    other = file_artifact("/app/project/other.py", module + "\n")
    kept = domain_artifacts([*copies, other], [])
    assert [a.path for a in kept] == ["/app/project/tool.py", "/app/project/other.py"]


def draw(
    history: list[HistoryStep], seed: int, count: int = 3, discovery: Discovery | None = None, round_: int = 6
) -> list[Step]:
    """The steps the procedural proposer draws for a child of round `round_` (drawing needs no sandbox)."""
    proposer = ProceduralProposer(discovery=None)  # type: ignore[arg-type]
    scenario = BY_NAME["data-migration"]  # room for every deliverable these tables allow
    return proposer._choose(discovery or found(), random.Random(seed), count, set(), round_, history, scenario)


def choose(history: list[HistoryStep], seed: int, count: int = 3, discovery: Discovery | None = None) -> list[str]:
    return [f"{s.operator}@{s.consumes}" for s in draw(history, seed, count, discovery)]


def test_no_operator_input_pair_twice_in_a_lineage() -> None:
    everything = [
        HistoryStep(name=op.name, consumes=[op.input_of(art)])
        for art in found().artifacts
        for op in OPERATORS.values()
        if op.can_use(art, found()) and op.name != "csv-rollup-tool"
    ]
    for seed in range(20):
        picked = choose(everything, seed, count=1)
        assert picked == ["csv-rollup-tool@/app/out/sales.csv"], picked


def test_no_operator_builds_on_its_own_output() -> None:
    """A step on what the same operator wrote earlier (in the lineage or in this child) repeats that step."""
    accepted = file_artifact("/app/out/sales_accepted.csv", SALES + "west,1.25,4\n")
    quarantined = [HistoryStep(name="csv-quarantine-malformed", consumes=["/app/in.csv"], produces=[accepted.path])]
    on_it = Counter()
    for seed in range(40):
        for step in choose(quarantined, seed, discovery=found(accepted)):
            on_it[step.split("@")[0]] += step.endswith("@" + accepted.path)
        steps = draw([], seed)
        for earlier, later in zip(steps, steps[1:], strict=False):
            made = {a.path for a in earlier.produces}
            assert not (later.operator == earlier.operator and later.consumes in made), (earlier, later)
    assert on_it["csv-quarantine-malformed"] == 0
    assert sum(on_it.values()) > 0  # other operators still build on it


def test_draws_respect_the_bookkeeping_limits() -> None:
    """Bookkeeping is never a round's first step (so never its only one) and comes once in a lineage."""
    plain = [HistoryStep(name="csv-group-totals", consumes=[f"/app/x{i}"]) for i in range(4)]
    names = bookkeeping_operators()
    after_plain = Counter()
    for seed in range(60):
        steps = [s.split("@")[0] for s in choose(plain, seed)]
        flags = [s in names for s in steps]
        assert not flags[:1] == [True] and sum(flags) <= 1, steps
        after_plain.update(steps)
        kept = [HistoryStep(name="file-sha256-manifest", consumes=["/app/y"], bookkeeping=True)]
        assert not {s.split("@")[0] for s in choose(kept, seed)} & names
    assert 0 < sum(after_plain[n] for n in names) < sum(after_plain.values()) / 5


def test_domain_operators_win_the_draw_where_they_apply() -> None:
    repo = Artifact(
        path="/app/repo",
        kind=Kind.GIT,
        details={
            "branch": "main",
            "commits": 3,
            "files": ["a.py", "src/b.py"],
            "tags": [],
            "log": [
                {"subject": "first commit", "parents": 1, "files": ["a.py"]},
                {"subject": "fix: second", "parents": 1, "files": ["src/b.py"]},
                {"subject": "docs: third", "parents": 1, "files": ["a.py"]},
            ],
        },
    )
    discovery = found(repo)
    discovery.tools.append("git")
    picks = Counter(choose([], seed, count=1, discovery=discovery)[0].split("@")[0] for seed in range(200))
    git = sum(n for name, n in picks.items() if name.startswith("git-"))
    generic = sum(n for name, n in picks.items() if name in bookkeeping_operators())
    assert git > 40 and generic == 0, picks  # the first steps of a lineage are never bookkeeping


def test_assembled_child_records_the_whole_history(tmp_path) -> None:
    parent = Task.load(write_task(tmp_path / "p", name="parent", solve="touch /app/a\n"))
    step = NewStep(
        name="csv-rollup-tool",
        tag="r1s1",
        consumes=["/app/a"],
        solution="touch /app/b\n",
        test_module="def test_b():\n    assert True\n",
        instruction="Make b.",
        produces=["/app/b"],
    )
    child = assemble_child(parent, Extension(steps=[step]), proposer="procedural")
    second = step.model_copy(
        update={"tag": "r2s1", "consumes": ["/app/b"], "produces": ["/app/c"], "bookkeeping": True}
    )
    grandchild = assemble_child(child, Extension(steps=[second]), proposer="procedural")
    history = grandchild.config.metadata.lineage.history
    assert [(h.name, h.consumes, h.produces, h.bookkeeping) for h in history] == [
        ("csv-rollup-tool", ["/app/a"], ["/app/b"], False),
        ("csv-rollup-tool", ["/app/b"], ["/app/c"], True),
    ]
    saved = Task.load(grandchild.save(tmp_path / "g"))
    assert saved.config.metadata.lineage.history == history
    again = split_child(child, saved)
    assert again.steps[0].produces == ["/app/c"] and again.steps[0].bookkeeping


def test_a_tool_for_the_same_columns_is_not_written_twice() -> None:
    same = file_artifact("/app/out/june.csv", SALES)  # the columns of sales.csv again
    other = file_artifact("/app/out/costs.csv", "team,cost\nops,10.5\ndev,3\n")
    tools = [file_artifact(f"/app/bin/region_{v}_rollup", "#!/usr/bin/env python3\n") for v in ("amount", "units")]
    discovery = found(same, other, *tools)  # an earlier step wrote both rollup tools of these columns
    for seed in range(30):
        steps = draw([], seed, discovery=discovery, round_=2)
        rollups = [s.consumes for s in steps if s.operator == "csv-rollup-tool"]
        assert rollups in ([], ["/app/out/costs.csv"]), rollups  # never sales.csv nor june.csv
        tools_made = [a.path for s in steps for a in s.produces if a.path.startswith("/app/bin/")]
        assert len(tools_made) == len(set(tools_made))


def test_no_step_builds_on_a_summary() -> None:
    stats = file_artifact("/app/out/sales_stats.json", '{"amount": {"min": 4.25, "max": 10.5}}')
    history = [HistoryStep(name="csv-column-stats", consumes=["/app/out/sales.csv"], produces=[stats.path])]
    assert OPERATORS["csv-column-stats"].final and not OPERATORS["csv-rollup-tool"].final
    assert all(OPERATORS[name].final for name in ("cron-next-runs", "config-check-tool", "git-changelog-tool"))
    assert stats.path not in [a.path for a in domain_artifacts([*found().artifacts, stats], history)]
    summaries = {name for name, op in OPERATORS.items() if op.final}
    for seed in range(40):  # nor within one child: a summary's output is never the next step's input
        steps = draw([], seed, round_=2)
        ends = {a.path for s in steps if s.operator in summaries for a in s.produces}
        assert not ends & {s.consumes for s in steps}, [(s.operator, s.consumes) for s in steps]


def test_an_access_policy_is_applied_once_per_lineage() -> None:
    assert OPERATORS["permissions-policy"].once
    applied = [HistoryStep(name="permissions-policy", consumes=["/app/report"])]
    picks = {step.split("@")[0] for seed in range(60) for step in choose(applied, seed)}
    assert "permissions-policy" not in picks and picks
    assert "permissions-policy" in {step.split("@")[0] for seed in range(60) for step in choose([], seed)}


def test_bookkeeping_stays_in_the_work_root() -> None:
    system = [file_artifact(path, "root:x:0:\n") for path in ("/etc/group", "/home/ann/.bash_logout")]
    plain = [HistoryStep(name="csv-group-totals", consumes=[f"/app/x{i}"]) for i in range(4)]
    names = bookkeeping_operators()
    for seed in range(60):
        for step in choose(plain, seed, discovery=found(*system)):
            name, consumed = step.split("@")
            assert name not in names or consumed.startswith("/app/"), step


def test_files_of_a_repository_are_reached_through_the_repository() -> None:
    repo = Artifact(path="/app/repo", kind=Kind.GIT, details={"branch": "main", "commits": 2})
    inside = file_artifact("/app/repo/CHANGELOG.md", "# v1.1.0\n- fix: parser\n")
    kept = [a.path for a in domain_artifacts([*found().artifacts, repo, inside], [])]
    assert "/app/repo" in kept and "/app/repo/CHANGELOG.md" not in kept
    beside = file_artifact("/app/repository.txt", "not inside\n")  # a shared prefix is no folder
    assert "/app/repository.txt" in [a.path for a in domain_artifacts([repo, beside], [])]


def test_a_step_on_an_input_writes_under_derived_and_makes_the_folder() -> None:
    """The task's own log, read by its workflow: a step on it writes to <work root>/derived, which it creates
    (the image has no such folder), and never beside the input."""
    log = file_artifact("/srv/feeds/sales.csv", SALES).model_copy(update={"input": True, "new": False})
    discovery = Discovery(workdir="/app", artifacts=[log], tools=["python3"])
    steps = [step for seed in range(12) for step in draw([], seed, count=1, discovery=discovery)]
    assert any(a.path.startswith("/app/derived/") for step in steps for a in step.produces)
    for step in steps:
        assert all(a.path.startswith("/app/") and not a.path.startswith("/srv/feeds/") for a in step.produces), step
        if any(a.path.startswith("/app/derived/") for a in step.produces):
            assert step.solution.startswith("mkdir -p /app/derived\n"), step.operator


def test_an_operator_that_applies_to_many_files_does_not_crowd_the_draw() -> None:
    """Eight lists of names and one table of records: a conversion applies to all nine files, the tools with a
    contract to the one table; the draw weighs operators, not (operator, file) pairs, so the tools keep their share."""
    lists = [file_artifact(f"/app/out/l{i}.csv", f"name,city\nann{i},Oslo\nbob{i},Lima\n") for i in range(8)]
    discovery = Discovery(workdir="/app", artifacts=[*lists, found().artifacts[0]], tools=["python3"])
    picks = Counter(choose([], seed, count=1, discovery=discovery)[0].split("@")[0] for seed in range(300))
    reasoning = sum(n for name, n in picks.items() if OPERATORS[name].weight >= 3)
    assert reasoning > 0.6 * 300, picks


def test_a_child_takes_each_operator_once() -> None:
    """The same operator on two similar files of one child reads as one chore done twice (a startup fault
    fixed on two hosts' configurations in one round): the second file waits for a later round."""
    north = file_artifact("/app/out/north.csv", SALES)
    south = file_artifact("/app/out/south.csv", SALES.replace("north", "upper"))
    twice = []
    for seed in range(40):
        names = [s.operator for s in draw([], seed, count=3, discovery=found(north, south))]
        twice += [n for n in set(names) if names.count(n) > 1]
    assert twice == []
