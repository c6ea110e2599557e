#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test (labels unit,
# process and conformance) with ctest's `default` preset. Prints ctest's
# summary and exits non-zero when any test fails or none ran.
# Extra arguments go to ctest (e.g. -L unit, -R Config). The container
# runtime of the docker cases (scripts/podman-service.sh) is started by those
# tests when first needed and stopped here when the tests end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
status=0
ctest --preset default --no-tests=error "$@" || status=$?
scripts/podman-service.sh stop || true
exit "$status"
