"""Executors: where container work runs. `local` (the default) runs it in this process on this
machine's engine; `ray` runs it as Ray tasks on a cluster's worker nodes (the `ray` extra)."""

from typing import Any

from rst_synth.executors.base import AgentSpec, Executor, WorkSpec, task_digest
from rst_synth.executors.local import LocalExecutor
from rst_synth.registry import resolve

EXECUTORS: dict[str, str] = {
    "local": "rst_synth.executors.local:make_local",
    "ray": "rst_synth.executors.ray_cluster:make_ray",
}
"""Built-in executors by short name; `make_executor` also takes any dotted path `package.module:factory`.
A factory takes `sandbox=` and `validator=` (the driver's own, for in-process work), `spec=` (the same
settings as values, for remote nodes: a WorkSpec) and its own options."""


def make_executor(name: str, **options: Any) -> Executor:
    """An executor by short name or dotted path; ValueError (one line) on a bad name or option, and when
    `ray` is chosen without Ray installed (`pip install 'rst-synth[ray]'`)."""
    if name == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ValueError("executor ray: Ray is not installed; pip install 'rst-synth[ray]'") from None
    executor: Executor = resolve("executor", name, EXECUTORS)(**options)
    return executor


__all__ = ["EXECUTORS", "AgentSpec", "Executor", "LocalExecutor", "WorkSpec", "make_executor", "task_digest"]
