#!/usr/bin/env bash
# A Docker Engine API for the docker executor's tests: rootful Podman (Debian's
# podman + runc) serving the API on a unix socket, with small images imported
# offline from Debian's busybox-static (no registry is needed or reached).
#
#   scripts/podman-service.sh start   # idempotent; prints the socket path
#   scripts/podman-service.sh stop    # idempotent; stops the service it started
#   scripts/podman-service.sh status  # exit 0 when the API answers
#
# Images (both /bin/busybox plus its applet links):
#   localhost/busybox:static   CMD ["sh"]
#   localhost/busybox:echo     ENTRYPOINT ["echo","entry:"]  CMD ["from-cmd"]
#   localhost/busybox:sleep    CMD ["sleep","3600"] (runs until stopped: a
#                              DAG-level container with startup: entrypoint)
#
# Settings this sandbox needs (see docs/dag-format.md, "Docker"): runc (crun
# refuses the host's hybrid cgroup layout), the cgroupfs manager, container
# ulimits pinned to the current hard limits (podman's defaults exceed them),
# and a short exit_command_delay so exec sessions' conmon processes go soon.
#
# DAGU_PODMAN_SOCKET overrides the socket (default /run/dagu-test-podman.sock);
# the state (config, pid, log) is kept in DAGU_PODMAN_STATE (default
# /run/dagu-test-podman). Needs root (rootful podman).
set -euo pipefail

SOCKET="${DAGU_PODMAN_SOCKET:-/run/dagu-test-podman.sock}"
STATE="${DAGU_PODMAN_STATE:-/run/dagu-test-podman}"
CONF="$STATE/containers.conf"
REGISTRIES="$STATE/registries.conf"
# The local registry the registryAuths cases start (docker-registry, plain
# HTTP, htpasswd auth) on this fixed address; podman may reach it insecurely.
TEST_REGISTRY="127.0.0.1:55000"
PIDFILE="$STATE/service.pid"
LOG="$STATE/service.log"

die() { echo "podman-service: $*" >&2; exit 1; }

ping_ok() {
  curl -sf --max-time 2 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1
}

write_conf() {
  mkdir -p "$STATE"
  local nofile nproc
  nofile="$(ulimit -Hn)"
  nproc="$(ulimit -Hu)"
  [ "$nofile" = unlimited ] && nofile=1048576
  # podman lowers its own nproc to 32768; a container may not ask for more.
  if [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; then nproc=32768; fi
  cat >"$CONF.tmp" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
exit_command_delay = 10
CONF
  mv "$CONF.tmp" "$CONF"
  cat >"$REGISTRIES.tmp" <<REG
[[registry]]
location = "$TEST_REGISTRY"
insecure = true
REG
  mv "$REGISTRIES.tmp" "$REGISTRIES"
}

podman_cmd() { CONTAINERS_CONF="$CONF" CONTAINERS_REGISTRIES_CONF="$REGISTRIES" podman "$@"; }

import_images() {
  if podman_cmd image exists localhost/busybox:static && podman_cmd image exists localhost/busybox:echo &&
    podman_cmd image exists localhost/busybox:sleep; then
    return 0
  fi
  local busybox rootfs tar
  busybox="$(command -v busybox || true)"
  [ -n "$busybox" ] || busybox=/bin/busybox
  [ -x "$busybox" ] || die "busybox-static is not installed (scripts/install-deps.sh)"
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/bin" "$rootfs/tmp" "$rootfs/etc" "$rootfs/root" "$rootfs/work"
  cp "$busybox" "$rootfs/bin/busybox"
  for applet in $("$busybox" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  tar="$rootfs.tar"
  tar -C "$rootfs" -cf "$tar" .
  podman_cmd import -q --change 'CMD ["sh"]' --change 'ENV PATH=/bin' "$tar" localhost/busybox:static >/dev/null
  podman_cmd import -q --change 'ENTRYPOINT ["echo","entry:"]' --change 'CMD ["from-cmd"]' \
    --change 'ENV PATH=/bin' "$tar" localhost/busybox:echo >/dev/null
  podman_cmd import -q --change 'CMD ["sleep","3600"]' --change 'ENV PATH=/bin' "$tar" localhost/busybox:sleep >/dev/null
  rm -rf "$rootfs" "$tar"
}

start() {
  [ "$(id -u)" -eq 0 ] || die "needs root (rootful podman)"
  command -v podman >/dev/null || die "podman is not installed (scripts/install-deps.sh)"
  command -v runc >/dev/null || die "runc is not installed (scripts/install-deps.sh)"
  write_conf
  if ! ping_ok; then
    if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
      : # started by another caller, still coming up
    else
      rm -f "$SOCKET"
      CONTAINERS_CONF="$CONF" CONTAINERS_REGISTRIES_CONF="$REGISTRIES" setsid podman system service --time=0 "unix://$SOCKET" \
        </dev/null >"$LOG" 2>&1 &
      echo $! >"$PIDFILE"
    fi
    for _ in $(seq 1 200); do
      ping_ok && break
      sleep 0.1
    done
    ping_ok || die "the podman service did not answer on $SOCKET: $(tail -5 "$LOG" 2>/dev/null)"
  fi
  import_images
  echo "$SOCKET"
}

stop() {
  if [ -f "$PIDFILE" ]; then
    local pid
    pid="$(cat "$PIDFILE")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$PIDFILE"
  fi
  rm -f "$SOCKET"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) ping_ok ;;
  *) die "usage: $0 start|stop|status" ;;
esac
