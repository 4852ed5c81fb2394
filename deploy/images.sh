#!/usr/bin/env bash
# Builds the four service images from docker/Dockerfile (`npm run images`): dtp/auth, dtp/platform, dtp/search and
# dtp/gis, tagged TAG (default dev, the kind overlay's release).
#   deploy/images.sh [--tag TAG] [APP ...]
# - The engine: deploy/docker-engine.sh (one that answers, or Debian's dockerd started here as root, its data kept
#   in /var/lib/dtp-docker so that the base image and the layer cache serve the next build).
# - The base: NODE_IMAGE (default: the one docker/Dockerfile's `ARG NODE_IMAGE` names). When the engine has no
#   such image and no registry gives it (a machine that reaches only the npm registry and Debian's mirrors), one is
#   made offline, once: `debootstrap --variant=minbase bookworm`, the node of the version NODE_IMAGE names (the
#   release binary as the npm registry's `node-linux-<arch>` package carries it, integrity checked by npm: the one
#   `npm ci` installed under node_modules, else fetched; this machine's own `node`, 20.19 or later, when it is that
#   version or the package cannot be had, with a line saying so), this machine's npm, a `node` user (uid 1000),
#   and this machine's CA bundle as NODE_EXTRA_CA_CERTS (what `npm ci` inside the build needs to reach the registry
#   through this network's proxy; it is in the images built on it too: build release images from the official
#   base). It is imported as dtp/node-base:<node version> and given to the build as NODE_IMAGE.
# - The builder: the classic one (DOCKER_BUILDKIT=0): BuildKit fetches the `# syntax=` frontend from Docker Hub.
# Environment: TAG, NODE_IMAGE, DTP_DOCKER_ROOT, DOCKER (the client; default Debian's /usr/bin/docker).
# Prints the images it built, with their sizes; exits 1 with one line saying why when it cannot build.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
TAG="${TAG:-dev}"
NODE_IMAGE="${NODE_IMAGE:-$(sed -n 's/^ARG NODE_IMAGE=//p' "$ROOT/docker/Dockerfile")}"
DOCKER="${DOCKER:-$( [ -x /usr/bin/docker ] && echo /usr/bin/docker || command -v docker || echo docker )}"
APPS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) TAG="$2"; shift 2 ;;
    -h | --help) sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    auth | platform | search | gis) APPS+=("$1"); shift ;;
    *) printf 'images: unknown argument %s (try --help)\n' "$1" >&2; exit 2 ;;
  esac
done
[ ${#APPS[@]} -gt 0 ] || APPS=(auth platform search gis)

fail() {
  printf 'images: %s\n' "$*" >&2
  exit 1
}
say() { printf '[images] %s\n' "$*" >&2; }
[ -n "$NODE_IMAGE" ] || fail "docker/Dockerfile names no ARG NODE_IMAGE"

DOCKER_HOST="$("$SCRIPT_DIR/docker-engine.sh")" || fail "no Docker engine (see the line above)"
export DOCKER_HOST
docker() { "$DOCKER" "$@"; }

# ---- the base image -------------------------------------------------------------------------------------------
has_image() { docker image inspect "$1" >/dev/null 2>&1; }
BASE="$NODE_IMAGE"
# The node binary of version $1 from the npm registry (`node-linux-<arch>`: the release binary; npm checks the
# tarball against the registry's integrity hash), unpacked under $2; prints its path, or fails quietly.
registry_node() {
  local arch
  arch="$(node -p process.arch)" || return 1
  (cd "$2" && npm pack --silent "node-linux-${arch}@$1" >/dev/null 2>&1) || return 1
  tar -xzf "$2"/node-linux-"${arch}"-"$1".tgz -C "$2" || return 1
  [ "$("$2/package/bin/node" --version 2>/dev/null)" = "v$1" ] || return 1
  printf '%s\n' "$2/package/bin/node"
}

# The same binary as `npm ci` installed it (package.json's optional dependency `node-linux-<arch>`, pinned to the
# Dockerfile's node), when it is version $1: run directly rather than through `npm run images`, whose PATH puts it
# first, this script would otherwise fetch it again. Prints its path, or fails quietly.
installed_node() {
  local bin
  bin="$(readlink -f "$ROOT/node_modules/.bin/node" 2>/dev/null)" || return 1
  [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null)" = "v$1" ] || return 1
  printf '%s\n' "$bin"
}

if ! has_image "$BASE" && ! docker pull "$BASE" >/dev/null 2>&1; then
  # The version NODE_IMAGE names (node:<major.minor.patch>-...), if it names one.
  pinned="$(printf '%s' "$NODE_IMAGE" | sed -n 's/^node:\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)-.*/\1/p')"
  workdir="$(mktemp -d /var/tmp/dtp-node-base.XXXXXX)"
  trap 'rm -rf "$workdir"' EXIT
  if [ -n "$pinned" ] && has_image "dtp/node-base:${pinned}"; then
    BASE="dtp/node-base:${pinned}"
  else
    node_bin=""
    if [ -n "$pinned" ] && [ "$(node --version)" != "v$pinned" ]; then
      node_bin="$(installed_node "$pinned")" || {
        mkdir -p "$workdir/node"
        node_bin="$(registry_node "$pinned" "$workdir/node")" ||
          { node_bin=""; say "node $pinned (what $NODE_IMAGE runs) is not to be had from the npm registry: the base gets this machine's node $(node --version) instead"; }
      }
    fi
    [ -n "$node_bin" ] || node_bin="$(command -v node)"
    node_version="$("$node_bin" --version | sed 's/^v//')"
    case "$node_version" in
      20.19.* | 20.2[0-9].* | 2[2-9].*) ;;
      *) fail "no $NODE_IMAGE here and this machine's node ($node_version) is too old for an offline base (20.19+)" ;;
    esac
    BASE="dtp/node-base:${node_version}"
  fi
  if has_image "$BASE"; then
    say "base: $BASE (made offline earlier)"
  else
    say "base: $NODE_IMAGE cannot be pulled; making $BASE offline (debootstrap, a few minutes, once per machine)"
    [ "$(id -u)" = 0 ] || fail "making the base image offline needs root (debootstrap)"
    if ! command -v debootstrap >/dev/null 2>&1; then
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends debootstrap >&2 ||
        fail "could not install debootstrap with apt-get"
    fi
    rootfs="$workdir/rootfs"
    mkdir -p "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" >"$rootfs.log" 2>&1 || fail "debootstrap failed: $(tail -n 3 "$rootfs.log" | tr '\n' ' ')"
    rm -f "$rootfs.log"
    npm_dir="$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)"
    install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
    mkdir -p "$rootfs/usr/local/lib/node_modules"
    cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
    grep -q '^node:' "$rootfs/etc/group" || echo 'node:x:1000:' >>"$rootfs/etc/group"
    grep -q '^node:' "$rootfs/etc/passwd" || echo 'node:x:1000:1000::/home/node:/bin/sh' >>"$rootfs/etc/passwd"
    mkdir -p "$rootfs/home/node" "$rootfs/etc/ssl/certs"
    chown 1000:1000 "$rootfs/home/node"
    cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/dtp-build-ca.crt"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc "$rootfs"/usr/share/man
    chroot "$rootfs" /usr/local/bin/node --version >/dev/null || fail "the copied node does not run inside the base"
    tar -C "$rootfs" -c . | docker import \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/dtp-build-ca.crt' \
      --change 'CMD ["node"]' - "$BASE" >/dev/null
    say "base: $BASE made"
  fi
  rm -rf "$workdir"
  trap - EXIT
fi

# ---- the four images ------------------------------------------------------------------------------------------
cd "$ROOT"
for app in "${APPS[@]}"; do
  started=$(date +%s)
  say "building dtp/${app}:${TAG} (from $BASE)"
  log="$(mktemp)"
  if ! DOCKER_BUILDKIT=0 docker build -f docker/Dockerfile --target "$app" --build-arg "NODE_IMAGE=$BASE" -t "dtp/${app}:${TAG}" . >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    rm -f "$log"
    fail "docker build of dtp/${app}:${TAG} failed (its last lines above)"
  fi
  rm -f "$log"
  say "dtp/${app}:${TAG} built in $(( $(date +%s) - started )) s"
done
for app in "${APPS[@]}"; do
  printf 'dtp/%s:%s\t%s\n' "$app" "$TAG" "$(docker image inspect "dtp/${app}:${TAG}" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')"
done
