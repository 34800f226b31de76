#!/usr/bin/env bash
# Make a fresh machine ready for rst-synth: the Python package, a Docker engine that answers,
# and the base images the bundled tasks build FROM. Idempotent: a second run takes seconds.
#
# Environment:
#   RST_DOCKERD_LOG   where a dockerd started here logs (default: /var/log/rst-dockerd.log)
#   RST_SKIP_PIP=1    do not (re)install the Python package
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dockerd_log="${RST_DOCKERD_LOG:-/var/log/rst-dockerd.log}"
say() { printf '[setup] %s\n' "$*"; }
need_root() { [ "$(id -u)" = 0 ] || { say "needs root for: $*"; exit 1; }; }

apt_updated=0
apt_install() {
  need_root "apt-get install $*"
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# 1. The Python package and its test dependencies.
if [ "${RST_SKIP_PIP:-0}" != 1 ]; then
  if ! python3 -c 'import rst_synth, pytest' 2>/dev/null \
     || [ "$(python3 -c 'import rst_synth, pathlib; print(pathlib.Path(rst_synth.__file__).resolve().parents[1])')" != "$here/src" ]; then
    say "installing the rst-synth package"
    python3 -m pip install -q --disable-pip-version-check -e "$here[test]"
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
