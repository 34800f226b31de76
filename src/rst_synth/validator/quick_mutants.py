"""Runs inside a task's container (never imported by the package): the mutation check's edits, each
tried on the child's new test modules alone, in one process.

`python3 -m pytest` per edit spends most of its time starting Python and importing pytest; here
pytest is imported once and every edit's run is a fork of this process (a fresh interpreter state
for the test modules, which each child imports anew). The plan (a JSON file, the one argument) lists
the edits in the check's order, grouped by output: a group's deletion first, then its content edits
until one is caught. Each edit is applied with its shell snippet, then `pytest -q -x` runs the
group's modules in a child with the plan's time limit; a nonzero exit (or the time limit) is a
catch, printed as `caught N`. At the first edit the modules do not catch, the edit is undone and the
script stops: the validator takes over from there, with the whole test.sh.

When every edit was caught and the plan has an `accept` step (the tolerance check's rewrite of the
outputs in other allowed forms), the last output is restored, the step applied, and the modules run
once more: they must pass, printed as `accepted` (else `rejected`).
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest


def caught(modules: list[str], timeout: float) -> bool:
    child = os.fork()
    if child == 0:
        os.setpgid(0, 0)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        code = 1
        try:
            code = int(pytest.main(["-q", "-x", "-p", "no:cacheprovider", *modules]))
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) != 0
        time.sleep(0.01)
    try:
        os.killpg(child, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(child, 0)
    return True  # `timeout` ends the run with a nonzero status too


def main(plan_path: str) -> None:
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    sys.dont_write_bytecode = True
    sys.path[0] = os.getcwd()  # as `python3 -m pytest` run from here has it
    for group in plan["groups"]:
        for position, edit in enumerate(group["edits"]):
            subprocess.run(["bash", "-c", edit["apply"]], check=True)
            if not caught(group["modules"], plan["timeout"]):
                subprocess.run(["bash", "-c", group["undo"]], check=True)
                return
            print(f"caught {edit['index']}", flush=True)
            if position > 0:
                break  # one content edit caught: the output's others are skipped
    accept = plan.get("accept")
    if accept and plan["groups"]:
        subprocess.run(["bash", "-c", plan["groups"][-1]["undo"]], check=True)
        subprocess.run(["bash", "-c", accept["apply"]], check=True)
        print("rejected" if caught(accept["modules"], plan["timeout"]) else "accepted", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
