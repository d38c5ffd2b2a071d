# shellcheck shell=bash disable=SC2034
# (SC2034: the K_* / S_* variables set here are used by the scripts sourcing this.)
# Common helpers for the kdrift QEMU lab scripts. Sourced, not executed.

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$LAB_DIR/../.." && pwd)
LAB_CACHE=${KDRIFT_LAB_CACHE:-/var/cache/kdrift-lab}
# Exit status meaning "skipped: a prerequisite is missing" (automake/ctest convention).
EXIT_SKIP=77

log()  { printf '[lab] %s\n' "$*" >&2; }
warn() { printf '[lab] warning: %s\n' "$*" >&2; }
die()  { printf '[lab] error: %s\n' "$*" >&2; exit 1; }
skip() { printf '[lab] skip: %s\n' "$*" >&2; exit "$EXIT_SKIP"; }

need_cmd() {
    local c
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 || skip "'$c' not found (install it: see scripts/lab/README.md)"
    done
}

ensure_cache() {
    mkdir -p "$LAB_CACHE"/{debs,kernels,initramfs} 2>/dev/null ||
        die "cannot create cache dir $LAB_CACHE (set KDRIFT_LAB_CACHE to a writable directory)"
}

# Load kernels/NAME.conf into K_* variables.
load_kernel_conf() {
    local name=$1 f="$LAB_DIR/kernels/$1.conf"
    [[ -f $f ]] || die "unknown kernel '$name' (no $f); known: $(list_confs kernels)"
    local PACKAGE='' PACKAGE_ALTERNATIVES='' FLAVOUR='' DESCRIPTION=''
    # shellcheck source=/dev/null
    . "$f"
    [[ -n $PACKAGE ]] || die "$f: PACKAGE is not set"
    K_NAME=$name
    K_PACKAGE=$PACKAGE
    K_PACKAGE_ALTERNATIVES=$PACKAGE_ALTERNATIVES
    K_FLAVOUR=$FLAVOUR
    K_DESCRIPTION=$DESCRIPTION
    K_DIR="$LAB_CACHE/kernels/$name"
}

# Load scenarios/NAME.conf into S_* variables.
load_scenario_conf() {
    local name=$1 f="$LAB_DIR/scenarios/$1.conf"
    [[ -f $f ]] || die "unknown scenario '$name' (no $f); known: $(list_confs scenarios)"
    local KERNEL='' MACHINE='q35' QEMU_ARGS='' SMP='2' MEMORY='1G' NUMA_ARGS='' \
          NVME_BUS='' NVME_ARGS='' ROOT_PORT_ARGS='' CMDLINE='' NVME_POLL_QUEUES='' MODULES='' \
          FIXTURE='no' DESCRIPTION='' EXPECT_GROUP_TYPE='' EXPECT_IO_POLL='' \
          EXPECT_QUEUES='' EXPECT_NUMA_NODE='' EXPECT_LINK_SPEED='' EXPECT_LINK_WIDTH='' \
          EXPECT_IOPOLL=''
    # shellcheck source=/dev/null
    . "$f"
    [[ -n $KERNEL ]] || die "$f: KERNEL is not set"
    S_NAME=$name
    S_KERNEL=$KERNEL
    S_MACHINE=$MACHINE
    S_QEMU_ARGS=$QEMU_ARGS
    S_SMP=$SMP
    S_MEMORY=$MEMORY
    S_NUMA_ARGS=$NUMA_ARGS
    S_NVME_BUS=$NVME_BUS
    S_NVME_ARGS=$NVME_ARGS
    S_ROOT_PORT_ARGS=$ROOT_PORT_ARGS
    S_CMDLINE=$CMDLINE
    S_NVME_POLL_QUEUES=$NVME_POLL_QUEUES
    S_MODULES=${MODULES:-nvme}
    S_FIXTURE=$FIXTURE
    S_DESCRIPTION=$DESCRIPTION
    S_EXPECT_GROUP_TYPE=$EXPECT_GROUP_TYPE
    S_EXPECT_IO_POLL=$EXPECT_IO_POLL
    S_EXPECT_QUEUES=$EXPECT_QUEUES
    S_EXPECT_NUMA_NODE=$EXPECT_NUMA_NODE
    S_EXPECT_LINK_SPEED=$EXPECT_LINK_SPEED
    S_EXPECT_LINK_WIDTH=$EXPECT_LINK_WIDTH
    S_EXPECT_IOPOLL=$EXPECT_IOPOLL
}

list_confs() {
    local f names=()
    for f in "$LAB_DIR/$1"/*.conf; do
        [[ -e $f ]] || continue
        f=${f##*/}; names+=("${f%.conf}")
    done
    echo "${names[*]}"
}

# Kernel release of an unpacked kernel tree (the one directory under lib/modules).
kernel_release() {
    local root=$1 d
    for d in "$root"/lib/modules/*/; do
        [[ -d $d ]] || continue
        d=${d%/}; echo "${d##*/}"; return 0
    done
    return 1
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# manifest_set FILE NAME LINE: replace NAME's line in a MANIFEST (tab-separated, sorted).
manifest_set() {
    local tmp="$1.tmp"
    { if [[ -f $1 ]]; then grep -v "^$2	" "$1" || true; fi; printf '%s\t%s\n' "$2" "$3"; } |
        LC_ALL=C sort > "$tmp"
    mv "$tmp" "$1"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
