#!/usr/bin/env bash
# Makes sure a Docker engine answers, and prints the DOCKER_HOST to use with it (one line, on stdout).
#   deploy/docker-engine.sh            # an engine that answers already (DOCKER_HOST or the default socket), else
#                                      # Debian's dockerd started here (as root), installed with apt-get if absent
#   deploy/docker-engine.sh --stop     # stops the engine this script started (nothing else)
# The engine it starts keeps its data under DTP_DOCKER_ROOT (default /var/lib/dtp-docker): the offline base image
# and the build cache survive it, so a second build on the same machine is quick. Its socket is
# /run/dtp-docker/docker.sock. Where no engine can run, it says why on one line (stderr) and exits 1.
set -euo pipefail

ROOT_DIR="${DTP_DOCKER_ROOT:-/var/lib/dtp-docker}"
RUN_DIR="/run/dtp-docker"
SOCKET="unix://${RUN_DIR}/docker.sock"
# Debian's client (20.10, matching the engine) before any other on PATH.
DOCKER="${DOCKER:-$( [ -x /usr/bin/docker ] && echo /usr/bin/docker || command -v docker || echo docker )}"

fail() {
  printf 'docker-engine: %s\n' "$*" >&2
  exit 1
}

if [ "${1:-}" = "--stop" ]; then
  if [ -f "${RUN_DIR}/dockerd.pid" ]; then
    pid="$(cat "${RUN_DIR}/dockerd.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  fi
  exit 0
fi

answers() { DOCKER_HOST="$1" "$DOCKER" version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# 1. One that answers already.
if [ -n "${DOCKER_HOST:-}" ] && answers "$DOCKER_HOST"; then
  echo "$DOCKER_HOST"
  exit 0
fi
if answers "$SOCKET"; then
  echo "$SOCKET"
  exit 0
fi
if [ -S /var/run/docker.sock ] && answers unix:///var/run/docker.sock; then
  echo unix:///var/run/docker.sock
  exit 0
fi

# 2. Start Debian's engine.
[ "$(id -u)" = 0 ] || fail "no Docker engine answers, and starting one needs root (or set DOCKER_HOST to a running engine)"
if ! command -v dockerd >/dev/null 2>&1 || ! command -v iptables >/dev/null 2>&1 || [ ! -x /usr/bin/docker ]; then
  printf 'docker-engine: installing Debian'"'"'s docker.io (apt-get)\n' >&2
  apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 "$@" >&2; }
  apt_get install -y --no-install-recommends docker.io iptables || { apt_get update && apt_get install -y --no-install-recommends docker.io iptables; } ||
    fail "could not install docker.io with apt-get"
  DOCKER=/usr/bin/docker
fi
mkdir -p "$ROOT_DIR" "$RUN_DIR"
nohup dockerd --storage-driver=overlay2 --data-root="$ROOT_DIR" --exec-root="${RUN_DIR}/exec" \
  --host="$SOCKET" --pidfile="${RUN_DIR}/dockerd.pid" >"${RUN_DIR}/dockerd.log" 2>&1 &
for _ in $(seq 1 120); do
  if answers "$SOCKET"; then
    echo "$SOCKET"
    exit 0
  fi
  sleep 0.5
done
fail "dockerd did not answer within 60 s: $(tail -n 3 "${RUN_DIR}/dockerd.log" 2>/dev/null | tr '\n' ' ')"
