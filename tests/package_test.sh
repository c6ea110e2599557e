#!/usr/bin/env bash
# The Debian package (issue 17): `cpack -G DEB` builds it from the build
# directory; the test checks its control data and contents, unpacks it into
# a scratch root (dpkg-deb -x: no root rights or dpkg database needed), and
# runs `dagu version` and a scheduler from there (/health and /metrics).
# Usage: tests/package_test.sh <build dir>
set -euo pipefail
build="$(cd "$1" && pwd)"
work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --build "$build" --target dagu manpage >/dev/null
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
deb="$(ls "$work"/out/dagu_*.deb)"
echo "built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

info="$(dpkg-deb --info "$deb")"
grep -q '^ Package: dagu$' <<<"$info" || fail "no Package: dagu in $info"
grep -q '^ Depends: .*libc6' <<<"$info" || fail "no shared-library dependencies (dpkg-shlibdeps): $info"
# The libraries dagu loads at first use (src/dynlib) are not seen by dpkg-shlibdeps.
for lib in libcurl4 libssh-4 libjq1 libarchive13 libssl3; do
  grep -q "^ Depends: .*\b$lib\b" <<<"$info" || fail "Depends does not name $lib: $info"
done
# Nothing in dagu links cpp-httplib, nor the compression libraries only it needed.
for lib in libcpp-httplib libbrotli zlib1g; do
  if grep -q "^ Depends: .*\b$lib" <<<"$info"; then fail "Depends names $lib: $info"; fi
done
grep -q ' postinst' <<<"$info" || fail "no postinst"
contents="$(dpkg-deb -c "$deb")"
for f in ./usr/bin/dagu ./usr/lib/systemd/system/dagu-scheduler.service ./usr/lib/systemd/system/dagu-start-all.service \
         ./usr/lib/systemd/system/dagu-coordinator.service ./usr/lib/systemd/system/dagu-worker.service \
         ./usr/share/man/man1/dagu.1.gz ./usr/share/doc/dagu/examples/config.yaml \
         ./usr/share/doc/dagu/deploy/prometheus/alerts.yml; do
  grep -q " $f\$" <<<"$contents" || fail "$f is not in the package"
done

root="$work/root"
dpkg-deb -x "$deb" "$root"
version="$("$root/usr/bin/dagu" version 2>&1)"
[ -n "$version" ] || fail "dagu version printed nothing"
echo "dagu version: $version"
zcat "$root/usr/share/man/man1/dagu.1.gz" | grep -q '^\.SS scheduler$' || fail "the man page lacks the scheduler command"

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
DAGU_HOME="$work/home" DAGU_SCHEDULER_PORT="$port" "$root/usr/bin/dagu" scheduler >"$work/scheduler.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$port/health?role=active" >"$work/health.json" 2>/dev/null; then break; fi
  sleep 0.1
done
grep -q '"role":"active"' "$work/health.json" || { cat "$work/scheduler.log"; fail "the packaged scheduler never became active"; }
curl -fsS "http://127.0.0.1:$port/metrics" >"$work/metrics.txt" || fail "no /metrics from the packaged scheduler"
grep -q '^dagu_scheduler_role{role="active"} 1$' "$work/metrics.txt" || fail "/metrics lacks the active role"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[ "$status" -eq 0 ] || { cat "$work/scheduler.log"; fail "the packaged scheduler exited $status on SIGTERM"; }
echo "PASS: package installs and its scheduler runs"
