"""`rst eval`: run an agent on a run's accepted tasks (round by round) or on task directories."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from rst_synth.agents import AttemptLimits, AttemptResult, make_agent
from rst_synth.agents.steps import RewardStrategy, load_task_dir
from rst_synth.cli.common import console, fail, open_executor, open_sandbox, own, run_with_sandbox, setup_logging
from rst_synth.cli.options import (
    AgentBaseUrl,
    AgentLLMConfig,
    AgentModel,
    AsJson,
    Backend,
    ExecutorName,
    MultiStep,
    RayAddress,
    RewardStrategyName,
    endpoint,
    reward_strategy,
)
from rst_synth.cli.tables import credit_column, pass_table, progress_bars
from rst_synth.evaluation.passk import rounds_pass
from rst_synth.evaluation.runner import EvalTask, eval_id, run_eval
from rst_synth.executors import AgentSpec, WorkSpec
from rst_synth.export import LineageError, check_lineages, task_form
from rst_synth.report.stats import step_credit
from rst_synth.store import AgentAttemptRow, RunPaths, Store
from rst_synth.store.lock import RunLock
from rst_synth.task import Task, TaskConfig, TaskFormatError, TaskPaths


def eval_command(
    paths: Annotated[list[Path], typer.Argument(help="A run directory (its accepted tasks) or task directories.")],
    agent: Annotated[str, typer.Option(help="oracle, nop, llm, or a dotted path package.module:factory.")] = "llm",
    k: Annotated[int, typer.Option("-k", min=1, help="Attempts per task.")] = 1,
    jobs: Annotated[
        int | None,
        typer.Option("-j", "--jobs", min=1, help="Attempts in parallel. [default: 2; ray: the cluster's slots]"),
    ] = None,
    model: AgentModel = None,
    base_url: AgentBaseUrl = None,
    llm_config: AgentLLMConfig = None,
    mode: Annotated[str | None, typer.Option(help="llm agent: tools, text or auto (default).")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Where attempts go for task directories.")] = Path("evals"),
    as_json: AsJson = False,
    max_usd: Annotated[float | None, typer.Option(help="Stop starting attempts once they cost this much.")] = None,
    max_steps: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Most commands per attempt. [default: no count limit; the task's \\[agent] timeout_sec bounds it]",
        ),
    ] = None,
    command_timeout: Annotated[float, typer.Option(help="Seconds one command may run.")] = 120.0,
    backend: Backend = "docker",
    executor: ExecutorName = "local",
    ray_address: RayAddress = None,
    multi_step: MultiStep = False,
    strategy_name: RewardStrategyName = "mean",
) -> None:
    """Run an agent K times on each task and report pass@k.

    PATH is a run directory made by `rst synth` (its accepted tasks, round by round; results go into
    the run's store and RUN/evals/<agent>-<model>/) or task directories (results under --out).
    Resumable: run it again and only unfinished attempts run. Every attempt writes trajectory.json
    (Harbor's ATIF v1.4) and result.json. pass@k is the unbiased estimator, averaged over tasks.

    An attempt is bounded by its task's \\[agent] timeout_sec, which synthesis sets from the task's
    measured work (instruction length, executed commands, solution lines, oracle time), and by no
    count of commands, as in Harbor: a count would be a second, cruder clock that stops an agent
    working in small commands before one that writes large scripts. --max-steps caps it by hand.

    A run's tasks run as `rst export` writes them: flat, with each step's share of tests passed
    recorded where the verifier reports it, or with --multi-step one step per round, the agent
    getting each step's instruction in turn in one container, each step's tests after it, a step
    below its gate ending the attempt. Task directories run as they are (a multi-step task
    directory as its steps) unless --multi-step makes their lineages steps. Per-step rewards go to
    result.json and the store; tables show the mean per-step credit beside pass@k.
    """
    strategy = reward_strategy(strategy_name)
    run = paths[0] if len(paths) == 1 and RunPaths(paths[0]).exists() else None
    options: dict[str, Any] = {**endpoint(model, base_url, llm_config), **({"mode": mode} if mode else {})}
    # One owner per folder, as for `rst synth`: a second eval (or a synth) on it stops at once.
    own(RunLock(run if run is not None else out))
    if run is not None:
        run_paths = RunPaths(run)
        store, root = Store(run_paths.db), run_paths.root
        tasks = [EvalTask(key=row.id, round=row.round, path=root / row.path) for row in store.tasks()]
    else:
        out.mkdir(parents=True, exist_ok=True)
        store, root = Store(out / "eval.db"), out
        tasks = []
        for path in paths:
            task = _load(partial(load_task_dir, path))
            lineage = task.config.metadata.lineage
            tasks.append(EvalTask(key=str(path.resolve()), round=lineage.round if lineage else 0, path=path))
    if multi_step:  # a lineage with a missing parent is refused before any attempt runs
        _load(lambda: check_lineages([t.path for t in tasks if run is not None or not _is_multi_step(t.path)]))
    load = _eval_form(as_run=run is not None, multi_step=multi_step, strategy=strategy)
    evals_root = RunPaths(run).root / "evals" if run is not None else out
    cache_dir = str(evals_root / "llm-cache")
    try:  # replies are cached with the evals, so a resumed attempt does not pay for them twice
        chosen = make_agent(agent, **options, cache_dir=cache_dir)
    except ValueError as exc:
        raise fail(str(exc).splitlines()[0]) from None
    name = eval_id(chosen.name, chosen.model)
    out_dir = evals_root / name
    setup_logging(False, out_dir / "eval.jsonl")
    # Scoped to the eval's folder, so a resume removes what a killed earlier eval left running.
    labels = {"rst-synth.run-dir": str(out_dir.resolve())}
    sandbox = open_sandbox(backend, labels=labels)
    spec = WorkSpec(backend=backend, labels=labels, agent=AgentSpec.of(agent, {**options, "cache_dir": cache_dir}))
    runner = open_executor(executor, ray_address, sandbox, None, spec)
    jobs = jobs or runner.capacity("attempt") or 2
    limits = AttemptLimits(max_steps=max_steps, command_timeout_sec=command_timeout)
    planned = len(tasks) * k

    async def work() -> str:
        await sandbox.prune()
        with progress_bars("solved {task.fields[solved]}", disable=as_json) as bars:
            done = [row for row in store.agent_attempts(name) if row.task in {t.key for t in tasks}]
            solved = sum(1 for row in done if row.reward >= 1)
            bar = bars.add_task(f"{name}", total=planned, completed=len(done), solved=solved)

            class _Bar:
                def attempt_finished(self, result: AttemptResult) -> None:
                    bars.update(bar, advance=1, solved=bars.tasks[bar].fields["solved"] + int(result.reward >= 1))

            try:
                return await run_eval(
                    tasks,
                    chosen,
                    sandbox,
                    store,
                    eval_name=name,
                    k=k,
                    jobs=jobs,
                    root=root,
                    out_dir=out_dir,
                    limits=limits,
                    max_usd=max_usd,
                    progress=_Bar(),
                    executor=runner,
                    load=load,
                )
            finally:
                await runner.close()
                await chosen.close()

    try:
        reason = run_with_sandbox(sandbox, work)
        keys = {t.key for t in tasks}
        rows = [r for r in store.agent_attempts(name) if r.task in keys]
    finally:
        store.close()
    _report(rows, tasks, k, name, chosen.name, chosen.model, as_json, by_round=run is not None)
    if reason != "done":
        console.print(f"stopped: {reason}", highlight=False)


T = TypeVar("T")


def _load(read: Callable[[], T]) -> T:
    """`read()`, with a malformed task or a broken lineage as one error line."""
    try:
        return read()
    except (TaskFormatError, LineageError) as exc:
        raise fail(str(exc)) from None


def _is_multi_step(path: Path) -> bool:
    """Whether a task directory is a multi-step task already (its task.toml has `[[steps]]`)."""
    config = _load(partial(TaskConfig.load, path / TaskPaths.CONFIG))
    return bool((config.model_extra or {}).get("steps"))


def _eval_form(*, as_run: bool, multi_step: bool, strategy: RewardStrategy) -> Callable[[EvalTask], Task]:
    """How an item is loaded: a run's task as the export writes it; a task directory as it is,
    or with --multi-step its lineage as steps (a multi-step directory stays as it is)."""

    def load(item: EvalTask) -> Task:
        if as_run or (multi_step and not _is_multi_step(item.path)):
            return task_form(item.path, multi_step=multi_step, strategy=strategy)
        return load_task_dir(item.path)

    return load


def _report(
    rows: list[AgentAttemptRow],
    tasks: list[EvalTask],
    k: int,
    name: str,
    agent: str,
    model: str,
    as_json: bool,
    by_round: bool,
) -> None:
    rounds = rounds_pass(rows, k)
    credit = step_credit(rows)
    if as_json:
        rewards: dict[str, list[float]] = {}
        step_rewards: dict[str, list[dict[str, float | None] | None]] = {}
        reasons: dict[str, list[str | None]] = {}
        for row in rows:
            rewards.setdefault(row.task, []).append(row.reward)
            reasons.setdefault(row.task, []).append(row.reason)
            step_rewards.setdefault(row.task, []).append(row.step_rewards)
        print(
            json.dumps(
                {
                    "agent": agent,
                    "model": model,
                    "k": k,
                    "rounds": [
                        {
                            "round": r.round,
                            "tasks": r.tasks,
                            "attempts": r.attempts,
                            "successes": r.successes,
                            **{f"pass@{kk}": v for kk, v in r.pass_at.items()},
                            **({"step_credit": credit[r.round]} if r.round in credit else {}),
                        }
                        for r in rounds
                    ],
                    "tasks": [
                        {
                            "path": str(t.path),
                            "round": t.round,
                            "rewards": rewards.get(t.key, []),
                            "step_rewards": step_rewards.get(t.key, []),
                            "reasons": reasons.get(t.key, []),
                        }
                        for t in tasks
                    ],
                },
                indent=2,
            )
        )
        return
    for row in rows:  # a refused verifier run is worth a line: the agent went for the reward, not the task
        if row.reason == "verifier_tampered":
            console.print(f"{row.task} attempt {row.attempt}: verifier_tampered ({row.reason_detail})", highlight=False)
    if by_round:
        console.print(pass_table(rounds, k, title=f"{name}: pass@k per round", credit=credit_column(rows, rounds)))
        return
    mine = [[row for row in rows if row.task == t.key] for t in tasks]
    per_task = [rounds_pass(task_rows, k) for task_rows in mine]
    shown = [(t, r[0], task_rows) for t, r, task_rows in zip(tasks, per_task, mine, strict=True) if r]
    credits = [step_credit(task_rows).get(result.round) for _, result, task_rows in shown]
    console.print(
        pass_table(
            [result for _, result, _ in shown],
            k,
            title=f"{name}: pass@k per task",
            labels=[str(t.path) for t, _, _ in shown],
            credit=credits if any(c is not None for c in credits) else None,
        )
    )
