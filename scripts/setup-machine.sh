#!/usr/bin/env bash
# Make a fresh machine ready for rst-synth: the Python package with its runtime dependencies in
# the project's virtual environment (.venv/ at the repository root, with `rst` linked onto PATH),
# a Docker engine that answers, and the base images the bundled tasks build FROM: what synthesis,
# stats, report and eval need. What only the tests use (their extras, Ray, torch and TRL, Harbor,
# Chromium, docker compose) is scripts/setup-tests.sh's, which scripts/test.sh runs after this one.
# Idempotent: a second run takes seconds.
#
# Environment:
#   RST_DOCKERD_LOG   where a dockerd started here logs (default: /var/log/rst-dockerd.log)
#   RST_PYTHON        the interpreter that creates .venv (default: python3 on PATH)
#   RST_EXTRAS        extras installed with the package, comma-separated (e.g. ray, on a cluster's nodes)
#   RST_SKIP_PIP=1    do not create .venv or (re)install the Python package
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

# 1. The Python package, in .venv/ (a Debian system Python refuses pip installs into itself), and
#    `rst` linked onto PATH.
venv="$here/.venv"
extras="${RST_EXTRAS:-}"
stamp="$venv/.rst-setup-stamp"   # written after a successful install (the extras in it); pyproject.toml newer => reinstall
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
  # Usable, rst_synth comes from this checkout's src/, the install (with these extras) happened
  # after pyproject.toml last changed.
  venv_usable && [ -x "$venv/bin/rst" ] && [ -f "$stamp" ] || return 1
  [ "$here/pyproject.toml" -nt "$stamp" ] && return 1
  [ "$(cat "$stamp")" = "$extras" ] || return 1
  "$venv_python" - "$here" 2>/dev/null <<'PY' || return 1
import pathlib, sys
import rst_synth  # noqa: F401
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
    say "installing the rst-synth package into .venv${extras:+ (extras: $extras)}"
    rm -f "$stamp"
    "$venv_python" -m pip install -q --disable-pip-version-check -e "$here${extras:+[$extras]}"
    printf '%s' "$extras" >"$stamp"
  fi
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
