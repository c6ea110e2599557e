#!/usr/bin/env bash
# Installs the dependencies, builds, and runs `dagu start-all` (scheduler and
# web UI) on the example home in examples/home: UI on http://127.0.0.1:8080,
# scheduler health on http://127.0.0.1:8090/health. Stop it with Ctrl-C.
# Extra arguments go to `dagu start-all` (e.g. --port 9000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/default/bin/dagu start-all --dagu-home examples/home "$@"
