"""`rst synth`: recursive synthesis from seeds, resumable."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, get_args

import typer
from rich.progress import Progress

from rst_synth.agents import Agent, make_agent
from rst_synth.cli.common import (
    build_proposer,
    console,
    exit_if_signalled,
    fail,
    hold_signals,
    open_executor,
    open_sandbox,
    own,
    run_with_sandbox,
    setup_logging,
)
from rst_synth.cli.options import (
    Backend,
    ExecutorName,
    ProposerBaseUrl,
    ProposerInstruction,
    ProposerLLMConfig,
    ProposerModel,
    RayAddress,
)
from rst_synth.cli.options import endpoint as endpoint_of
from rst_synth.cli.tables import progress_bars, stats_table
from rst_synth.engine import Engine, SynthConfig
from rst_synth.evaluation.solver import Solver
from rst_synth.executors import AgentSpec, Executor, WorkSpec
from rst_synth.proposers.llm import InstructionMode
from rst_synth.report import run_stats
from rst_synth.store import RunPaths, Store
from rst_synth.store.lock import RunLock
from rst_synth.task import TaskFormatError
from rst_synth.validator import Validator, ValidatorConfig


class RichProgress:
    """Engine progress as one bar per round: proposed, validated, accepted, spent."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._bars: dict[int, Any] = {}

    def round_started(self, round_: int, planned: int, done: int) -> None:
        self._bars[round_] = self._progress.add_task(
            f"round {round_}", total=planned, completed=done, proposed=0, accepted=0, spent=0.0
        )

    def proposed(self, round_: int) -> None:
        bar = self._bars[round_]
        self._progress.update(bar, proposed=self._progress.tasks[bar].fields["proposed"] + 1)

    def candidate_finished(self, round_: int, accepted: bool, spent_usd: float) -> None:
        bar = self._bars[round_]
        fields = self._progress.tasks[bar].fields
        self._progress.update(
            bar, advance=1, accepted=fields["accepted"] + int(accepted), spent=fields["spent"] + spent_usd
        )


def synth_command(
    seeds_dir: Annotated[
        Path | None, typer.Argument(help="Folder of seed task directories (not needed to resume).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Run directory; an existing one is resumed.")] = Path(
        "runs/default"
    ),
    rounds: Annotated[int | None, typer.Option(help="Rounds after round 0 (seeds). [default: 3]")] = None,
    proposer: Annotated[str | None, typer.Option(help="procedural (offline, default) or llm.")] = None,
    fanout: Annotated[int | None, typer.Option(help="Candidates per parent per round. [default: 2]")] = None,
    frontier_cap: Annotated[
        int | None, typer.Option(help="Most parents per round, sampled across root seeds. [default: 64]")
    ] = None,
    repairs: Annotated[int | None, typer.Option(help="Repair attempts per rejected candidate. [default: 1]")] = None,
    proposal_workers: Annotated[
        int | None, typer.Option("-P", "--proposal-workers", help="Proposals in flight. [default: 2]")
    ] = None,
    validation_workers: Annotated[
        int | None, typer.Option("-V", "--validation-workers", help="Validations in flight. [default: 2]")
    ] = None,
    max_candidates: Annotated[int | None, typer.Option(help="Stop after this many candidates over the run.")] = None,
    max_usd: Annotated[float | None, typer.Option(help="Stop once LLM spend reaches this many dollars.")] = None,
    max_minutes: Annotated[float | None, typer.Option(help="Stop after this many minutes of this invocation.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of every random choice of the run. [default: 0]")] = None,
    model: ProposerModel = None,
    base_url: ProposerBaseUrl = None,
    llm_config: ProposerLLMConfig = None,
    instruction: ProposerInstruction = None,
    solver_model: Annotated[
        str | None, typer.Option(help="An llm agent on this model attempts each accepted child (same endpoint).")
    ] = None,
    solver_k: Annotated[int | None, typer.Option(help="Solver attempts per accepted child. [default: 4]")] = None,
    require_solvable: Annotated[
        bool | None, typer.Option("--require-solvable", help="Reject children no solver attempt solved (unsolved).")
    ] = None,
    max_solve_rate: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Reject children the solver solved in more than this share of its attempts (too_easy).",
        ),
    ] = None,
    second_solution: Annotated[
        bool,
        typer.Option(
            "--second-solution",
            help="Check each child the validator accepted by a second solution written from its instruction "
            "alone (second_solution_failed); on by default with the llm proposer.",
        ),
    ] = False,
    no_second_solution: Annotated[
        bool, typer.Option("--no-second-solution", help="Turn the second-solution check off.")
    ] = False,
    no_kept_states: Annotated[
        bool,
        typer.Option(
            "--no-kept-states",
            help="Validate every child from scratch: keep no task's final state as an image (kept by default).",
        ),
    ] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Debug log to stderr too.")] = False,
    backend: Backend = "docker",
    executor: ExecutorName = "local",
    ray_address: RayAddress = None,
) -> None:
    """Grow tasks from seeds, round by round; resumable.

    Round 0 validates the seeds, round r extends round r-1's accepted tasks. Run it again on the
    same --out to resume where it stopped (after a crash, Ctrl-C or kill) without redoing finished
    candidates; options given on a resume override the stored ones.
    """
    paths = RunPaths(out)
    hold_signals()  # from here on a signal waits for a safe point: nothing is left half-written
    lock = RunLock(paths.root)
    if paths.root.is_dir():
        own(lock)  # before run.toml is read: another owner may be writing it
    given = {
        k: v
        for k, v in {
            "rounds": rounds,
            "proposer": proposer,
            "fanout": fanout,
            "frontier_cap": frontier_cap,
            "repairs": repairs,
            "proposal_workers": proposal_workers,
            "validation_workers": validation_workers,
            "max_candidates": max_candidates,
            "max_usd": max_usd,
            "max_minutes": max_minutes,
            "seed": seed,
            "solver_model": solver_model,
            "solver_k": solver_k,
            "require_solvable": require_solvable,
            "max_solve_rate": max_solve_rate,
            "kept_states": False if no_kept_states else None,
            "second_solution": True if second_solution else False if no_second_solution else None,
        }.items()
        if v is not None
    }
    if second_solution and no_second_solution:
        raise fail("--second-solution and --no-second-solution: give one of them")
    endpoint = endpoint_of(model, base_url, llm_config)
    config = _config(paths, seeds_dir, given)
    if config.solver_model is None and (config.require_solvable or config.max_solve_rate is not None):
        raise fail("--require-solvable and --max-solve-rate judge by the solver: give --solver-model too")
    if config.second_solution and config.proposer != "llm":
        raise fail("--second-solution is written by the llm proposer's model: give --proposer llm too")
    if endpoint:  # the key itself is never stored: only the name of its variable, via the config file
        config = config.model_copy(update={"proposer_options": {**config.proposer_options, **endpoint}})
    if instruction is not None:
        config = config.model_copy(update={"proposer_options": _with_instruction(config, instruction)})
    own(lock)
    config.dump(paths.config)
    setup_logging(verbose, paths.log)
    # Scoped to the run directory, so a resume can remove what a killed earlier run left running.
    labels = {"rst-synth.run-dir": str(paths.root.resolve())}
    sandbox = open_sandbox(backend, labels=labels)
    validator = Validator(
        sandbox,
        ValidatorConfig(
            max_containers=2 * config.validation_workers,
            determinism_runs=config.determinism_runs,
            keep_states=config.kept_states,
            # A repair that reads the whole report (the llm proposer's) hears of every problem at once.
            every_failure=config.repairs > 0 and config.proposer != "procedural",
        ),
    )
    solver_agent = _solver_agent(config, paths)
    spec = WorkSpec(
        backend=backend,
        labels=labels,
        validator=validator.config,
        agent=AgentSpec.of(*solver_agent[1]) if solver_agent else None,
    )
    # Every piece of container work goes through the executor: validations, the proposer's
    # discovery and the solver's attempts.
    runner = open_executor(executor, ray_address, sandbox, validator, spec)
    chosen = build_proposer(config.proposer, runner.discover, config.proposer_options, paths.llm_cache)
    solver = _solver(config, paths, solver_agent[0], runner) if solver_agent else None
    if validation_workers is None and runner.capacity("validate"):  # a cluster: as many as its slots take
        config = config.model_copy(update={"validation_workers": runner.capacity("validate")})
    store = Store(paths.db)

    async def work() -> str:
        await sandbox.prune()
        counts = "proposed {task.fields[proposed]}  accepted {task.fields[accepted]}  spent ${task.fields[spent]:.4f}"
        with progress_bars(counts) as progress:
            engine = Engine(config, paths, store, chosen, validator, RichProgress(progress), solver, runner)
            try:
                return await engine.run()
            finally:
                await runner.close()
                await chosen.close()
                if solver is not None:
                    await solver.agent.close()

    try:
        reason = run_with_sandbox(sandbox, work)
        console.print(stats_table(run_stats(store), title=f"run {out}"))
    finally:
        store.close()
    console.print(f"stopped: {reason}" if reason != "done" else f"done: {config.rounds} rounds", highlight=False)
    exit_if_signalled()


def _with_instruction(config: SynthConfig, mode: str) -> dict[str, Any]:
    """The proposer options with --instruction (stored in run.toml, so a resume keeps it)."""
    if config.proposer != "llm":
        raise fail(f"--instruction is an option of the llm proposer, not of {config.proposer!r}")
    if mode not in get_args(InstructionMode):
        raise fail(f"--instruction {mode!r}: choose from {', '.join(get_args(InstructionMode))}")
    return {**config.proposer_options, "instruction": mode}


def _solver_agent(config: SynthConfig, paths: RunPaths) -> tuple[Agent, tuple[str, dict[str, Any]]] | None:
    """The solver agent of --solver-model (the llm agent on the llm proposer's endpoint settings) and
    its registry name and options, which a remote executor's nodes rebuild it from."""
    if config.solver_model is None:
        return None
    endpoint = {k: v for k, v in config.proposer_options.items() if k in ("base_url", "llm_config_file")}
    options = {**endpoint, "model": config.solver_model, "cache_dir": str(paths.root / "solver-cache")}
    try:
        return make_agent("llm", **options), ("llm", options)
    except ValueError as exc:
        raise fail(str(exc).splitlines()[0]) from None


def _solver(config: SynthConfig, paths: RunPaths, agent: Agent, runner: Executor) -> Solver:
    return Solver(
        agent,
        runner,
        k=config.solver_k,
        out_dir=paths.root / "solver",
        require=config.require_solvable,
        max_rate=config.max_solve_rate,
    )


def _config(paths: RunPaths, seeds_dir: Path | None, given: dict[str, Any]) -> SynthConfig:
    if paths.config.is_file():
        try:
            stored = SynthConfig.load(paths.config)
        except TaskFormatError as exc:
            raise fail(str(exc)) from None
        if seeds_dir is not None and Path(stored.seeds_dir).resolve() != seeds_dir.resolve():
            raise fail(f"{paths.config}: this run grows from {stored.seeds_dir}, not {seeds_dir}")
        return stored.model_copy(update=given)
    if seeds_dir is None:
        raise fail(f"{paths.root}: no run here yet; give the seeds folder to start one")
    if not seeds_dir.is_dir():
        raise fail(f"{seeds_dir}: not a folder of seed tasks")
    try:
        return SynthConfig(seeds_dir=str(seeds_dir.resolve()), **given)
    except ValueError as exc:
        raise fail(f"invalid option: {exc}".splitlines()[0]) from None
