#!/usr/bin/env bash
# The kind overlay's secrets, generated on this machine (nothing in the repository opens anything):
#   deploy/kind-secrets.sh [--force] [DIR]
# writes DIR (default k8s/overlays/kind/secrets, ignored by git) unless it already holds them (--force: anew):
#   auth.env platform.env search.env gis.env   DATABASE_URL (and auth's AUTH_ADMIN_TOKEN, SIGNING_KEY_ENCRYPTION_KEY;
#                                               platform's WEBHOOK_SECRET_ENCRYPTION_KEY, added when missing)
#   postgres.env                                the superuser's and each service's database password
#   object-store.env minio.env                  the object store's access key, for the services and for MinIO
#   custody.env                                 CUSTODY_SIGNING_KEY (platform and search; made when missing)
# Every value is random (/dev/urandom). deploy/kind-up.sh runs it before it applies the overlay; the deploy checks
# and the container test run it before they render. The admin token is then in DIR/auth.env (AUTH_ADMIN_TOKEN):
# deploy/smoke-test.sh reads it from there. Prints the directory.
set -euo pipefail

SCRIPT_DIR="${BASH_SOURCE[0]%/*}"
[ "$SCRIPT_DIR" != "${BASH_SOURCE[0]}" ] || SCRIPT_DIR=.
ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
FORCE=false
DIR="$ROOT/k8s/overlays/kind/secrets"
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=true ;;
    -h | --help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) printf 'kind-secrets: unknown option %s\n' "$arg" >&2; exit 2 ;;
    *) DIR="$arg" ;;
  esac
done

# The custody signing key (platform's checkpoints, search's origin credentials): a private Ed25519 JWK, made with
# openssl, in its own file: a checkout whose other secrets exist gets it without their being made anew.
b64url() { base64 | tr -d '\n=' | tr '+/' '-_'; }
custody_key() {
  local pem d x
  pem="$(openssl genpkey -algorithm ed25519)"
  d="$(printf '%s\n' "$pem" | openssl pkey -outform DER | tail -c 32 | b64url)"
  x="$(printf '%s\n' "$pem" | openssl pkey -pubout -outform DER | tail -c 32 | b64url)"
  printf 'CUSTODY_SIGNING_KEY={"kty":"OKP","crv":"Ed25519","d":"%s","x":"%s","kid":"kind-custody-%s"}\n' "$d" "$x" "$(random 12)"
}
# Letters and digits only: safe in URLs, env files and YAML alike.
# (`tr` ends on SIGPIPE when `head` has enough: not a failure, whatever pipefail says.)
random() { (set +o pipefail; LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c "$1"); }
if $FORCE || [ ! -s "$DIR/custody.env" ]; then
  mkdir -p "$DIR"
  chmod 700 "$DIR"
  (umask 077 && custody_key >"$DIR/custody.env")
fi

key32() { head -c 32 /dev/urandom | base64 | tr -d '\n'; }
# The webhook secrets' encryption key came after the rest: a platform.env made before it gets it, the rest kept.
if [ -s "$DIR/platform.env" ] && ! grep -q '^WEBHOOK_SECRET_ENCRYPTION_KEY=' "$DIR/platform.env"; then
  (umask 077 && echo "WEBHOOK_SECRET_ENCRYPTION_KEY=$(key32)" >>"$DIR/platform.env")
fi

FILES=(auth.env platform.env search.env gis.env postgres.env object-store.env minio.env)
complete=true
for f in "${FILES[@]}"; do [ -s "$DIR/$f" ] || complete=false; done
if $complete && ! $FORCE; then
  echo "$DIR"
  exit 0
fi

mkdir -p "$DIR"
chmod 700 "$DIR"
umask 077
declare -A DB
for s in auth platform search gis; do DB[$s]="$(random 32)"; done
{
  echo "POSTGRES_PASSWORD=$(random 32)"
  for s in auth platform search gis; do echo "$(echo "$s" | tr '[:lower:]' '[:upper:]')_DB_PASSWORD=${DB[$s]}"; done
} >"$DIR/postgres.env"
for s in auth platform search gis; do
  echo "DATABASE_URL=postgres://dtp_${s}:${DB[$s]}@postgres:5432/dtp_${s}" >"$DIR/${s}.env"
done
echo "WEBHOOK_SECRET_ENCRYPTION_KEY=$(key32)" >>"$DIR/platform.env"
{
  echo "AUTH_ADMIN_TOKEN=$(random 48)"
  echo "SIGNING_KEY_ENCRYPTION_KEY=$(key32)"
} >>"$DIR/auth.env"
access="dtp$(random 13 | tr '[:upper:]' '[:lower:]')"
secret="$(random 40)"
printf 'S3_ACCESS_KEY_ID=%s\nS3_SECRET_ACCESS_KEY=%s\n' "$access" "$secret" >"$DIR/object-store.env"
printf 'MINIO_ROOT_USER=%s\nMINIO_ROOT_PASSWORD=%s\n' "$access" "$secret" >"$DIR/minio.env"
echo "$DIR"
