#!/usr/bin/env bash
# The whole platform in a local kind cluster, from nothing to a passing smoke test:
#   1. create the kind cluster "dtp" (deploy/kind-config.yaml) unless it exists
#   2. install the ingress-nginx controller (pinned manifest) and wait for it, and the prometheus-operator CRDs
#      the overlay uses (PodMonitor, PrometheusRule; pinned; no Prometheus runs in kind)
#   3. build the four images (docker/Dockerfile, one target each) and load them into the cluster
#   4. generate the overlay's secrets once (deploy/kind-secrets.sh: random values in k8s/overlays/kind/secrets/,
#      git-ignored; kept on later runs), apply k8s/overlays/kind: Kafka (KRaft), PostgreSQL, MinIO, the services
#      (each pod migrates first), monitors
#   5. wait for PostgreSQL, Kafka, MinIO, the bucket and every rollout
#   6. run deploy/smoke-test.sh through the Ingress (onboard, token, register a rough diamond, read it back; the
#      onboarding through a port-forward to the auth-admin Service, which the Ingress does not route), with
#      the generated admin token
# Usage: deploy/kind-up.sh [--skip-build] [--skip-smoke]
# Needs: docker (with a running daemon), kind, kubectl (1.21+ for kustomize), curl; ports 80 and 443 free.
set -euo pipefail

# No external command before the prerequisite check (not even dirname): its message must reach a user whose PATH
# lacks everything.
SCRIPT_DIR="${BASH_SOURCE[0]%/*}"
[ "$SCRIPT_DIR" != "${BASH_SOURCE[0]}" ] || SCRIPT_DIR=.
ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
CLUSTER="dtp"
NAMESPACE="dtp"
# The kind overlay's release (dtp-release RELEASE in k8s/overlays/kind/kustomization.yaml): the images' tag.
TAG="dev"
APPS=(auth platform search gis)
INGRESS_NGINX_VERSION="controller-v1.12.1"
INGRESS_NGINX_MANIFEST="https://raw.githubusercontent.com/kubernetes/ingress-nginx/${INGRESS_NGINX_VERSION}/deploy/static/provider/kind/deploy.yaml"
PROMETHEUS_OPERATOR_VERSION="v0.86.1"
PROMETHEUS_OPERATOR_CRDS=(podmonitors prometheusrules)
KUBECTL=(kubectl --context "kind-${CLUSTER}")

SKIP_BUILD=false
SKIP_SMOKE=false
for arg in "$@"; do
  case "$arg" in
    --skip-build) SKIP_BUILD=true ;;
    --skip-smoke) SKIP_SMOKE=true ;;
    -h | --help)
      sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      printf 'kind-up: unknown argument %s (try --help)\n' "$arg" >&2
      exit 2
      ;;
  esac
done

log() { printf '\n==> %s\n' "$*"; }
die() {
  printf '\nkind-up: %s\n' "$*" >&2
  exit 1
}
need() {
  command -v "$1" >/dev/null 2>&1 || die "'$1' is required and was not found on PATH. Install it: $2"
}

on_error() {
  printf '\nkind-up: failed at line %s. State of namespace %s:\n' "$1" "$NAMESPACE" >&2
  "${KUBECTL[@]}" -n "$NAMESPACE" get pods,jobs 2>/dev/null >&2 || true
  printf 'Logs: kubectl --context kind-%s -n %s logs <pod> [--all-containers]\n' "$CLUSTER" "$NAMESPACE" >&2
}

check_prerequisites() {
  log "checking prerequisites"
  need docker "https://docs.docker.com/engine/install/"
  need kind "https://kind.sigs.k8s.io/docs/user/quick-start/#installation"
  need kubectl "https://kubernetes.io/docs/tasks/tools/"
  need curl "your system's package manager"
  docker info >/dev/null 2>&1 || die "the Docker daemon is not reachable ('docker info' failed): start Docker and try again"
  kubectl kustomize --help >/dev/null 2>&1 || die "this kubectl has no 'kustomize' command: install kubectl 1.21 or newer"
  if ! kind get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
    for port in 80 443; do
      if (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null; then
        die "port ${port} on 127.0.0.1 is in use; the kind cluster publishes the Ingress there (deploy/kind-config.yaml): free it first"
      fi
    done
  fi
}

create_cluster() {
  if kind get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
    log "kind cluster '${CLUSTER}' exists: reusing it"
  else
    log "creating kind cluster '${CLUSTER}'"
    kind create cluster --name "$CLUSTER" --config "$ROOT/deploy/kind-config.yaml" --wait 120s
  fi
}

install_ingress() {
  log "installing ingress-nginx (${INGRESS_NGINX_VERSION})"
  "${KUBECTL[@]}" apply -f "$INGRESS_NGINX_MANIFEST"
  "${KUBECTL[@]}" -n ingress-nginx rollout status deployment/ingress-nginx-controller --timeout=300s
}

install_monitoring_crds() {
  log "installing the prometheus-operator CRDs ${PROMETHEUS_OPERATOR_CRDS[*]} (${PROMETHEUS_OPERATOR_VERSION})"
  local crd
  for crd in "${PROMETHEUS_OPERATOR_CRDS[@]}"; do
    # Server-side: these CRDs are too large for the last-applied annotation of a client-side apply.
    "${KUBECTL[@]}" apply --server-side --force-conflicts -f "https://raw.githubusercontent.com/prometheus-operator/prometheus-operator/${PROMETHEUS_OPERATOR_VERSION}/example/prometheus-operator-crd/monitoring.coreos.com_${crd}.yaml"
    "${KUBECTL[@]}" wait --for=condition=established "crd/${crd}.monitoring.coreos.com" --timeout=60s
  done
}

build_images() {
  for app in "${APPS[@]}"; do
    log "building image dtp/${app}:${TAG}"
    docker build -f "$ROOT/docker/Dockerfile" --target "$app" -t "dtp/${app}:${TAG}" "$ROOT"
  done
  for app in "${APPS[@]}"; do
    log "loading dtp/${app}:${TAG} into kind"
    kind load docker-image "dtp/${app}:${TAG}" --name "$CLUSTER"
  done
}

apply_manifests() {
  local existing=false
  if "${KUBECTL[@]}" get namespace "$NAMESPACE" >/dev/null 2>&1; then
    existing=true
    # The bucket Job (kind only) has a fixed name and an immutable pod template: remove it so that it runs again.
    # Migrations need nothing of the kind: every new pod applies them in its init container.
    "${KUBECTL[@]}" -n "$NAMESPACE" delete job create-bucket --ignore-not-found --wait=true
  fi
  log "generating the overlay's secrets (k8s/overlays/kind/secrets/, once per checkout)"
  "$ROOT/deploy/kind-secrets.sh" "$ROOT/k8s/overlays/kind/secrets"
  log "applying k8s/overlays/kind"
  # The ingress-nginx admission webhook may need a few more seconds after its rollout: retry.
  local attempt
  for attempt in 1 2 3 4 5 6; do
    if "${KUBECTL[@]}" apply -k "$ROOT/k8s/overlays/kind"; then
      break
    fi
    [ "$attempt" -lt 6 ] || die "kubectl apply -k k8s/overlays/kind failed 6 times"
    printf 'apply failed (attempt %s); retrying in 10 s\n' "$attempt"
    sleep 10
  done
  if [ "$existing" = true ] && [ "$SKIP_BUILD" = false ]; then
    # Same tag, new image: restart so the pods pick up what was just loaded.
    "${KUBECTL[@]}" -n "$NAMESPACE" rollout restart "${APPS[@]/#/deployment/}"
  fi
}

wait_for_stack() {
  log "waiting for PostgreSQL, Kafka and MinIO"
  for sts in postgres kafka minio; do
    "${KUBECTL[@]}" -n "$NAMESPACE" rollout status "statefulset/${sts}" --timeout=600s
  done
  log "waiting for the bucket"
  "${KUBECTL[@]}" -n "$NAMESPACE" wait --for=condition=complete job/create-bucket --timeout=600s
  log "waiting for the four services (each new pod applies its migrations first)"
  for app in "${APPS[@]}"; do
    "${KUBECTL[@]}" -n "$NAMESPACE" rollout status "deployment/${app}" --timeout=600s
  done
}

# The admin API is on auth's admin port, behind the cluster-internal Service auth-admin (no Ingress route): the
# smoke test onboards through a port-forward to it, on a free local port, stopped afterwards.
smoke_test() {
  local port pf status
  port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
  "${KUBECTL[@]}" -n "$NAMESPACE" port-forward svc/auth-admin "${port}:80" >/dev/null 2>&1 &
  pf=$!
  for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null && break
    sleep 0.2
  done
  status=0
  ADMIN_URL="http://127.0.0.1:${port}" "$ROOT/deploy/smoke-test.sh" || status=$?
  kill "$pf" 2>/dev/null || true
  return "$status"
}

main() {
  check_prerequisites
  trap 'on_error $LINENO' ERR
  create_cluster
  install_ingress
  install_monitoring_crds
  if [ "$SKIP_BUILD" = false ]; then build_images; fi
  apply_manifests
  wait_for_stack
  if [ "$SKIP_SMOKE" = false ]; then
    log "smoke test through the Ingress (the admin API through a port-forward: the Ingress does not route /admin)"
    smoke_test
  fi
  log "ready: http://auth.dtp.local  http://api.dtp.local  http://search.dtp.local/v1  http://gis.dtp.local (via 127.0.0.1; see docs/kubernetes.md)"
}

main
