#!/usr/bin/env bash
# The project's full test command (the README's, and what CI runs): set the machine up, then
# lint, format check, type check and the test suite, all with the interpreter of .venv/.
# Arguments go to pytest; its exit status is this script's.
#
# Environment:
#   RST_SKIP_LINT=1   skip ruff and mypy (quick local runs; CI runs every stage)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
stage() { printf '==> %s\n' "$*"; }

stage "setup: bash scripts/setup-machine.sh"
bash scripts/setup-machine.sh

py=.venv/bin/python
[ -x "$py" ] || { echo "no $py: run scripts/setup-machine.sh without RST_SKIP_PIP=1" >&2; exit 1; }

if [ "${RST_SKIP_LINT:-0}" = 1 ]; then
  stage "lint: skipped (RST_SKIP_LINT=1)"
else
  stage "lint: ruff check src tests"
  "$py" -m ruff check src tests
  stage "format: ruff format --check src tests"
  "$py" -m ruff format --check src tests
  stage "types: mypy"
  "$py" -m mypy
fi

stage "tests: pytest -q --durations=20${*:+ $*}"
exec "$py" -m pytest -q --durations=20 "$@"
