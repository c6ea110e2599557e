#!/bin/sh
# A private registry for the registryAuths cases: Debian's docker-registry
# (the Distribution registry) on 127.0.0.1:55000, plain HTTP (podman may
# reach it insecurely: scripts/podman-service.sh), htpasswd auth for user
# "dagu" / password "s3cret", holding dagu/busybox:static pushed from the
# local localhost/busybox:static; the local copy of the pushed tag is then
# removed, so a step must pull it.
#   registry.sh start   (needs SOCK: the Engine API socket)
#   registry.sh stop
set -eu
DIR=/tmp/dagu-test-registry
ADDR=127.0.0.1:55000
IMAGE="$ADDR/dagu/busybox"
api() { curl -sf --unix-socket "$SOCK" "$@"; }

case "${1:-}" in
start)
  command -v docker-registry >/dev/null || { echo "docker-registry is not installed (scripts/install-deps.sh)" >&2; exit 1; }
  mkdir -p "$DIR"
  if ! curl -s -o /dev/null "http://$ADDR/v2/"; then
    hash=$(python3 -W ignore -c "import crypt; print(crypt.crypt('s3cret', crypt.mksalt(crypt.METHOD_BLOWFISH)))")
    echo "dagu:$hash" >"$DIR/htpasswd"
    cat >"$DIR/config.yml" <<CONF
version: 0.1
log: {level: error}
storage: {filesystem: {rootdirectory: $DIR/data}}
http: {addr: $ADDR}
auth: {htpasswd: {realm: dagu-test, path: $DIR/htpasswd}}
CONF
    setsid docker-registry serve "$DIR/config.yml" </dev/null >"$DIR/log" 2>&1 &
    echo $! >"$DIR/pid"
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://$ADDR/v2/" && break; sleep 0.1; done
  fi
  auth=$(printf '{"username":"dagu","password":"s3cret","serveraddress":"%s"}' "$ADDR" | base64 -w0 | tr '+/' '-_')
  api -XPOST "http://d/v1.41/images/localhost/busybox:static/tag?repo=$IMAGE&tag=static" >/dev/null
  api -XPOST -H "X-Registry-Auth: $auth" "http://d/v1.41/images/$IMAGE/push?tag=static" | grep -q digest
  api -XDELETE "http://d/v1.41/images/$IMAGE:static" >/dev/null
  ;;
stop)
  api -XDELETE "http://d/v1.41/images/$IMAGE:static?force=1" >/dev/null 2>&1 || true
  if [ -f "$DIR/pid" ]; then kill "$(cat "$DIR/pid")" 2>/dev/null || true; fi
  rm -rf "$DIR"
  ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
