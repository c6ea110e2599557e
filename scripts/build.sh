#!/usr/bin/env bash
# Configures (CMake preset `default`: RelWithDebInfo, warnings as errors) and
# builds everything into build/default. DAGU_BUILD_JOBS overrides the number
# of parallel compile jobs (default: the number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache (used when installed): paths relative to the checkout and no build
# directory in the hash, so two checkouts (a clone, a worktree) share hits.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake --preset default
cmake --build --preset default --parallel "${DAGU_BUILD_JOBS:-$(nproc)}"
