#!/bin/sh
# Builds the web UI (ui/) into OUT_DIR (app.js, SpecEditor.js, style.css) for CMake to embed:
# installs the packages pinned in package-lock.json from the npm registry
# (npm ci, only when the lockfile changed since the last install), checks
# the types (tsc) and bundles (vite build).
# usage: ui/build.sh OUT_DIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "ui/build.sh: the web UI needs Node.js and npm (scripts/install-deps.sh installs them)" >&2
  exit 1
fi
# Vite 8 (Rolldown) needs Node.js 20.19+ or 22.12+; Debian 12's own nodejs is 18.
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)||(a===20&&b>=19)?0:1)'; then
  echo "ui/build.sh: the web UI's build (Vite 8) needs Node.js 20.19+ or 22.12+; found $(node --version)" >&2
  exit 1
fi
cd "$here"
# Two build directories (presets) share ui/node_modules: one build at a time.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$here/.build.lock"
  flock 9
fi
stamp=node_modules/.dagu-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "ui/build.sh: npm ci (packages from the npm registry, pinned by ui/package-lock.json)"
  if ! npm ci --no-audit --no-fund --prefer-offline >npm-ci.log 2>&1; then
    cat npm-ci.log >&2
    echo "ui/build.sh: npm ci failed: the UI's packages come from the npm registry; is it reachable (npm config get registry)?" >&2
    exit 1
  fi
  rm -f npm-ci.log
  cp package-lock.json "$stamp"
fi
node_modules/.bin/tsc --noEmit -p tsconfig.json
DAGU_UI_OUT="$out" node_modules/.bin/vite build --logLevel warn
test -s "$out/app.js" && test -s "$out/SpecEditor.js" && test -s "$out/style.css"
