"""The harness: how every part meets a task's container, as Harbor runs it. One place opens a
container of the task's image with the limits task.toml asks for, stages the log folders and the
solution, runs the solution, copies the tests in, runs the verifier and reads the reward; the
validator, agent attempts, RL episodes and discovery all go through it."""

from rst_synth.harness.container import LOG_DIRS, build_image, open_task, run_solution, stage, task_limits
from rst_synth.harness.verifier import (
    RESET_VERIFIER,
    parse_reward_json,
    parse_reward_txt,
    read_reward,
    read_reward_keys,
    refused,
    verdict,
    verify,
)

__all__ = [
    "LOG_DIRS",
    "RESET_VERIFIER",
    "build_image",
    "open_task",
    "parse_reward_json",
    "parse_reward_txt",
    "read_reward",
    "read_reward_keys",
    "refused",
    "run_solution",
    "stage",
    "task_limits",
    "verdict",
    "verify",
]
