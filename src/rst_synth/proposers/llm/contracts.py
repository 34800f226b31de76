"""Output contracts the model states: an optional `contracts.toml` block beside the steps (the extend
stage, a repair), one `[[output]]` table per new output with its `path`, `form` and the layout the
instruction fixes (`fixed`), as task/config.py `OutputContract` has them:

    [[output]]
    path = "/app/report/summary.json"
    form = "json"
    fixed = ["key_order"]

The tolerance check (validator/tolerance.py) rewrites each output in the layouts its contract leaves
free; an output the block does not list gets the contract of its type (validator/contracts.py
`contract_by_type`). An entry that cannot be a contract is a `ReplyError` (`invalid_toml`, the block's
path): the stage's re-ask quotes it and asks for the block again."""

from __future__ import annotations

import tomllib
import typing

import tomli_w
from pydantic import ValidationError

from rst_synth.proposers.llm.parse import ReplyError
from rst_synth.proposers.llm.prompts import CONTRACTS_PATH
from rst_synth.task import OutputContract
from rst_synth.task.config import FIXED_BY_FORM, Fixed, Form
from rst_synth.validator import Reason

__all__ = ["CONTRACTS_PATH", "contracts_text", "stated_contracts"]

_KEYS = ("path", "form", "fixed")


def stated_contracts(text: str) -> list[OutputContract]:
    """The contracts of a `contracts.toml` block; ReplyError naming the entry at fault."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _error(f"not TOML: {exc}") from None
    unknown = sorted(set(document) - {"output"})
    if unknown:
        raise _error(f"unknown table or key {', '.join(unknown)}: write one [[output]] table per output")
    entries = document.get("output", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise _error("`output` must be an array of tables: one [[output]] table per output")
    contracts: list[OutputContract] = []
    for number, entry in enumerate(entries, start=1):
        contracts.append(_contract(number, entry))
    paths = [c.path for c in contracts]
    twice = sorted({p for p in paths if paths.count(p) > 1})
    if twice:
        raise _error(f"{', '.join(twice)}: listed more than once")
    return contracts


def _contract(number: int, entry: dict[str, object]) -> OutputContract:
    where = f"output {number}" + (f" ({entry['path']})" if isinstance(entry.get("path"), str) else "")
    extra = sorted(set(entry) - set(_KEYS))
    if extra:
        raise _error(f"{where}: unknown key {', '.join(extra)} (the keys are path, form, fixed)")
    path = entry.get("path")
    if not isinstance(path, str) or not path.startswith("/"):
        raise _error(f'{where}: `path` must be the output\'s absolute path, e.g. "/app/report/summary.json"')
    forms = typing.get_args(Form)
    form = entry.get("form", "bytes")
    if form not in forms:
        raise _error(f"{where}: form {form!r} is not one of {', '.join(forms)}")
    fixed = entry.get("fixed", [])
    if not isinstance(fixed, list):
        raise _error(f'{where}: `fixed` must be a list, e.g. ["key_order"]')
    allowed = FIXED_BY_FORM[str(form)]
    wrong = [f for f in fixed if f not in allowed]
    if wrong:
        choice = f"one of {', '.join(allowed)}" if allowed else "empty"
        raise _error(f"{where}: a {form} output cannot fix {', '.join(map(repr, wrong))}; `fixed` is {choice}")
    try:
        return OutputContract(path=path, form=typing.cast(Form, form), fixed=typing.cast(list[Fixed], fixed))
    except ValidationError as exc:  # the checks above mirror the model; this names anything they missed
        raise _error(f"{where}: {exc.errors()[0]['msg']}") from None


def contracts_text(contracts: list[OutputContract]) -> str:
    """The block a later stage or a repair is shown: the contracts as the model states them."""
    if not contracts:
        return ""
    return tomli_w.dumps({"output": [c.model_dump(include=set(_KEYS)) for c in contracts]})


def _error(detail: str) -> ReplyError:
    return ReplyError(Reason.INVALID_TOML, f"{CONTRACTS_PATH}: {detail}", path=CONTRACTS_PATH)
