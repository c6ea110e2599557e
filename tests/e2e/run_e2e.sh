#!/bin/sh
# Runs a web UI end-to-end test: installs playwright-core (pinned in
# package-lock.json, from the npm registry, no browser download) into the
# build directory once, then runs the test script, which drives Debian's
# /usr/bin/chromium.
# usage: run_e2e.sh <dagu binary> <build dir for this test> [test script, default web_ui_e2e.js]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
binary=$1
out=$2
script=${3:-web_ui_e2e.js}
mkdir -p "$out"
if [ ! -f "$out/node_modules/playwright-core/package.json" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$out/"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$out" --no-audit --no-fund --ignore-scripts >"$out/npm.log" 2>&1 ||
    { cat "$out/npm.log"; exit 1; }
fi
exec node "$here/$script" "$binary" "$out/node_modules" "$out"
