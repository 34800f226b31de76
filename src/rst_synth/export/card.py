"""The dataset card `rst collect` writes (OUT/README.md): a Hugging Face card whose front matter
names one config per format, and counts per format, per round and per root seed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import yaml

from rst_synth.export.samples import CollectOptions, CollectReport

TAGS = ["terminal", "agents", "trajectories", "rst-synth"]
LOADING = {
    "trl": "TRL: `SFTTrainer(train_dataset=load_dataset('json', data_files='trl/train.jsonl', split='train'))`;"
    " the trainer applies the model's chat template, tools included.",
    "sharegpt": "LLaMA-Factory: `dataset_dir: sharegpt`, `dataset: rst_synth_train` (entries in"
    " sharegpt/dataset_info.json).",
    "openai": "OpenAI fine-tuning: upload openai/train.jsonl as the training file.",
    "skyrl": "SkyRL: `data.train_data=['skyrl/train.parquet']` with `environment.env_class=rst_terminal`"
    " (register it first: `rst_synth.rl.register_skyrl_envs()`).",
}
DROP_REASONS = {
    "plumbing_agent": "an oracle or nop attempt (no model behind it)",
    "other_eval": "an eval not named with --eval",
    "below_min_reward": "reward below --min-reward",
    "unreadable": "trajectory.json missing or not ATIF",
    "format_error": "a malformed model reply (no command, two commands, arguments that are not JSON)",
    "model_error": "a failed model call",
    "no_command": "the agent ran no command",
    "over_token_budget": "longer than --max-tokens",
    "duplicate": "identical to a trajectory already kept",
    "over_max_per_task": "past --max-per-task for its task",
}


def write_card(path: Path, report: CollectReport, options: CollectOptions) -> None:
    configs = [
        {
            "config_name": fmt,
            "data_files": [{"split": Path(f).stem, "path": f} for f in files if not f.endswith(".json")],
        }
        for fmt, files in report.files.items()
    ]
    front = yaml.safe_dump(
        {"pretty_name": "rst-synth agent trajectories", "tags": TAGS, "configs": configs}, sort_keys=False
    )
    lines = ["---", front.rstrip(), "---", "", "# rst-synth: agent trajectories and RL tasks", ""]
    if report.samples or report.attempts:
        split = "by lineage (root seed)" if options.split_by == "lineage" else "none (everything in train)"
        lines += [
            f"Made by `rst collect` from {report.attempts} `rst eval` attempts: {len(report.samples)} kept, those"
            f" with reward >= {options.min_reward:g}, no malformed reply, no identical duplicate, at most"
            f" {options.max_tokens} tokens (four characters a token)"
            + (f", at most {options.max_per_task} per task" if options.max_per_task else "")
            + f". Train/validation split: {split}.",
            "",
        ]
    lines += ["## Records per format", "", "| format | train | validation | files |", "|---|---:|---:|---|"]
    for fmt, counts in report.records.items():
        files = ", ".join(f"`{f}`" for f in report.files.get(fmt, []))
        lines.append(f"| {fmt} | {counts.get('train', 0)} | {counts.get('validation', 0)} | {files} |")
    rows = [(s.round, s.root, s.split) for s in report.samples]
    if report.samples:
        lines += ["", "Trajectories by how the model called commands: " + _counts(s.mode for s in report.samples)]
    tables = [("trajectories", rows)] if rows else []
    if report.tasks:
        tables.append(
            ("RL tasks", [(t.round, t.root, s) for t, s in zip(report.tasks, report.task_splits, strict=True)])
        )
    for what, entries in tables:
        lines += _per_round(what, entries) + _per_root(what, entries)
    if report.dropped:
        lines += ["", "## Left out", "", "| reason | attempts |", "|---|---:|"]
        lines += [f"| {DROP_REASONS.get(r, r)} | {n} |" for r, n in sorted(report.dropped.items())]
    lines += ["", "## Loading", ""] + [f"- {LOADING[fmt]}" for fmt in report.files]
    lines += ["", "`samples.jsonl` names the task, eval, attempt, round, root seed and reward of each record."]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _per_round(what: str, entries: Sequence[tuple[int, str, str]]) -> list[str]:
    counts = Counter((r, s) for r, _, s in entries)
    lines = ["", f"## {what.capitalize()} per round", "", "| round | train | validation |", "|---:|---:|---:|"]
    for round_ in sorted({r for r, _ in counts}):
        lines.append(f"| {round_} | {counts[(round_, 'train')]} | {counts[(round_, 'validation')]} |")
    return lines


def _per_root(what: str, entries: Sequence[tuple[int, str, str]]) -> list[str]:
    counts = Counter((root, s) for _, root, s in entries)
    lines = ["", f"## {what.capitalize()} per root seed", "", "| root seed | split | records |", "|---|---|---:|"]
    for (root, split), n in sorted(counts.items()):
        lines.append(f"| {root} | {split} | {n} |")
    return lines


def _counts(values: Iterable[str]) -> str:
    counted = Counter(values)
    return ", ".join(f"{k} {v}" for k, v in sorted(counted.items()))
