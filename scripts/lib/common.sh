# Shared by scripts/setup, run and test. Sourced, not run.

KDRIFT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KDRIFT_BUILD_DIR=${KDRIFT_BUILD_DIR:-$KDRIFT_ROOT/build}

# Debian 12 packages, each for a reason given in README.md ("Dependencies").
KDRIFT_BUILD_PACKAGES=(
  g++ cmake ninja-build pkg-config clang ccache
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev zlib1g-dev libarchive-dev
  liburing-dev libaio-dev libbpf-dev bpftool libpci-dev pci.ids libblkid-dev
  libgtest-dev
)
KDRIFT_TEST_PACKAGES=(
  clang-format clang-tidy fio sosreport jq chromium
  qemu-system-x86 busybox-static kexec-tools cpio kmod xz-utils e2fsprogs systemd
  python3 time universal-ctags
)

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
