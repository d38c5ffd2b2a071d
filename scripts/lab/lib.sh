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

# lab_ensure_packages PKG...: install the Debian packages of PKG... that are missing (apt-get,
# as scripts/lib/common.sh's ensure_packages does for the build); skip (77) when one is
# missing and this is not root, or apt cannot install it.
lab_ensure_packages() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$pkg")
    done
    [[ ${#missing[@]} -gt 0 ]] || return 0
    [[ $(id -u) == 0 ]] || skip "missing packages: ${missing[*]} (run as root to install them)"
    command -v apt-get >/dev/null 2>&1 || skip "missing packages: ${missing[*]} (no apt-get)"
    log "installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
            >/dev/null 2>&1 || {
        DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
    } || skip "apt-get could not install: ${missing[*]}"
}

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
          EXPECT_IOPOLL='' PROBE_DISK=''
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
    case $PROBE_DISK in
        ''|virtio-iommu) S_PROBE_DISK=$PROBE_DISK ;;
        *) die "$f: PROBE_DISK is '' or virtio-iommu, not '$PROBE_DISK'" ;;
    esac
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

# Guest kernel command line every lab boot starts with, then the scenario's and the caller's
# words. no_timer_check: under TCG on a busy host the kernel's IO-APIC timer test can miss its
# window and panic ("timer doesn't work through Interrupt-remapped IO-APIC"); the check proves
# nothing about an emulated timer.
lab_cmdline() {
    echo "console=ttyS0 panic=-1 no_timer_check $S_CMDLINE $*" | tr -s ' ' | sed 's/^ //; s/ $//'
}

# lab_qemu_machine NVME_IMG [reboot]: LAB_QEMU = QEMU with the scenario's machine, CPUs,
# memory, NUMA, IOMMU and NVMe (on NVME_IMG); the caller adds more devices, the kernel and the
# serial ports. QEMU ends when the guest reboots (-no-reboot) unless the second word is
# "reboot": then a reboot resets the machine through its firmware (disk-boot's guests).
lab_qemu_machine() {
    local machine=$S_MACHINE nvme_bus=$S_NVME_BUS no_reboot=-no-reboot
    [[ ${2:-} != reboot ]] || no_reboot=''
    [[ $machine == *accel=* ]] || machine+=",accel=tcg"
    LAB_QEMU=(qemu-system-x86_64 -machine "$machine" -cpu max -smp "$S_SMP" -m "$S_MEMORY"
              -nographic ${no_reboot:+"$no_reboot"} -vga none -nic none -parallel none)
    # shellcheck disable=SC2206  # scenario args are whitespace-separated words by design
    LAB_QEMU+=($S_NUMA_ARGS $S_QEMU_ARGS)
    if [[ -z $nvme_bus ]]; then
        # Like real hardware: the NVMe behind a PCIe root port (default Gen3 x4).
        LAB_QEMU+=(-device "pcie-root-port,id=kdrift_rp,bus=pcie.0,chassis=1,slot=1,${S_ROOT_PORT_ARGS:-x-speed=8,x-width=4}")
        nvme_bus=kdrift_rp
    fi
    LAB_QEMU+=(-drive "file=$1,if=none,id=nvm,format=raw,cache=unsafe"
               -device "nvme,serial=kdrift-lab-0001,drive=nvm,bus=$nvme_bus${S_NVME_ARGS:+,$S_NVME_ARGS}")
    if [[ $S_PROBE_DISK == virtio-iommu ]]; then
        # A second disk for measurements: virtio-blk whose DMA goes through the emulated IOMMU
        # (iommu_platform), on a sparse image beside the NVMe's; guest/init names it
        # /dev/kdrift-probe by its serial.
        local image="${1%/*}/probe-disk.img"
        [[ -e $image ]] || truncate -s 1G "$image"
        LAB_QEMU+=(-drive "file=$image,if=none,id=kdrift_probe,format=raw,cache=unsafe"
                   -device "virtio-blk-pci,drive=kdrift_probe,serial=kdrift-probe,iommu_platform=on,disable-legacy=on")
    fi
}

# lab_extract XFER NAME DEST: one blob the guest sent on ttyS1 ("KDRIFT-LAB-BEGIN name=N size=S
# sha256=H", base64, "KDRIFT-LAB-END name=N") into DEST. 0 ok, 1 absent, 2 corrupt.
lab_extract() {
    local xfer=$1 name=$2 dest=$3 hdr size sum
    hdr=$(grep -a -m1 "^KDRIFT-LAB-BEGIN name=$name " "$xfer" | tr -d '\r' || true)
    [[ -n $hdr ]] || return 1
    size=$(sed -n 's/.* size=\([0-9]*\).*/\1/p' <<< "$hdr")
    sum=$(sed -n 's/.* sha256=\([0-9a-f]*\).*/\1/p' <<< "$hdr")
    # awk reads the whole file (no early exit: that would SIGPIPE a writer under pipefail)
    awk -v n="$name" '{ sub(/\r$/, "") }
                      $0 ~ "^KDRIFT-LAB-BEGIN name=" n " " { on = 1; next }
                      $0 == "KDRIFT-LAB-END name=" n { on = 0; done = 1 }
                      on && !done { print }' "$xfer" | base64 -d > "$dest.part" 2>/dev/null || return 2
    [[ $(wc -c < "$dest.part") == "$size" && $(sha256_of "$dest.part") == "$sum" ]] || return 2
    mv "$dest.part" "$dest"
}

# The guest's "KDRIFT-LAB-DONE rc=N" line, if it sent one.
lab_done_line() {
    grep -a -m1 '^KDRIFT-LAB-DONE ' "$1" 2>/dev/null | tr -d '\r' || true
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
