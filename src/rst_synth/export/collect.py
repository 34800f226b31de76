"""`rst collect`: rejection sampling over `rst eval`'s attempts into fine-tuning data, and the tasks of
a run as SkyRL's RL dataset.

Trajectory formats (trl, sharegpt, openai) keep the attempts that earned at least `min_reward`,
then drop those with a malformed reply, identical duplicates, those over the token budget and
those past `max_per_task`, in that order. `split_by="lineage"` puts whole lineages (root seeds) on
the validation side, so no family of tasks sits on both sides. Each format is written under
OUT/<format>/ as <split>.jsonl (or .parquet through HF `datasets`), with OUT/samples.jsonl (where
each record came from) and a dataset card, OUT/README.md.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from rst_synth.export.card import write_card
from rst_synth.export.formats import RECORDS, TRAJECTORY_FORMATS, dataset_info_entry
from rst_synth.export.samples import SPLITS, CollectOptions, CollectReport, Sample, Split
from rst_synth.export.sft import PLUMBING_AGENTS, Conversation, Unusable, conversation_of, read_trajectory
from rst_synth.export.sources import CollectError, StoredAttempt, find_attempts, find_tasks
from rst_synth.rl.dataset import skyrl_row

FORMATS = (*TRAJECTORY_FORMATS, "skyrl")
__all__ = ["FORMATS", "SPLITS", "CollectOptions", "CollectReport", "Sample", "Split", "collect"]


def collect(paths: list[Path], out: Path, options: CollectOptions) -> CollectReport:
    """Write the formats of `options` under `out`; CollectError (one line) for a bad path or option."""
    unknown = [f for f in options.formats if f not in FORMATS]
    if unknown or not options.formats:
        raise CollectError(f"unknown format {', '.join(unknown) or '(none)'}: choose from {', '.join(FORMATS)}")
    if options.parquet:
        _require_datasets()
    report = CollectReport()
    trajectory_formats = [f for f in options.formats if f in TRAJECTORY_FORMATS]
    kept: list[tuple[StoredAttempt, Conversation]] = []
    if trajectory_formats:
        attempts = [a for path in paths for a in find_attempts(path)]
        report.attempts = len(attempts)
        kept = select(attempts, options, report.dropped)
    tasks = [t for path in paths for t in find_tasks(path)] if "skyrl" in options.formats else []
    roots = {a.root for a, _ in kept} | {t.root for t in tasks}
    validation = lineage_split(roots, options.validation_fraction) if options.split_by == "lineage" else set()

    def side(root: str) -> Split:
        return "validation" if root in validation else "train"

    report.samples = [
        Sample(
            split=side(a.root),
            task=a.task,
            task_dir=str(a.task_dir.resolve()) if a.task_dir else None,
            eval_id=a.eval_id,
            attempt=a.attempt,
            round=a.round,
            root=a.root,
            reward=a.reward,
            mode=c.mode,
            approx_tokens=c.approx_tokens(),
        )
        for a, c in kept
    ]
    out.mkdir(parents=True, exist_ok=True)
    for fmt in trajectory_formats:
        by_split = {s: [RECORDS[fmt](c) for (a, c) in kept if side(a.root) == s] for s in SPLITS}
        _write_format(out, fmt, by_split, options.parquet, report)
    if tasks:
        report.tasks, report.task_splits = tasks, [side(t.root) for t in tasks]
        rows = {s: [skyrl_row(t, max_turns=options.max_turns) for t in tasks if side(t.root) == s] for s in SPLITS}
        _write_format(out, "skyrl", rows, options.parquet, report)
    if trajectory_formats:
        with (out / "samples.jsonl").open("w", encoding="utf-8") as handle:
            for sample in report.samples:
                handle.write(sample.model_dump_json() + "\n")
    write_card(out / "README.md", report, options)
    return report


def select(
    attempts: list[StoredAttempt], options: CollectOptions, dropped: dict[str, int]
) -> list[tuple[StoredAttempt, Conversation]]:
    """Rejection sampling: the attempts worth training on, in a stable order, and why the rest went."""

    def drop(reason: str) -> None:
        dropped[reason] = dropped.get(reason, 0) + 1

    seen: set[str] = set()
    per_task: dict[str, int] = {}
    kept = []
    for attempt in sorted(attempts, key=lambda a: (a.round, a.root, a.task, a.eval_id, a.attempt)):
        if options.evals and attempt.eval_id not in options.evals:
            drop("other_eval")
            continue
        if not options.evals and attempt.eval_id in PLUMBING_AGENTS:
            drop("plumbing_agent")
            continue
        if attempt.reward < options.min_reward:
            drop("below_min_reward")
            continue
        try:
            conversation = conversation_of(read_trajectory(attempt))
        except Unusable as exc:
            drop(exc.reason)
            continue
        if conversation.approx_tokens() > options.max_tokens:
            drop("over_token_budget")
            continue
        key = hashlib.sha256(conversation.key().encode()).hexdigest()
        if key in seen:
            drop("duplicate")
            continue
        if options.max_per_task is not None and per_task.get(attempt.task, 0) >= options.max_per_task:
            drop("over_max_per_task")
            continue
        seen.add(key)
        per_task[attempt.task] = per_task.get(attempt.task, 0) + 1
        kept.append((attempt, conversation))
    return kept


def lineage_split(roots: set[str], fraction: float) -> set[str]:
    """The root seeds on the validation side: a stable pick (by hash, not by order found) of about
    `fraction` of them, at least one when there are two or more, never all."""
    if len(roots) < 2:
        return set()
    ranked = sorted(roots, key=lambda r: hashlib.sha256(r.encode()).hexdigest())
    count = min(len(roots) - 1, max(1, round(fraction * len(roots))))
    return set(ranked[:count])


def _write_format(
    out: Path, fmt: str, by_split: dict[Split, list[dict[str, Any]]], parquet: bool, report: CollectReport
) -> None:
    folder = out / fmt
    folder.mkdir(parents=True, exist_ok=True)
    for stale in [*folder.glob("*.jsonl"), *folder.glob("*.parquet"), folder / "dataset_info.json"]:
        stale.unlink(missing_ok=True)  # a rerun with other options leaves no file of the last one
    written = []
    report.records[fmt] = {}
    for split, records in by_split.items():
        report.records[fmt][split] = len(records)
        if not records and split != "train":
            continue
        path = folder / f"{split}.{'parquet' if parquet else 'jsonl'}"
        (_write_parquet if parquet else _write_jsonl)(path, records, fmt)
        written.append(path)
    if fmt == "sharegpt":
        info = {f"rst_synth_{p.stem}": dataset_info_entry(p.name) for p in written}
        (folder / "dataset_info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        written.append(folder / "dataset_info.json")
    report.files[fmt] = [str(p.relative_to(out)) for p in written]


def _write_jsonl(path: Path, records: list[dict[str, Any]], fmt: str) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _write_parquet(path: Path, records: list[dict[str, Any]], fmt: str) -> None:
    datasets = _require_datasets()
    features = None
    if fmt in ("trl", "openai"):
        # Turns differ in their keys and tool arguments in their fields: stored as JSON they come back
        # exactly as written, where a struct column would give every turn every key.
        features = datasets.Features(
            {"messages": datasets.List(datasets.Json()), "tools": datasets.List(datasets.Json())}
            | ({"parallel_tool_calls": datasets.Value("bool")} if fmt == "openai" else {})
        )
        records = [{name: r.get(name) for name in features} for r in records]
    datasets.Dataset.from_list(records, features=features).to_parquet(str(path))


def _require_datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise CollectError("--parquet needs HF datasets: pip install 'rst-synth[train]'") from None
    if not hasattr(datasets, "Json"):
        raise CollectError(f"--parquet needs datasets >= 5 (its Json feature); found {datasets.__version__}")
    datasets.disable_progress_bars()  # a progress bar per file is noise in a command's output
    return datasets
