#!/usr/bin/env bash
# Baseline: the bash loop of curl and jq a user might write instead of cnv.
# usage: export-curl.sh BASE_URL KEY OUT_FILE
set -euo pipefail
base=$1 key=$2 out=$3
cursor=""
: > "$out"
page=$(mktemp)
while :; do
  curl -sf -X POST "$base/v2/exports/contacts" -H "X-API-Key: $key" -H 'Content-Type: application/json' \
    -d "{\"cursor\":\"$cursor\",\"limit\":5000}" -o "$page"
  jq -c '.data.contacts[]' "$page" >> "$out"
  cursor=$(jq -r '.pagination.nextCursor // empty' "$page")
  [ -n "$cursor" ] || break
done
rm -f "$page"
