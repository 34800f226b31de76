"""The configuration of a synthesis run, saved in the run directory so a resume uses the same."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import BaseModel, Field, ValidationError

from rst_synth.engine.novelty import NoveltyConfig
from rst_synth.task import TaskFormatError


class SynthConfig(BaseModel):
    """What `rst synth` does, saved as run.toml in the run directory; most fields have a CLI option of the
    same name (`proposer_options`, `determinism_runs` and `novelty` are set in run.toml)."""

    seeds_dir: str
    """Folder of seed task directories (round 0)."""
    rounds: int = Field(default=3, ge=0)
    """Rounds of extension after round 0."""
    proposer: str = "procedural"
    """Proposer by short name: procedural (offline) or llm."""
    proposer_options: dict[str, Any] = Field(default_factory=dict)
    """Options passed to the proposer factory (e.g. the LLM model and endpoint)."""
    fanout: int = Field(default=2, ge=1)
    """Candidates proposed per parent per round."""
    frontier_cap: int = Field(default=64, ge=1)
    """Most parents extended per round; sampled round-robin across root seeds so no lineage crowds out the others."""
    repairs: int = Field(default=1, ge=0)
    """Repair attempts for a rejected candidate."""
    proposal_workers: int = Field(default=2, ge=1)
    """Proposals (and repairs) in flight at once."""
    validation_workers: int = Field(default=2, ge=1)
    """Validations in flight at once."""
    determinism_runs: int = Field(default=1, ge=0)
    """Extra oracle runs per validation."""
    kept_states: bool = True
    """Keep each accepted task's final state as an image, and start its children's parent,
    determinism and steps checks from it (validator/kept.py); `rst gc` removes them."""
    max_candidates: int | None = Field(default=None, ge=1)
    """Stop once this many candidates were started over the whole run."""
    max_usd: float | None = Field(default=None, gt=0)
    """Stop once the run's LLM spend reaches this many dollars."""
    max_minutes: float | None = Field(default=None, gt=0)
    """Stop once this invocation has run this long."""
    solver_model: str | None = None
    """Model of an llm agent that attempts every accepted child (endpoint as the llm proposer's);
    its solve rate is recorded on the task. None: no solver."""
    solver_k: int = Field(default=4, ge=1)
    """Attempts of the solver per accepted child."""
    require_solvable: bool = False
    """Reject a child that no solver attempt solved (reason `unsolved`)."""
    max_solve_rate: float | None = Field(default=None, ge=0, le=1)
    """Reject a child the solver solved in more than this share of its attempts (reason `too_easy`);
    None: no upper bound."""
    second_solution: bool | None = None
    """Judge every child the validator accepted by a second solution written from its instruction alone
    (engine/second.py); needs the llm proposer. None: on with the llm proposer, off with any other."""
    seed: int = 0
    """Seed of every random choice of the run (frontier samples, proposer seeds)."""
    novelty: NoveltyConfig = Field(default_factory=NoveltyConfig)
    """Near-duplicate filter."""

    @classmethod
    def load(cls, path: Path) -> SynthConfig:
        try:
            return cls.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
        except tomllib.TOMLDecodeError as exc:
            raise TaskFormatError(path, f"invalid TOML: {exc}") from None
        except ValidationError as exc:
            err = exc.errors()[0]
            raise TaskFormatError(path, f"{'.'.join(map(str, err['loc']))}: {err['msg']}") from None

    @property
    def second_solution_on(self) -> bool:
        return self.second_solution if self.second_solution is not None else self.proposer == "llm"

    def dump(self, path: Path) -> None:
        data = self.model_dump(mode="json", exclude_none=True)
        path.write_text(tomli_w.dumps(data), encoding="utf-8")
