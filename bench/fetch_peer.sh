#!/usr/bin/env bash
# Fetches the real Dagu 1.30.2 binary (npm package @dagu-org/dagu-linux-x64,
# docs/decisions.md §7) once into build/.cache/dagu-1.30.2/ and prints the
# path of package/bin/dagu. Exits 1 with a message when it cannot be had.
# Override the cache with DAGU_PEER_CACHE; use a binary of your own with
# DAGU_PEER_BINARY (then nothing is fetched).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ -n "${DAGU_PEER_BINARY:-}" ]]; then
  [[ -x "$DAGU_PEER_BINARY" ]] || { echo "fetch_peer: DAGU_PEER_BINARY=$DAGU_PEER_BINARY is not executable" >&2; exit 1; }
  echo "$DAGU_PEER_BINARY"; exit 0
fi
cache="${DAGU_PEER_CACHE:-$root/build/.cache/dagu-1.30.2}"
bin="$cache/package/bin/dagu"
if [[ ! -x "$bin" ]]; then
  command -v npm >/dev/null || { echo "fetch_peer: npm not found; cannot fetch Dagu 1.30.2" >&2; exit 1; }
  mkdir -p "$cache"
  # Tests fetch in parallel: one fetches, the others wait for it; the binary
  # appears by a rename, never half-written nor replaced under a running test.
  exec 9>"$cache/.fetch.lock"
  flock 9
  if [[ ! -x "$bin" ]]; then
    tgz="$cache/dagu-org-dagu-linux-x64-1.30.2.tgz"
    if [[ ! -s "$tgz" ]]; then
      (cd "$cache" && timeout 300 npm pack --silent @dagu-org/dagu-linux-x64@1.30.2 >/dev/null) ||
        { echo "fetch_peer: npm pack @dagu-org/dagu-linux-x64@1.30.2 failed" >&2; exit 1; }
    fi
    tmp="$(mktemp -d "$cache/extract.XXXXXX")"
    tar -xzf "$tgz" -C "$tmp" package/bin/dagu package/package.json
    chmod +x "$tmp/package/bin/dagu"
    mkdir -p "$cache/package/bin"
    mv -f "$tmp/package/package.json" "$cache/package/package.json"
    mv -f "$tmp/package/bin/dagu" "$bin"
    rm -rf "$tmp"
  fi
  flock -u 9
fi
version="$("$bin" version 2>&1 | tail -n 1)"
[[ "$version" == "1.30.2" ]] || { echo "fetch_peer: $bin reports version '$version', expected 1.30.2" >&2; exit 1; }
echo "$bin"
