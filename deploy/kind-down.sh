#!/usr/bin/env bash
# Deletes the kind cluster made by deploy/kind-up.sh, with everything in it (data included).
# Usage: deploy/kind-down.sh [--images]   (--images also removes the local dtp/<app>:dev images)
set -euo pipefail

CLUSTER="dtp"
APPS=(auth platform search gis)
REMOVE_IMAGES=false
for arg in "$@"; do
  case "$arg" in
    --images) REMOVE_IMAGES=true ;;
    *)
      printf 'kind-down: unknown argument %s (usage: kind-down.sh [--images])\n' "$arg" >&2
      exit 2
      ;;
  esac
done

command -v kind >/dev/null 2>&1 || {
  printf "kind-down: 'kind' is required and was not found on PATH\n" >&2
  exit 1
}

if kind get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
  kind delete cluster --name "$CLUSTER"
else
  printf "kind-down: no kind cluster named '%s': nothing to delete\n" "$CLUSTER"
fi

if [ "$REMOVE_IMAGES" = true ]; then
  command -v docker >/dev/null 2>&1 || {
    printf "kind-down: 'docker' is required for --images\n" >&2
    exit 1
  }
  for app in "${APPS[@]}"; do
    docker image rm "dtp/${app}:dev" 2>/dev/null || true
  done
fi
