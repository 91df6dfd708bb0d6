#!/usr/bin/env bash
# Bring up Glewlwyd (Debian package `glewlwyd`, SQLite backend) on 127.0.0.1 as an external OIDC provider for
# RaceBeacon, configured through its own admin API, and print the environment for the app.
# Not part of `npm test`/CI: a by-hand interop check (README, "What is tested against which provider").
#
#   scripts/try-glewlwyd.sh            # (re)create everything under $GLEWLWYD_DIR and start Glewlwyd
#   scripts/try-glewlwyd.sh stop       # stop the Glewlwyd started here
#
# Idempotent: every run stops the previous instance, wipes $GLEWLWYD_DIR (except app-data/, the app's DATA_DIR)
# and starts Glewlwyd from a fresh database.
# Accounts made (password for both: `racebeacon-pw`): `runner1` (no group), `boss1` (groups "volunteers,racebeacon-admins", one string).
set -euo pipefail

GLEWLWYD_DIR="${GLEWLWYD_DIR:-${TMPDIR:-/tmp}/racebeacon-glewlwyd}"
GW_PORT="${GW_PORT:-4594}"
APP_PORT="${APP_PORT:-3100}"
# Access-token lifetime; a short one (GW_ACCESS_TOKEN_SECONDS=60) lets try-glewlwyd-browser.mjs RENEW=1 see a renewal.
GW_URL="http://127.0.0.1:${GW_PORT}"
APP_URL="http://127.0.0.1:${APP_PORT}"
ISSUER="${GW_URL}/api/oidc"
USER_PASSWORD="racebeacon-pw"
PIDFILE="${GLEWLWYD_DIR}/glewlwyd.pid"

stop() {
  if [[ -f "$PIDFILE" ]]; then
    local pid
    pid="$(cat "$PIDFILE")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -f "$PIDFILE"
  fi
}

if [[ "${1:-}" == "stop" ]]; then
  stop
  exit 0
fi

command -v glewlwyd >/dev/null || { echo "glewlwyd not installed (apt-get install glewlwyd)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed" >&2; exit 1; }
command -v openssl >/dev/null || { echo "openssl not installed" >&2; exit 1; }

stop
# Everything but the app's own data directory (the app may be running on it).
mkdir -p "$GLEWLWYD_DIR"
find "$GLEWLWYD_DIR" -mindepth 1 -maxdepth 1 ! -name app-data -exec rm -rf {} +
cd "$GLEWLWYD_DIR"

# Database: the package's own SQLite schema (with the default admin / password account).
zcat /usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz | sqlite3 glewlwyd.db
# Glewlwyd checks a logout's post_logout_redirect_uri against the client's `post_logout_redirect_uris` (a list, the
# registration metadata's name), which the package's client backend does not store: add it to its data format.
sqlite3 glewlwyd.db "UPDATE g_client_module_instance SET gcmi_parameters = json_set(gcmi_parameters,
  '\$.data-format.post_logout_redirect_uris', json('{\"multiple\":true,\"read\":true,\"write\":true}'))
  WHERE gcmi_name = 'database';"
# The user backend: a `groups` property (one value: Glewlwyd then sends the claim as a string, as issue 23 saw).
sqlite3 glewlwyd.db "UPDATE g_user_module_instance SET gumi_parameters = json_set(gumi_parameters,
  '\$.data-format.groups', json('{\"multiple\":false,\"read\":true,\"write\":true,\"profile-read\":true}'))
  WHERE gumi_name = 'database';"

# Static login pages (copied with symlinks resolved: the package links jQuery/Bootstrap relatively). Debian ships webapp/config.json as a directory holding the file; copy and flatten it, and
# point the pages at this instance.
cp -rL /usr/share/glewlwyd/webapp webapp 2>/dev/null || true
rm -rf webapp/config.json
sed 's#"GlewlwydUrl": "./"#"GlewlwydUrl": "'"${GW_URL}"'/"#' /usr/share/glewlwyd/webapp/config.json/config.json \
  > webapp/config.json

# Signing key: RS256 (the API pins RS256/ES256).
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out key.pem 2>/dev/null
openssl pkey -in key.pem -pubout -out pub.pem

# Server configuration: the package's file with our port, address, database and paths.
sed -e "s#^port=.*#port=${GW_PORT}#" \
  -e "s#^external_url=.*#external_url=\"${GW_URL}\"#" \
  -e "s#^log_mode=.*#log_mode=\"file\"#" \
  -e "s#^log_file=.*#log_file=\"${GLEWLWYD_DIR}/glewlwyd.log\"#" \
  -e "s#^@include .*##" \
  /etc/glewlwyd/glewlwyd.conf > glewlwyd.conf
cat >> glewlwyd.conf <<EOF
bind_address="127.0.0.1"
static_files_path="${GLEWLWYD_DIR}/webapp/"
database =
{
  type = "sqlite3"
  path = "${GLEWLWYD_DIR}/glewlwyd.db"
};
EOF

glewlwyd --config-file="${GLEWLWYD_DIR}/glewlwyd.conf" > glewlwyd.out 2>&1 &
echo $! > "$PIDFILE"
for _ in $(seq 100); do
  curl -sf "${GW_URL}/config/" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "${GW_URL}/config/" >/dev/null || { echo "glewlwyd did not start; see ${GLEWLWYD_DIR}/glewlwyd.out" >&2; cat glewlwyd.out >&2; exit 1; }

JAR="${GLEWLWYD_DIR}/admin.cookies"
api() { # method path [json]
  local code
  code="$(curl -s -o "${GLEWLWYD_DIR}/last-body" -w '%{http_code}' -b "$JAR" -c "$JAR" -X "$1" \
    -H 'Content-Type: application/json' ${3:+--data "$3"} "${GW_URL}/api$2")"
  if [[ "$code" != 2* ]]; then
    echo "glewlwyd API $1 $2 answered $code: $(cat "${GLEWLWYD_DIR}/last-body")" >&2
    exit 1
  fi
}
json_str() { python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$1"; }

api POST /auth/ '{"username":"admin","password":"password"}'

# The API scope (our OIDC_API_SCOPE). No password re-prompt, so a signed-in session grants it silently.
api POST /scope/ '{"name":"races.manage","display_name":"RaceBeacon","description":"RaceBeacon API","password_required":false,"scheme":{}}'
api POST /scope/ '{"name":"profile","display_name":"Profile","description":"profile","password_required":false,"scheme":{}}'
api POST /scope/ '{"name":"email","display_name":"Email","description":"email","password_required":false,"scheme":{}}'
api POST /scope/ '{"name":"offline_access","display_name":"Offline","description":"refresh tokens","password_required":false,"scheme":{}}'

# The OIDC plugin instance (issuer ${ISSUER}): RS256 key pair, code + refresh, PKCE, session management
# (end_session), `groups` and `name`/`email` claims in the ID token and userinfo.
KEY_JSON="$(json_str key.pem)"
CERT_JSON="$(json_str pub.pem)"
api POST /mod/plugin/ '{"module":"oidc","name":"oidc","display_name":"OpenID Connect","enabled":true,"parameters":{
  "iss":"'"${ISSUER}"'","jwt-type":"rsa","jwt-key-size":"256","key":'"${KEY_JSON}"',"cert":'"${CERT_JSON}"',
  "jwks-show":true,"access-token-duration":'"${GW_ACCESS_TOKEN_SECONDS:-3600}"',"refresh-token-duration":86400,"code-duration":600,
  "refresh-token-rolling":true,"allow-non-oidc":false,"auth-type-code-enabled":true,"auth-type-token-enabled":false,
  "auth-type-id-token-enabled":true,"auth-type-none-enabled":false,"auth-type-password-enabled":false,
  "auth-type-client-enabled":false,"auth-type-device-enabled":false,"auth-type-refresh-enabled":true,
  "subject-type":"public","scope":[],"additional-parameters":[{"user-parameter":"groups","token-parameter":"groups"}],
  "claims":[{"name":"groups","user-property":"groups","type":"string","scope":[],"on-demand":false,"mandatory":true}],
  "name-claim":"mandatory","name-claim-scope":[],"email-claim":"mandatory","email-claim-scope":[],
  "scope-claim":"no","scope-claim-scope":[],"allowed-scope":["openid","profile","email","offline_access","races.manage"],
  "pkce-allowed":true,"pkce-method-plain-allowed":false,"session-management-allowed":true,"front-channel-logout-allowed":true,"back-channel-logout-allowed":false,
  "session-cookie-name":"GLEWLWYD_OIDC_SID","session-cookie-expiration":2419200,
  "request-parameter-allow":false,"introspection-revocation-allowed":false,"register-client-allowed":false}}'

# The web app: a public client (no secret), code + refresh token, redirect URIs of the app.
api POST /client/ '{"client_id":"racebeacon-web","name":"RaceBeacon web","enabled":true,"confidential":false,
  "scope":["openid","profile","email","offline_access","races.manage"],
  "redirect_uri":["'"${APP_URL}"'/auth/callback","'"${APP_URL}"'/auth/silent-renew","'"${APP_URL}"'/"],
  "authorization_type":["code","refresh_token"],"token_endpoint_auth_method":["none"],
  "post_logout_redirect_uris":["'"${APP_URL}"'/"]}'

# Users: a runner and an administrator (member of racebeacon-admins).
api POST /user/ '{"username":"runner1","name":"Rita Runner","email":"runner1@example.org","enabled":true,
  "password":"'"${USER_PASSWORD}"'","scope":["openid","profile","email","offline_access","races.manage"]}'
api POST /user/ '{"username":"boss1","name":"Bo Boss","email":"boss1@example.org","enabled":true,
  "groups":"volunteers,racebeacon-admins","password":"'"${USER_PASSWORD}"'",
  "scope":["openid","profile","email","offline_access","races.manage"]}'

curl -sf "${ISSUER}/.well-known/openid-configuration" >/dev/null \
  || { echo "no discovery document at ${ISSUER}/.well-known/openid-configuration" >&2; exit 1; }

cat <<EOF
Glewlwyd $(dpkg-query -W -f='${Version}' glewlwyd 2>/dev/null || echo '?') runs at ${GW_URL} (pid $(cat "$PIDFILE"), files in ${GLEWLWYD_DIR}).
Users: runner1 / ${USER_PASSWORD} (no group), boss1 / ${USER_PASSWORD} (groups "volunteers,racebeacon-admins", one string).
Start the app (after npm run build) with:

HOST=127.0.0.1 PORT=${APP_PORT} PUBLIC_URL=${APP_URL} DATA_DIR=${GLEWLWYD_DIR}/app-data \\
OIDC_ISSUER=${ISSUER} OIDC_CLIENT_ID=racebeacon-web OIDC_AUDIENCE=races.manage OIDC_API_SCOPE=races.manage \\
ADMIN_GROUP_ID=racebeacon-admins node apps/server/dist/server.js

Stop Glewlwyd: $0 stop
EOF
