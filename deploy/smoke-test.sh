#!/usr/bin/env bash
# Smoke test of a running platform through its public addresses (deploy/kind-up.sh runs it via the Ingress):
#   1. auth is ready; 2. onboard a producer through the admin API; 3. get a platform token;
#   4. register a rough diamond; 5. attach a file to it (platform writes the blob store: the object store in
#   Kubernetes); 6. onboard a non-participant, get a search token; 7. read the diamond back through search
#   (eventually consistent: polled for up to SMOKE_TIMEOUT seconds); 8. download the file through search
#   (search reads the same blob store) and compare it byte for byte.
# Environment (defaults fit the kind overlay):
#   AUTH_URL=http://auth.dtp.local  BASE_URL=http://api.dtp.local  SEARCH_URL=http://search.dtp.local
#   ADMIN_URL=$AUTH_URL          where auth's admin API (/admin/*) answers: with ADMIN_PORT (k8s/base) it is not
#                               on the Ingress, e.g. `kubectl port-forward svc/auth-admin 3101:80` and http://127.0.0.1:3101
#   ADMIN_TOKEN                 auth's AUTH_ADMIN_TOKEN; default: the one deploy/kind-secrets.sh generated
#                               (k8s/overlays/kind/secrets/auth.env); no default otherwise (nothing committed opens)
#   INGRESS_ADDRESS=127.0.0.1   the address the hosts above are sent to (curl --resolve), so no /etc/hosts
#                               entries are needed; set it empty to use normal name resolution
#   SMOKE_TIMEOUT=90
set -euo pipefail

AUTH_URL="${AUTH_URL:-http://auth.dtp.local}"
ADMIN_URL="${ADMIN_URL:-$AUTH_URL}"
BASE_URL="${BASE_URL:-http://api.dtp.local}"
SEARCH_URL="${SEARCH_URL:-http://search.dtp.local}"
SECRETS_ENV="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/k8s/overlays/kind/secrets/auth.env"
if [ -z "${ADMIN_TOKEN:-}" ] && [ -f "$SECRETS_ENV" ]; then
  ADMIN_TOKEN="$(sed -n 's/^AUTH_ADMIN_TOKEN=//p' "$SECRETS_ENV" | head -n 1)"
fi
if [ -z "${ADMIN_TOKEN:-}" ]; then
  printf 'smoke-test: ADMIN_TOKEN is not set and %s does not exist (deploy/kind-up.sh generates it)\n' "$SECRETS_ENV" >&2
  exit 1
fi
INGRESS_ADDRESS="${INGRESS_ADDRESS-127.0.0.1}"
SMOKE_TIMEOUT="${SMOKE_TIMEOUT:-90}"

command -v curl >/dev/null 2>&1 || {
  printf "smoke-test: 'curl' is required and was not found on PATH\n" >&2
  exit 1
}

fail() {
  printf 'smoke-test: FAILED: %s\n' "$*" >&2
  exit 1
}

# curl --resolve entries: each public host goes to INGRESS_ADDRESS on its own port.
RESOLVE=()
if [ -n "$INGRESS_ADDRESS" ]; then
  for url in "$AUTH_URL" "$BASE_URL" "$SEARCH_URL"; do
    hostport="${url#*://}"
    hostport="${hostport%%/*}"
    host="${hostport%%:*}"
    if [ "$hostport" != "$host" ]; then
      port="${hostport##*:}"
    elif [ "${url%%://*}" = "https" ]; then
      port=443
    else
      port=80
    fi
    RESOLVE+=(--resolve "${host}:${port}:${INGRESS_ADDRESS}")
  done
fi

BODY_FILE="$(mktemp)"
UPLOAD_FILE="$(mktemp)"
trap 'rm -f "$BODY_FILE" "$UPLOAD_FILE"' EXIT
STATUS=""
BODY=""

# http METHOD URL [curl options...]: sets STATUS and BODY.
http() {
  local method="$1" url="$2"
  shift 2
  : >"$BODY_FILE"
  STATUS="$(curl -sS ${RESOLVE[@]+"${RESOLVE[@]}"} -X "$method" -o "$BODY_FILE" -w '%{http_code}' --max-time 30 "$@" "$url" || true)"
  BODY="$(cat "$BODY_FILE" 2>/dev/null || true)"
}

# json_string FIELD: the first string value of FIELD in BODY (flat JSON string fields only).
json_string() {
  printf '%s' "$BODY" | grep -o "\"$1\"[[:space:]]*:[[:space:]]*\"[^\"]*\"" | head -n 1 | sed 's/.*:[[:space:]]*"\(.*\)"$/\1/'
}

expect_status() {
  [ "$STATUS" = "$1" ] || fail "$2: expected HTTP $1, got ${STATUS:-no answer}: ${BODY:0:500}"
}

step() { printf -- '--> %s\n' "$*"; }

step "auth is ready (${AUTH_URL}/health/ready)"
deadline=$((SECONDS + SMOKE_TIMEOUT))
until http GET "$AUTH_URL/health/ready" && [ "$STATUS" = 200 ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "auth not ready after ${SMOKE_TIMEOUT} s (last answer: ${STATUS:-none})"
  sleep 2
done

run_id="$(date +%s)-$$"

onboard() { # onboard ROLE NAME [PROVENANCE_JSON]: sets CLIENT_ID and CLIENT_SECRET
  local body="{\"name\":\"$2\",\"role\":\"$1\"${3:+,\"provenance\":$3}}"
  http POST "$ADMIN_URL/admin/participants" -H "Authorization: Bearer ${ADMIN_TOKEN}" -H 'Content-Type: application/json' --data "$body"
  expect_status 201 "onboarding a $1"
  CLIENT_ID="$(json_string client_id)"
  CLIENT_SECRET="$(json_string client_secret)"
  if [ -z "$CLIENT_ID" ] || [ -z "$CLIENT_SECRET" ]; then
    fail "onboarding a $1 returned no client_id/client_secret: ${BODY:0:500}"
  fi
}

token() { # token AUDIENCE: sets TOKEN
  http POST "$AUTH_URL/oauth/token" -H 'Content-Type: application/json' \
    --data "{\"grant_type\":\"client_credentials\",\"client_id\":\"${CLIENT_ID}\",\"client_secret\":\"${CLIENT_SECRET}\",\"audience\":\"$1\"}"
  expect_status 200 "token for $1"
  TOKEN="$(json_string access_token)"
  [ -n "$TOKEN" ] || fail "no access_token for $1: ${BODY:0:500}"
}

step "onboarding a producer through the admin API"
onboard producer "Smoke test producer ${run_id}" '{"name":"Smoke Test Mine","type":"mine","country_code":"BW"}'
step "token for {base_url} (${BASE_URL})"
token "$BASE_URL"

step "registering a rough diamond"
now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
http POST "$BASE_URL/diamonds/rough/create" -H "Authorization: ${TOKEN}" -H 'Content-Type: application/json' \
  --data "{\"box_id\":\"smoke-box-${run_id}\",\"participant_id\":\"smoke-${run_id}\",\"participant_timestamp\":\"${now}\",\"rough\":{\"carats\":1.23}}"
expect_status 200 "rough diamond registration"
DIAMOND_ID="$(json_string diamond_id)"
[ -n "$DIAMOND_ID" ] || fail "registration returned no diamond_id: ${BODY:0:500}"
printf '    diamond_id %s\n' "$DIAMOND_ID"

step "attaching a file to it (platform -> blob store)"
printf 'smoke test scan of diamond %s, run %s\n' "$DIAMOND_ID" "$run_id" >"$UPLOAD_FILE"
http POST "$BASE_URL/diamonds/${DIAMOND_ID}/files/supplementary" -H "Authorization: ${TOKEN}" \
  -F "file=@${UPLOAD_FILE};filename=smoke-test.txt;type=text/plain" -F "description=kind smoke test"
expect_status 201 "file upload"
FILE_HASH="$(json_string hash)"
[ -n "$FILE_HASH" ] || fail "file upload returned no hash: ${BODY:0:500}"
if command -v sha256sum >/dev/null 2>&1; then
  expected_hash="$(sha256sum "$UPLOAD_FILE" | cut -d' ' -f1)"
  [ "$FILE_HASH" = "$expected_hash" ] || fail "file hash ${FILE_HASH} is not the SHA-256 of the bytes (${expected_hash})"
fi
printf '    file hash %s\n' "$FILE_HASH"

step "onboarding a non-participant; token for {search_url}/v1"
onboard non_participant "Smoke test reader ${run_id}"
token "$SEARCH_URL/v1"

step "reading the diamond back through search (eventually consistent, up to ${SMOKE_TIMEOUT} s)"
deadline=$((SECONDS + SMOKE_TIMEOUT))
started=$SECONDS
until http GET "$SEARCH_URL/v1/diamonds/${DIAMOND_ID}" -H "Authorization: ${TOKEN}" && [ "$STATUS" = 200 ]; do
  [ "$STATUS" = 404 ] || [ "$STATUS" = 000 ] || [ "$STATUS" = 502 ] || [ "$STATUS" = 503 ] ||
    fail "search answered ${STATUS}: ${BODY:0:500}"
  [ "$SECONDS" -lt "$deadline" ] || fail "diamond ${DIAMOND_ID} not visible through search after ${SMOKE_TIMEOUT} s"
  sleep 1
done
[ "$(json_string diamond_id)" = "$DIAMOND_ID" ] || fail "search returned another record: ${BODY:0:500}"

step "downloading the file through search (search <- blob store)"
until http GET "$SEARCH_URL/v1/diamonds/${DIAMOND_ID}/files/${FILE_HASH}" -H "Authorization: ${TOKEN}" && [ "$STATUS" = 200 ]; do
  [ "$STATUS" = 404 ] || fail "search answered ${STATUS} for the file: ${BODY:0:500}"
  [ "$SECONDS" -lt "$deadline" ] || fail "file ${FILE_HASH} not served by search after ${SMOKE_TIMEOUT} s"
  sleep 1
done
cmp -s "$BODY_FILE" "$UPLOAD_FILE" || fail "search served other bytes than were uploaded for ${FILE_HASH}"

printf 'smoke test passed: diamond %s registered through %s and read back through %s/v1 after %s s\n' \
  "$DIAMOND_ID" "$BASE_URL" "$SEARCH_URL" "$((SECONDS - started))"
