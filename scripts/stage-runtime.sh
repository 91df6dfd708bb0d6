#!/bin/sh
# Copies what the built server needs at run time into DEST (the image's /app; scripts/image-check.mjs's temp copy):
# the root and workspace package.json files with package-lock.json (for `npm ci --omit=dev`), the built server,
# its migrations, the built web app and the image's health check. Run after `npm run build`.
#   sh scripts/stage-runtime.sh DEST
set -eu
dest="${1:?usage: stage-runtime.sh DEST}"
cd "$(dirname "$0")/.."

for built in apps/server/dist/server.js apps/server/dist/main.js apps/web/dist/index.html \
  apps/server/drizzle/meta/_journal.json; do
  [ -f "$built" ] || { echo "stage-runtime: $built missing: run npm run build first" >&2; exit 1; }
done

if [ -e "$dest" ] && [ -n "$(ls -A "$dest")" ]; then
  echo "stage-runtime: $dest is not empty" >&2
  exit 1
fi
mkdir -p "$dest"
cp package.json package-lock.json "$dest/"
# Every workspace's package.json: npm ci checks the lock file against all of them.
for pkg in apps/*/package.json packages/*/package.json; do
  mkdir -p "$dest/$(dirname "$pkg")"
  cp "$pkg" "$dest/$pkg"
done
cp -R apps/server/dist "$dest/apps/server/dist"
cp -R apps/server/drizzle "$dest/apps/server/drizzle"
cp -R apps/web/dist "$dest/apps/web/dist"
mkdir -p "$dest/deploy"
cp deploy/healthcheck.mjs "$dest/deploy/"
