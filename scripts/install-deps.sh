#!/usr/bin/env bash
# Installs the Debian packages this project needs to build, run and test.
# Idempotent and fast when everything is there: one dpkg-query, and apt-get
# (update + install) runs only for packages that are missing. A package
# counts as present when it is installed or provided by an installed package
# (e.g. NodeSource's nodejs provides npm).
#
# The single list of packages is PACKAGES below; add yours there.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential g++ cmake ninja-build ccache pkg-config git
  # libraries (headers and CMake/pkg-config files)
  libcli11-dev libspdlog-dev nlohmann-json3-dev libyaml-cpp-dev libssl-dev
  libhowardhinnant-date-dev tzdata libgtest-dev libgmock-dev libsystemd-dev
  # tests: cpp-httplib's HTTP(S) client (the web unit tests; dagu does not link it)
  libcpp-httplib-dev
  # executors and notifications: jq, HTTP(S) and SMTP(S), ssh, archive
  libjq-dev libcurl4-openssl-dev libssh-dev libarchive-dev
  # builtin auth: bcrypt password and key hashes, as Dagu 1.30.2 writes them (libxcrypt)
  libcrypt-dev
  # builtin auth: JSON Web Tokens (libjwt, loaded at first use, src/dynlib)
  libjwt-dev
  # distributed mode: gRPC C++ and protobuf (dagu coordinator/worker speak Dagu 1.30.2's
  # coordinator.v1 protocol; linked only into libdagu-grpc.so, loaded by those roles)
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  # tests: fetching the reference Dagu 1.30.2 from the npm registry, promtool, UI end-to-end
  python3 curl ca-certificates nodejs npm prometheus chromium
  # tests: the executors' real counterparts (SMTP server, OpenSSH server, keys and certificates)
  python3-aiosmtpd openssh-server openssh-client openssl
  # tests: fuzzing (libFuzzer), the fault file system (FUSE), clock skew, namespaces
  clang libfuse3-dev fuse3 faketime libfaketime iproute2 util-linux
  # tests: a Docker Engine API for the docker executor (scripts/podman-service.sh): rootful
  # Podman with runc (crun refuses hybrid cgroups), catatonit (a container's Init), and
  # busybox-static (the test images, imported offline)
  podman runc catatonit busybox-static
  # tests: a private registry with password auth for the registryAuths cases
  # (tests/compat/cases/docker/registry.sh): the Distribution registry
  docker-registry
  # tests: the completion scripts of `dagu completion fish|zsh` in their shells
  fish zsh
  # tests: systemd-analyze verify of deploy/systemd/*.service; dpkg-shlibdeps for `cpack -G DEB`
  systemd dpkg-dev
)

# Every installed package name and every name an installed package provides.
present="$(dpkg-query -W -f='${Status}\t${Package}\t${Provides}\n' 2>/dev/null |
  awk -F'\t' '$1 ~ /install ok installed/ {
      print $2
      n = split($3, provided, ",")
      for (i = 1; i <= n; i++) { name = provided[i]; sub(/^ +/, "", name); sub(/ .*/, "", name); if (name != "") print name }
    }' | sort -u)"

missing=()
for package in "${PACKAGES[@]}"; do
  if ! grep -qxF "$package" <<<"$present"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    SUDO=(sudo)
  else
    echo "install-deps: missing packages and not root (no sudo): ${missing[*]}" >&2
    exit 1
  fi
fi
# Wait for another apt/dpkg run (another checkout, unattended upgrades) instead of failing.
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get "${APT_OPTS[@]}" update -qq
"${SUDO[@]}" apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
