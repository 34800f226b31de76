"""Per-step credit in the flat form: the verifier also writes /logs/verifier/reward.json with the
overall reward and one key per step, the share of that step's tests that passed.

The verifier itself is never rewritten (it is the parent's, extended only by `run_new_modules`): the
report comes from a pytest plugin in `tests/conftest.py`, which pytest loads because the test
modules sit beside it. It only records outcomes; no test is added, skipped or changed, and
reward.txt keeps its meaning. A step's tests are the modules its round added
(`tests/test_step_<tag>.py`); the seed's step has every other module, its own. Harbor reads
reward.json before reward.txt, so its `reward` must be the one test.sh writes: the plugin goes in
only where the verifier allows it, that is where the reward follows pytest's exit status as the
plugin sees it: one pytest command, reward.txt written as a literal 1 or 0, no reward.json of the
task's own and no tests/conftest.py of its own. `[metadata].step_credit` names the keys.
"""

from __future__ import annotations

import re

from rst_synth.agents.steps import STEP_CREDIT, credit_keys
from rst_synth.proposers.child import pytest_runs, verifier_scripts
from rst_synth.task import Task, TaskPaths
from rst_synth.task.shell import logical_lines

CONFTEST = f"{TaskPaths.TESTS_DIR}/conftest.py"
_REWARD_TXT = re.compile(r"reward\.txt")
_LITERAL_REWARD = re.compile(r"""\becho\s+["']?[01](?:\.0)?["']?\s*>>?\s*\S*reward\.txt""")

PLUGIN = '''"""Per-step credit (written by rst-synth's export): once the session ends, the share of each step's
tests that passed goes to /logs/verifier/reward.json beside the overall reward (1 when every test
passed, as test.sh writes to reward.txt). It only records outcomes: no test is added, skipped or
changed."""
import json
import os

STEPS = __STEPS__
"""Step -> its test modules, relative to this folder; None: every module no other step names."""
REWARD_JSON = "/logs/verifier/reward.json"
_passed = {}


def pytest_collectreport(report):
    if report.failed:  # a module that does not import fails its step's share
        _passed[report.nodeid] = False


def pytest_runtest_logreport(report):
    _passed[report.nodeid] = _passed.get(report.nodeid, True) and not report.failed


def pytest_sessionfinish(session, exitstatus):
    here = os.path.dirname(os.path.abspath(__file__))
    root = str(getattr(session.config, "rootpath", None) or session.config.rootdir)
    named = set(module for modules in STEPS.values() if modules for module in modules)
    by_module = {}
    for nodeid, passed in _passed.items():
        path = os.path.normpath(os.path.join(root, nodeid.split("::", 1)[0]))
        by_module.setdefault(os.path.relpath(path, here).replace(os.sep, "/"), []).append(passed)
    rewards = {"reward": 1.0 if int(exitstatus) == 0 else 0.0}
    for step, modules in STEPS.items():
        outcomes = [
            passed
            for module, results in by_module.items()
            if (module in modules if modules is not None else module not in named)
            for passed in results
        ]
        rewards[step] = round(sum(outcomes) / len(outcomes), 4) if outcomes else 0.0
    os.makedirs(os.path.dirname(REWARD_JSON), exist_ok=True)
    with open(REWARD_JSON, "w") as handle:
        json.dump(rewards, handle)
'''


def credit_blocked(task: Task) -> str | None:
    """Why the task's verifier cannot report per-step credit; None when it can."""
    if CONFTEST in task.files:
        return f"{CONFTEST} is the task's own"
    scripts = [task.text(script) for script in verifier_scripts(task)]
    if any("reward.json" in text for text in scripts):
        return "the verifier writes reward.json itself"
    runs = sum(pytest_runs(text) for text in scripts)
    if runs != 1:
        return f"the verifier runs {runs} pytest commands, not one"
    writes = [
        line.text for text in scripts for line in logical_lines(text) if line.code and _REWARD_TXT.search(line.text)
    ]
    if not writes or not all(_LITERAL_REWARD.search(text) for text in writes):
        return "the verifier does not write reward.txt as a literal 1 or 0"
    return None


def with_step_credit(task: Task, steps: dict[str, list[str] | None]) -> bool:
    """Add the credit plugin for `steps` (name -> its test modules, relative to tests/; None: every
    module no other step names) and `[metadata].step_credit`, where the verifier allows it; True
    if added."""
    if credit_blocked(task) is not None:
        return False
    task.set_text(CONFTEST, PLUGIN.replace("__STEPS__", repr(steps)))
    setattr(task.config.metadata, STEP_CREDIT, list(steps))
    return True


def without_step_credit(task: Task) -> None:
    """Take the credit plugin out again (a flat export exported anew, as steps or afresh)."""
    if credit_keys(task):
        task.files.pop(CONFTEST, None)
        (task.config.metadata.model_extra or {}).pop(STEP_CREDIT, None)
