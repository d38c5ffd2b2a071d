# Shared by scripts/setup, run and test. Sourced, not run.

KDRIFT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KDRIFT_BUILD_DIR=${KDRIFT_BUILD_DIR:-$KDRIFT_ROOT/build}

# Debian 12 packages, each for a reason given in docs/development.md ("Dependencies"). The build's list is
# debian/control's Build-Depends too (scripts/package refuses to build when the two differ).
KDRIFT_BUILD_PACKAGES=(
  g++ cmake ninja-build pkg-config clang
  libcli11-dev nlohmann-json3-dev libsimdjson-dev libtomlplusplus-dev zlib1g-dev libdeflate-dev
  libarchive-dev liblzma-dev
  liburing-dev libaio-dev libbpf-dev bpftool libpci-dev pci.ids libblkid-dev
  libgtest-dev
)
# Compiler results cached across builds and clones (below).
KDRIFT_CACHE_PACKAGES=(ccache)
KDRIFT_TEST_PACKAGES=(
  clang-format clang-tidy fio sosreport jq chromium
  qemu-system-x86 busybox-static kexec-tools cpio kmod xz-utils e2fsprogs systemd
  python3 time universal-ctags man-db bash-completion zsh git make
  prometheus prometheus-node-exporter
  ansible-core ansible-lint openssh-server openssh-client iproute2
)
# scripts/package and its test: the Debian way to build, check and install a package.
KDRIFT_PACKAGING_PACKAGES=(debhelper dpkg-dev lintian mmdebstrap)

log() { printf '==> %s\n' "$*" >&2; }

# Installs whichever of the given packages are missing; apt-get update only when needed.
ensure_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    log "missing packages: ${missing[*]} (run as root to install them)"
    return 1
  fi
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${missing[@]}"
  }
}

# The test tiers' and the package tier's packages. Debian starts prometheus and node_exporter
# when it installs them; the tests run their own on ports of their own, and servers scraping in
# the background would disturb the probe's timings. Only those this call installs are stopped: a
# server the machine already ran is its owner's.
ensure_test_packages() {
  local new_services=() service
  for service in prometheus prometheus-node-exporter; do
    dpkg-query -W -f='${Status}' "$service" 2>/dev/null | grep -q "install ok installed" ||
      new_services+=("$service")
  done
  ensure_packages "${KDRIFT_TEST_PACKAGES[@]}" "${KDRIFT_PACKAGING_PACKAGES[@]}"
  if [ ${#new_services[@]} -gt 0 ] && [ -d /run/systemd/system ]; then
    systemctl disable --now "${new_services[@]}" >/dev/null 2>&1 || true
  fi
}

# Compiler results are cached outside the clone (ccache, ~/.cache/ccache): CI builds a fresh
# clone three times (plain, sanitizers, fuzzers), and a second run reuses what the first compiled.
# Paths are hashed relative to the clone (base dir, no working-directory hash) so that a clone
# elsewhere hits the same entries; the sloppiness lets precompiled headers be cached too.
export CCACHE_BASEDIR="$KDRIFT_ROOT"
export CCACHE_NOHASHDIR=true
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime

# configure_and_build BUILD_DIR [cmake options...] [-- ninja targets...]
configure_and_build() {
  local dir=$1
  shift
  local options=() targets=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do options+=("$1"); shift; done
  [ $# -gt 0 ] && shift && targets=("$@")
  command -v ccache >/dev/null && options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$KDRIFT_ROOT" -B "$dir" -G Ninja "${options[@]}" >/dev/null
  ninja -C "$dir" "${targets[@]}" >&2
}

# The sanitized tree (clang, ASan+UBSan, libFuzzer's coverage): the unit tier runs there under the
# sanitizers and scripts/fuzz's targets are built there, from the same compiled libraries.
KDRIFT_SANITIZE_DIR=${KDRIFT_SANITIZE_DIR:-$KDRIFT_ROOT/build-sanitize}
# build_sanitized [ninja targets...]
build_sanitized() {
  configure_and_build "$KDRIFT_SANITIZE_DIR" -DKDRIFT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -- "$@"
}

# The package names of debian/control's Build-Depends, one a line, sorted, without debhelper's
# compat level (version constraints and build profiles dropped).
debian_build_depends() {
  sed -n '/^Build-Depends:/,/^[^ ]/p' "$KDRIFT_ROOT/debian/control" | sed '1s/^Build-Depends://; /^[^ ]/d' |
    tr ',' '\n' | sed 's/([^)]*)//g; s/<[^>]*>//g; s/[[:space:]]//g' | grep -v -e '^$' -e '^debhelper-compat$' |
    sort
}

# Fails, naming the difference, when debian/control's Build-Depends are not KDRIFT_BUILD_PACKAGES.
check_build_depends() {
  local wanted
  wanted=$(printf '%s\n' "${KDRIFT_BUILD_PACKAGES[@]}" | sort)
  if [ "$(debian_build_depends)" != "$wanted" ]; then
    log "debian/control's Build-Depends differ from KDRIFT_BUILD_PACKAGES (scripts/lib/common.sh):"
    diff <(echo "$wanted") <(debian_build_depends) | sed -n 's/^</  only in common.sh:/p; s/^>/  only in debian\/control:/p' >&2
    return 1
  fi
}
