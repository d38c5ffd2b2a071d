#!/usr/bin/env python3
"""Generate a synthetic fleet of kdrift snapshots with planted outliers, for scripts/bench/fleet.sh.

Usage: fleet-generate.py -n HOSTS -o DIR [--seed S] [--outliers PERCENT] [--jobs J] [--same-cpu]
       fleet-generate.py --check DIR

Writes DIR/hosts/<host>.json.gz (one kdrift.snapshot/1 per host, named like Ansible's fetch does)
and DIR/truth.json (what was planted where; outside hosts/ so that `kdrift fleet DIR/hosts` does
not read it). The same HOSTS, seed and percentage give byte-identical output.

Every host is made from a real capture committed to the repository: the lab snapshots with a
probe section (tests/fixtures/snapshots/*.json.gz) and the snapshots inside the sysroot dumps
(tests/fixtures/sysroots/*.tar.gz, member kdrift-snapshot.json, no probe). Peer groups (same
hardware and kernel release) are uneven in size; each is one base capture under one "instance
type" (CPU brand string, DMI vendor and product, for two groups the NVMe's make), so that
groups that share a kernel release still differ in hardware. --same-cpu keeps the captures' CPU
name everywhere, to see what a peer key that ignores DMI, NUMA and IOMMU hardware does. Per host
only what differs between two boots of one machine changes: hostname, boot id, capture time and
collector timings, NVMe serials, block and interrupt counters, free memory, and the probe's
throughput (lognormal, sigma 3 %; latencies, byte, request and trace counts move with it).

A few percent of the hosts get one planted outlier of a known kind, written through every field
the fact shows up in:
  iommu-strict     IOMMU translated-strict where peers are passthrough: the host is the real
                   intel-strict capture (same kernel and QEMU as intel-pt), re-identified
  poll-queues-0    NVMe without poll queues where peers have 2: the real poll-queues-0 capture
                   (or generic-6.12-no-poll), re-identified; in the cloud group, whose peers set
                   nvme.poll_queues=2 on the kernel command line, an edit that drops it
                   (cmdline, module parameter, queue counts, blk-mq queues, io_poll)
  scheduler        mq-deadline where peers have none (scheduler, queue/scheduler, nr_requests,
                   iosched); only in groups without a probe, whose trace would have to change too
  mitigations-off  mitigations=off on the command line, cpu vulnerabilities "Vulnerable"
  kconfig          CONFIG_IOMMU_DEFAULT_DMA_STRICT=y instead of DMA_LAZY (a rebuilt kernel of the
                   same release) and the boot log's TLB invalidation policy line
  probe-slow       every probe job at 0.5x its peers' IOPS (per-second samples, totals, trace
                   counts; latencies 2x)
"""

import argparse
import datetime
import gzip
import hashlib
import json
import math
import os
import random
import re
import sys
import tarfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SNAPSHOTS = os.path.join(REPO, "tests", "fixtures", "snapshots")
SYSROOTS = os.path.join(REPO, "tests", "fixtures", "sysroots")

# Instance types. "cpu" is the CPU's brand string (what QEMU's -cpu ...,model-id= sets: family,
# model and flags stay the base's); "nvme" replaces the NVMe controller's identity (model,
# firmware, PCI ids and names, capacity) in every place it shows up; "dmi" the firmware's
# system identity.
HARDWARE = {
    "qemu-q35": {"cpu": "AMD EPYC 7763 64-Core Processor", "dmi": None, "nvme": None, "serial": "QM{:08d}"},
    "openstack-vfio-pm1733": {
        "cpu": "AMD EPYC 7543 32-Core Processor",
        "dmi": {"sys_vendor": "OpenStack Foundation", "product_name": "OpenStack Nova", "bios_vendor": "SeaBIOS"},
        "nvme": {
            "model": "SAMSUNG MZWLJ3T8HBLS-00007", "firmware_rev": "EPK9GB5Q",
            "vendor_id": "144d", "device_id": "a824", "vendor_name": "Samsung Electronics Co Ltd",
            "device_name": "NVMe SSD Controller PM173X", "subsystem_vendor_id": "144d",
            "subsystem_device_id": "a801", "capacity_bytes": 3840755982336,
        },
        "serial": "S55KNC0R{:06d}",
    },
    "kvm-rhv": {"cpu": "AMD EPYC 9354P 32-Core Processor", "dmi": {"sys_vendor": "Red Hat", "product_name": "KVM", "bios_vendor": "SeaBIOS"},
                "nvme": None, "serial": "RHV{:09d}"},
    "nutanix-ahv": {"cpu": "AMD EPYC 7313 16-Core Processor", "dmi": {"sys_vendor": "Nutanix", "product_name": "AHV", "bios_vendor": "SeaBIOS"},
                    "nvme": None, "serial": "NX{:010d}"},
    "gce-local-ssd": {
        "cpu": "AMD EPYC 7B12",
        "dmi": {"sys_vendor": "Google", "product_name": "Google Compute Engine", "bios_vendor": "Google"},
        "nvme": {
            "model": "nvme_card", "firmware_rev": "2", "vendor_id": "1ae0", "device_id": "001f",
            "vendor_name": "Google, Inc.", "device_name": "NVMe device", "subsystem_vendor_id": "1ae0",
            "subsystem_device_id": "001f", "capacity_bytes": 402653184000,
        },
        "serial": "nvme_card{:08d}",
    },
    "hetzner-vserver": {"cpu": "AMD EPYC-Rome Processor", "dmi": {"sys_vendor": "Hetzner", "product_name": "vServer", "bios_vendor": "Hetzner"},
                        "nvme": None, "serial": "HZ{:010d}"},
    "firecracker": {"cpu": None, "dmi": None, "nvme": None, "serial": "FC{:08d}"},
}

# Peer groups: base capture ("snapshot:NAME" or "sysroot:NAME"), share of the fleet, host name
# prefix and sites, instance type, and the outlier kinds that fit (kind -> body to start from,
# None for the base itself).
GROUPS = [
    {"name": "db", "base": "snapshot:poll-queues-2", "weight": 33, "prefix": "ydb-storage",
     "sites": ["fra1", "fra2", "ams3"], "hardware": "qemu-q35",
     "kinds": {"poll-queues-0": "snapshot:poll-queues-0", "probe-slow": None,
               "mitigations-off": None, "kconfig": None}},
    {"name": "vfio", "base": "snapshot:intel-pt", "weight": 22, "prefix": "pg-vfio",
     "sites": ["ams3", "iad2"], "hardware": "openstack-vfio-pm1733",
     "kinds": {"iommu-strict": "snapshot:intel-strict", "probe-slow": None, "mitigations-off": None}},
    {"name": "kafka", "base": "sysroot:generic-6.12", "weight": 16, "prefix": "kafka",
     "sites": ["fra1", "iad2"], "hardware": "kvm-rhv",
     "kinds": {"poll-queues-0": "sysroot:generic-6.12-no-poll", "scheduler": None,
               "mitigations-off": None, "kconfig": None}},
    {"name": "ceph", "base": "sysroot:numa-remote", "weight": 12, "prefix": "ceph-osd",
     "sites": ["fra2"], "hardware": "nutanix-ahv",
     "kinds": {"scheduler": None, "mitigations-off": None, "kconfig": None}},
    {"name": "cache", "base": "sysroot:cloud", "weight": 10, "prefix": "gce-cache",
     "sites": ["euw4", "use1"], "hardware": "gce-local-ssd",
     "kinds": {"poll-queues-0": None, "scheduler": None, "mitigations-off": None}},
    {"name": "ci", "base": "sysroot:amd-iommu", "weight": 5, "prefix": "ci-runner",
     "sites": ["fsn1"], "hardware": "hetzner-vserver",
     "kinds": {"scheduler": None, "mitigations-off": None, "kconfig": None}},
    {"name": "dev", "base": "sysroot:fc-6.18-host", "weight": 2, "prefix": "dev-fc",
     "sites": ["lab"], "hardware": "firecracker", "kinds": {}},
]

# Order in which kinds are handed out, so that a small fleet still gets the most telling ones.
KIND_ORDER = ["iommu-strict", "poll-queues-0", "probe-slow", "scheduler", "mitigations-off", "kconfig"]

# What a detector should name for each kind: fleet deviation facts (regular expressions) and
# kdrift finding ids. fleet.sh counts a found outlier as explained when a deviation fact matches.
KINDS = {
    "iommu-strict": {
        "description": "IOMMU translated-strict (DMA domain, iommu.strict=1) where peers are passthrough (iommu=pt)",
        "facts": [r"^iommu\.", r"^kernel\.cmdline\.(iommu|intel_iommu)"],
        "findings": ["iommu.dma-translation", "iommu.strict", "iommu.cmdline"]},
    "poll-queues-0": {
        "description": "NVMe without poll queues where peers have 2",
        "facts": [r"^nvme\.queues\.poll", r"poll_queues", r"io_poll", r"^probe\.capability\.(io_uring\+iopoll|pvsync2\+hipri)"],
        "findings": ["nvme.poll-queues", "block.io-poll", "io_uring.iopoll-unsupported"]},
    "scheduler": {
        "description": "block scheduler mq-deadline on the NVMe where peers have none",
        "facts": [r"^block\.scheduler", r"^block\.queue\.(scheduler|nr_requests)"],
        "findings": ["block.scheduler", "block.nr-requests"]},
    "mitigations-off": {
        "description": "mitigations=off on the kernel command line",
        "facts": [r"^kernel\.cmdline\.mitigations", r"^cpu\.vulnerabilities\.", r"^cpu\.mitigations"],
        "findings": ["cpu.mitigations"]},
    "kconfig": {
        "description": "kernel built with CONFIG_IOMMU_DEFAULT_DMA_STRICT=y where peers have DMA_LAZY=y (same release)",
        "facts": [r"^kernel\.config\.CONFIG_IOMMU_DEFAULT_DMA_(STRICT|LAZY)"],
        "findings": ["kernel.config", "iommu.kconfig-default"]},
    "probe-slow": {
        "description": "every probe job at 0.5x the IOPS of its peers",
        "facts": [r"^probe\."],
        "findings": ["probe.regression"]},
}

PROBE_SIGMA = 0.03         # per-host lognormal throughput spread
JOB_SIGMA = 0.01           # and per job on top of it
SLOW_FACTOR = 0.5
CAPTURE_START = datetime.datetime(2026, 12, 1, 3, 0, 0, tzinfo=datetime.timezone.utc)
CAPTURE_WINDOW_S = 45 * 60  # an Ansible run with a few forks


# ------------------------------------------------------------------ loading the bases

def load_capture(ref):
    kind, name = ref.split(":", 1)
    if kind == "snapshot":
        with gzip.open(os.path.join(SNAPSHOTS, name + ".json.gz"), "rt", encoding="utf-8") as f:
            return json.load(f)
    with tarfile.open(os.path.join(SYSROOTS, name + ".tar.gz")) as tar:
        for member in tar.getmembers():
            if member.isfile() and os.path.basename(member.name) == "kdrift-snapshot.json":
                return json.load(tar.extractfile(member))
    raise SystemExit(f"fleet-generate: {name}.tar.gz has no kdrift-snapshot.json")


def nvme_pci_addresses(snap):
    return [c.get("pci") or c.get("address") for c in snap.get("nvme", {}).get("controllers", {}).values()]


def apply_hardware(snap, hw, same_cpu=False):
    """The instance type's identity in every field it appears in (on a private copy)."""
    snap = json.loads(json.dumps(snap))
    if hw["cpu"] and not same_cpu:
        snap["cpu"]["processor"]["model_name"] = hw["cpu"]
    if hw["dmi"]:
        virt = snap["environment"].setdefault("virtualization", {})
        virt["dmi"] = dict(hw["dmi"])
    nv = hw["nvme"]
    if nv:
        cap = nv["capacity_bytes"]
        for ctrl in snap["nvme"]["controllers"].values():
            ctrl["model"] = nv["model"]
            ctrl["firmware_rev"] = nv["firmware_rev"]
            for ns_name, ns in ctrl.get("namespaces", {}).items():
                ns["size_bytes"] = cap
                ns["size"] = cap // 512  # sysfs size is in 512-byte sectors whatever the LBA size
                dev = snap["block"]["devices"].get(ns_name)
                if dev:
                    dev["size_bytes"] = cap
                    dev["size"] = cap // 512
                target = snap.get("probe", {}).get("target", {})
                if target.get("device", {}).get("disk") == ns_name:
                    target["size"] = cap
        for addr in nvme_pci_addresses(snap):
            dev = snap["pci"]["devices"].get(addr)
            if dev:
                for key in ("vendor_id", "device_id", "vendor_name", "device_name",
                            "subsystem_vendor_id", "subsystem_device_id"):
                    dev[key] = nv[key]
    return snap


# ------------------------------------------------------------------ planted edits

def cmdline_set(kernel, key, value, module=None):
    """Adds (or replaces) KEY=VALUE on the command line: raw, params, effective."""
    cmd = kernel["cmdline"]
    params = [p for p in cmd.get("params", []) if p.get("key") != key]
    if value is not None:
        p = {"key": key, "value": value}
        if module:
            p["module"] = module
        params.append(p)
    cmd["params"] = params
    eff = dict(cmd.get("effective", {}))
    eff.pop(key, None)
    if value is not None:
        eff[key] = value
    cmd["effective"] = eff
    raw = cmd.get("raw", "")
    head, sep, tail = raw.partition(" -- ")
    words = [w for w in head.split() if w.split("=", 1)[0] != key]
    if value is not None:
        words.append(f"{key}={value}")
    cmd["raw"] = " ".join(words) + (sep + tail if sep else "")


def edit_poll_queues_0(s):
    """Drop nvme.poll_queues=N from the command line and everything it set (the cloud group)."""
    s["kernel"] = dict(s["kernel"])
    s["kernel"]["cmdline"] = json.loads(json.dumps(s["kernel"]["cmdline"]))
    cmdline_set(s["kernel"], "nvme.poll_queues", None)
    s["nvme"]["parameters"]["nvme"]["poll_queues"] = 0
    for ctrl in s["nvme"]["controllers"].values():
        poll = ctrl["queues"].get("poll", 0)
        ctrl["queues"]["poll"] = 0
        ctrl["queue_count"] = ctrl["queue_count"] - poll
        keep = ctrl["queues"].get("default", 0) + ctrl["queues"].get("read", 0)
        for ns_name, ns in ctrl.get("namespaces", {}).items():
            ns["io_poll"] = 0
            dev = s["block"]["devices"].get(ns_name)
            if dev:
                dev["queue"]["io_poll"] = 0
                dev["mq"] = [q for q in dev.get("mq", []) if q["queue"] < keep]


def edit_scheduler(s):
    for ctrl in s["nvme"]["controllers"].values():
        for ns_name in ctrl.get("namespaces", {}):
            dev = s["block"]["devices"].get(ns_name)
            if not dev or "scheduler" not in dev:
                continue
            avail = dev["scheduler"]["available"]
            dev["scheduler"]["active"] = "mq-deadline"
            dev["queue"]["scheduler"] = " ".join(f"[{a}]" if a == "mq-deadline" else a for a in avail)
            tags = min((q.get("nr_tags", 128) for q in dev.get("mq", [])), default=128)
            nr = 2 * min(tags, 128)  # blk_mq_init_sched: 2 * min(queue depth, BLKDEV_DEFAULT_RQ)
            dev["queue"]["nr_requests"] = nr
            dev["queue"]["iosched"] = {"async_depth": max(1, 3 * nr // 4), "fifo_batch": 16,
                                       "front_merges": 1, "prio_aging_expire": 10000,
                                       "read_expire": 500, "write_expire": 5000, "writes_starved": 2}


def vulnerable(name, text):
    if not text.startswith("Mitigation"):
        return text
    if name == "spectre_v1":
        return "Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers"
    if name == "spectre_v2":
        parts = [p for p in text.split("; ")[1:] if p not in ("RSB filling", "IBRS_FW")]
        return "; ".join(["Vulnerable"] + parts)
    return "Vulnerable"


def edit_mitigations_off(s):
    s["kernel"] = dict(s["kernel"])
    s["kernel"]["cmdline"] = json.loads(json.dumps(s["kernel"]["cmdline"]))
    cmdline_set(s["kernel"], "mitigations", "off")
    s["cpu"] = dict(s["cpu"])
    s["cpu"]["vulnerabilities"] = {k: vulnerable(k, v) for k, v in s["cpu"]["vulnerabilities"].items()}


def edit_kconfig(s):
    s["kernel"] = dict(s["kernel"])
    config = dict(s["kernel"]["config"])
    symbols = dict(config["symbols"])
    symbols["CONFIG_IOMMU_DEFAULT_DMA_LAZY"] = "n"
    symbols["CONFIG_IOMMU_DEFAULT_DMA_STRICT"] = "y"
    config["symbols"] = symbols
    s["kernel"]["config"] = config
    s["iommu"] = dict(s["iommu"])
    s["iommu"]["kernel_log"] = [l.replace("TLB invalidation policy: lazy mode", "TLB invalidation policy: strict mode")
                                for l in s["iommu"].get("kernel_log", [])]


# ------------------------------------------------------------------ probe scaling

LATENCY_KEYS = re.compile(r"(^|_)lat_ns$|^[cs]lat_ns$|_latency_ns$")
COUNT_KEYS = {
    "ios", "bytes", "bw_bytes", "iops", "reads", "writes", "probe_ios", "read_sectors", "write_sectors",
    "read_merges", "write_merges", "calls", "reap_only_calls", "count", "bio_bytes", "bios", "bios_queued",
    "bytes_completed", "requests_completed", "requests_issued", "requests_inserted", "sectors_completed",
    "sectors", "completions", "submissions", "commands", "other_queue_completions",
    "poll_queue_completions", "run_count", "run_time_ns", "map_bytes", "maps", "unmap_bytes", "unmaps",
    "merges", "bio_backmerges", "bio_frontmerges", "request_merges", "splits", "punts",
    "default", "poll", "read", "unknown",  # trace.block.issued_by_queue_type
}


def num(orig, value):
    """VALUE in ORIG's type; integers that were whole sectors or pages stay whole ones."""
    if isinstance(orig, bool) or not isinstance(orig, (int, float)):
        return orig
    if isinstance(orig, int):
        for unit in (4096, 512):
            if orig and orig % unit == 0 and orig >= unit:
                return int(round(value / unit)) * unit
        return int(round(value))
    return value


def scale_latency(obj, f):
    """A latency summary (min/max/mean/stddev/percentile/per_second/buckets) at 1/F of throughput."""
    inv = 1.0 / f
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k == "count":
                out[k] = num(v, v * f)
            elif k == "buckets":
                out[k] = [{"count": num(b["count"], b["count"] * f),
                           "low": num(b["low"], b["low"] * inv), "high": num(b["high"], b["high"] * inv)}
                          for b in v]
            else:
                out[k] = scale_latency(v, f)
        return out
    if isinstance(obj, list):
        return [scale_latency(v, f) for v in obj]
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return num(obj, obj * inv)
    return obj


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return 0
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def scale_counts(obj, f, key=None):
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if LATENCY_KEYS.search(k):
                out[k] = scale_latency(v, f)
            elif k == "iops_per_second" and isinstance(v, dict):
                samples = [num(x, x * f) for x in v.get("samples", [])]
                out[k] = dict(v, samples=samples)
                if samples:
                    out[k].update(min=min(samples), max=max(samples), median=median(samples))
            elif k in ("request_bytes",):  # sizes, not counts: only the counts move
                out[k] = [dict(b, count=num(b["count"], b["count"] * f)) for b in v]
            elif k == "depth_at_issue":
                out[k] = [dict(b, count=num(b["count"], b["count"] * f)) for b in v]
            else:
                out[k] = scale_counts(v, f, k)
        return out
    if isinstance(obj, list):
        return [scale_counts(v, f, key) for v in obj]
    if key in COUNT_KEYS and isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return num(obj, obj * f)
    return obj


def scale_job(job, f):
    out = {}
    for k, v in job.items():
        if k in ("cpu", "batch", "setup", "name", "engine", "status", "bs", "iodepth", "elapsed_s",
                 "runtime_s", "ramp_s", "rw", "workload", "completion_wait", "failure"):
            out[k] = v
        else:
            out[k] = scale_counts(v, f, k)
    return out


def scale_probe(probe, factors):
    p = dict(probe)
    p["jobs"] = [scale_job(j, factors[i]) if j.get("status", "ok").startswith("ok") else j
                 for i, j in enumerate(probe.get("jobs", []))]
    return p


# ------------------------------------------------------------------ per host

def lognormal(rng, sigma):
    return math.exp(rng.gauss(0.0, sigma))


def new_boot_id(rng):
    b = bytearray(rng.getrandbits(128).to_bytes(16, "big"))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def jitter_ints(obj, rng, lo, hi):
    if isinstance(obj, dict):
        return {k: jitter_ints(v, rng, lo, hi) for k, v in obj.items()}
    if isinstance(obj, int) and not isinstance(obj, bool):
        return int(round(obj * rng.uniform(lo, hi)))
    return obj


def make_host(body, hw, host, kind, seed):
    rng = random.Random(f"{seed}/{host}")
    s = dict(body)
    env = dict(s["environment"])
    env["hostname"] = host
    s["environment"] = env
    kern = dict(s["kernel"])
    kern["boot_id"] = new_boot_id(rng)
    s["kernel"] = kern
    cap = dict(s["capture"])
    at = CAPTURE_START + datetime.timedelta(seconds=rng.uniform(0, CAPTURE_WINDOW_S))
    cap["captured_at"] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    old = cap.get("collector_us", {})
    cap["collector_us"] = {k: int(round(v * lognormal(rng, 0.2))) for k, v in old.items()}
    if "duration_us" in cap and old:
        cap["duration_us"] = int(round(cap["duration_us"] * sum(cap["collector_us"].values()) / max(1, sum(old.values()))))
    s["capture"] = cap
    s["nvme"] = json.loads(json.dumps(s["nvme"]))
    for ctrl in s["nvme"].get("controllers", {}).values():
        digits = int(re.search(r"\{:0(\d+)d\}", hw["serial"]).group(1))
        ctrl["serial"] = hw["serial"].format(rng.randrange(10 ** digits))
    s["block"] = json.loads(json.dumps(s["block"]))
    for dev in s["block"].get("devices", {}).values():
        if isinstance(dev.get("stat"), dict):
            dev["stat"] = jitter_ints(dev["stat"], rng, 0.5, 2.0)
            dev["stat"]["in_flight"] = 0
    if "irq" in s:
        s["irq"] = json.loads(json.dumps(s["irq"]))
        for line in s["irq"].get("storage", []):
            if isinstance(line.get("counts"), list):
                line["counts"] = [int(round(c * rng.uniform(0.5, 2.0))) for c in line["counts"]]
                line["total"] = sum(line["counts"])
    if "memory" in s:
        s["memory"] = json.loads(json.dumps(s["memory"]))
        mi = s["memory"].get("meminfo", {})
        if "mem_available_bytes" in mi:
            mi["mem_available_bytes"] = int(mi["mem_available_bytes"] * rng.uniform(0.99, 1.005)) // 4096 * 4096
    if "numa" in s:
        s["numa"] = json.loads(json.dumps(s["numa"]))
        for node in s["numa"].get("nodes", []):
            mi = node.get("meminfo", {})
            if "mem_free_bytes" in mi:
                mi["mem_free_bytes"] = int(mi["mem_free_bytes"] * rng.uniform(0.99, 1.005)) // 4096 * 4096
    if isinstance(s.get("probe"), dict) and s["probe"].get("jobs"):
        host_f = lognormal(rng, PROBE_SIGMA)
        if kind == "probe-slow":
            host_f *= SLOW_FACTOR
        factors = [host_f * lognormal(rng, JOB_SIGMA) for _ in s["probe"]["jobs"]]
        s["probe"] = scale_probe(s["probe"], factors)
    if kind == "poll-queues-0" and s["nvme"]["parameters"]["nvme"].get("poll_queues", 0) > 0:
        edit_poll_queues_0(s)
    elif kind == "scheduler":
        edit_scheduler(s)
    elif kind == "mitigations-off":
        edit_mitigations_off(s)
    elif kind == "kconfig":
        edit_kconfig(s)
    return s


# ------------------------------------------------------------------ writing

_shared = {}   # id -> object, the bases' first two levels (never changed in place)
_text = {}     # (id, level) -> pretty text


def register_shared(body):
    for v in body.values():
        _shared[id(v)] = v
        if isinstance(v, dict):
            for w in v.values():
                _shared[id(w)] = w


def pretty(obj, level=0, depth=0, texts=None):
    """json.dumps(indent=2, sort_keys=True), reusing the text of the bases' unchanged sections
    (and taking TEXTS[id(obj)] for objects already rendered)."""
    pad = "  " * level
    key = id(obj)
    if texts and key in texts:
        return texts[key]
    if key in _shared and _shared[key] is obj:
        t = _text.get((key, level))
        if t is None:
            t = json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False).replace("\n", "\n" + pad)
            _text[(key, level)] = t
        return t
    if isinstance(obj, dict) and obj and depth < 2:
        inner = pad + "  "
        parts = [inner + json.dumps(k, ensure_ascii=False) + ": " + pretty(obj[k], level + 1, depth + 1, texts)
                 for k in sorted(obj)]
        return "{\n" + ",\n".join(parts) + "\n" + pad + "}"
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False).replace("\n", "\n" + pad)


# The probe is most of a snapshot's text and only its numbers change from host to host: its
# pretty text is made once per base with a marker in place of every number, and filled in.
_templates = {}  # id(base probe) -> text chunks around the numbers
_MARK = re.compile(r'"@@[0-9]+@@"')


def numbers(obj, out):
    """OBJ's numbers in json.dumps(sort_keys=True) order."""
    if isinstance(obj, dict):
        for k in sorted(obj):
            numbers(obj[k], out)
    elif isinstance(obj, list):
        for v in obj:
            numbers(v, out)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        out.append(obj)
    return out


def marked(obj, counter):
    if isinstance(obj, dict):
        return {k: marked(obj[k], counter) for k in sorted(obj)}
    if isinstance(obj, list):
        return [marked(v, counter) for v in obj]
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        counter[0] += 1
        return f"@@{counter[0]}@@"
    return obj


def probe_text(base, probe, level):
    chunks = _templates.get((id(base), level))
    if chunks is None:
        text = json.dumps(marked(base, [0]), indent=2, sort_keys=True, ensure_ascii=False)
        chunks = _MARK.split(text.replace("\n", "\n" + "  " * level))
        _templates[(id(base), level)] = chunks
    values = numbers(probe, [])
    if len(values) != len(chunks) - 1:  # not the base's structure: no shortcut
        return None
    out = [chunks[0]]
    for v, c in zip(values, chunks[1:]):
        out.append(int.__repr__(v) if isinstance(v, int) else float.__repr__(v))
        out.append(c)
    return "".join(out)


def write_gz(path, text):
    data = text.encode("utf-8")
    tmp = path + ".tmp"
    with open(tmp, "wb") as raw:
        # mtime 0 and no file name: the same input gives the same bytes
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as gz:
            gz.write(data)
    os.replace(tmp, path)


_bodies = {}
_hw_of = {}


def prepare(same_cpu=False):
    """Every group's base and outlier bodies, with the group's hardware applied."""
    cache = {}
    for g in GROUPS:
        hw = HARDWARE[g["hardware"]]
        refs = {None: g["base"]}
        refs.update({k: ref for k, ref in g["kinds"].items() if ref})
        for kind, ref in refs.items():
            if ref not in cache:
                cache[ref] = load_capture(ref)
            body = apply_hardware(cache[ref], hw, same_cpu)
            register_shared(body)
            _bodies[(g["name"], kind)] = body
        _hw_of[g["name"]] = hw


def work(task):
    host, group, kind, seed, out = task
    body = _bodies.get((group, kind)) or _bodies[(group, None)]
    snap = make_host(body, _hw_of[group], host, kind, seed)
    texts = {}
    if isinstance(snap.get("probe"), dict) and snap["probe"] is not body.get("probe"):
        t = probe_text(body["probe"], snap["probe"], 1)
        if t is not None:
            texts[id(snap["probe"])] = t
    write_gz(os.path.join(out, host + ".json.gz"), pretty(snap, texts=texts) + "\n")
    return host


def split_sizes(n, weights):
    total = sum(weights)
    exact = [n * w / total for w in weights]
    sizes = [int(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - sizes[i]), i))
    for i in order[: n - sum(sizes)]:
        sizes[i] += 1
    return sizes


def plan(n, seed, percent):
    rng = random.Random(f"{seed}/plan/{n}")
    sizes = split_sizes(n, [g["weight"] for g in GROUPS])
    hosts = {}
    for g, size in zip(GROUPS, sizes):
        numbers = rng.sample(range(1, max(10000, 4 * size)), size)
        hosts[g["name"]] = [f"{g['prefix']}-{g['sites'][i % len(g['sites'])]}-{num:04d}"
                            for i, num in enumerate(sorted(numbers))]
    planted = {}
    count = int(round(n * percent / 100.0)) if percent > 0 else 0
    taken = {g["name"]: 0 for g in GROUPS}
    for i in range(count):
        kind = KIND_ORDER[i % len(KIND_ORDER)]
        # a group takes an outlier while they stay well under a third of it
        fits = [g for g, size in zip(GROUPS, sizes)
                if kind in g["kinds"] and (taken[g["name"]] + 1) * 3 < size]
        if not fits:
            continue
        weights = [sizes[GROUPS.index(g)] for g in fits]
        g = rng.choices(fits, weights=weights)[0]
        candidates = [h for h in hosts[g["name"]] if h not in planted]
        host = rng.choice(candidates)
        planted[host] = (g["name"], kind)
        taken[g["name"]] += 1
    return sizes, hosts, planted


def generate(args):
    out = os.path.join(args.output, "hosts")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".json.gz") or name.endswith(".tmp"):
            os.unlink(os.path.join(out, name))
    sizes, hosts, planted = plan(args.hosts, args.seed, args.outliers)
    prepare(args.same_cpu)
    tasks = []
    for g in GROUPS:
        for h in hosts[g["name"]]:
            kind = planted.get(h, (None, None))[1]
            tasks.append((h, g["name"], kind, args.seed, out))
    tasks.sort()
    jobs = max(1, args.jobs)
    if jobs > 1:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for i, _ in enumerate(pool.imap_unordered(work, tasks, chunksize=8), 1):
                if args.progress and i % 500 == 0:
                    print(f"fleet-generate: {i}/{len(tasks)}", file=sys.stderr)
    else:
        for t in tasks:
            work(t)
    truth = {
        "schema": "kdrift.fleet-bench-truth/1",
        "hosts": args.hosts,
        "seed": args.seed,
        "outlier_percent": args.outliers,
        "same_cpu": args.same_cpu,
        "generator_sha256": hashlib.sha256(open(__file__, "rb").read()).hexdigest(),
        "groups": [
            {"name": g["name"], "prefix": g["prefix"], "base": g["base"], "hardware": g["hardware"],
             "kernel": _bodies[(g["name"], None)]["kernel"]["release"],
             "probe": bool(_bodies[(g["name"], None)].get("probe")), "hosts": size,
             "outliers": sum(1 for v in planted.values() if v[0] == g["name"])}
            for g, size in zip(GROUPS, sizes)],
        "kinds": KINDS,
        "outliers": {h: kind for h, (_, kind) in sorted(planted.items())},
        "outlier_groups": {h: group for h, (group, _) in sorted(planted.items())},
        "outlier_bodies": {h: (next(g for g in GROUPS if g["name"] == group)["kinds"][kind] or
                               next(g for g in GROUPS if g["name"] == group)["base"] + " + edit")
                           for h, (group, kind) in sorted(planted.items())},
    }
    with open(os.path.join(args.output, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"fleet-generate: {args.hosts} hosts in {len(GROUPS)} peer groups, {len(planted)} planted outliers",
          file=sys.stderr)


# ------------------------------------------------------------------ --check

def shape(obj, prefix=""):
    """Key paths with their JSON types, array elements collapsed to []."""
    out = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{prefix}.{k}"
            out.add((p, type(v).__name__ if not isinstance(v, (int, float)) or isinstance(v, bool) else "number"))
            out |= shape(v, p)
    elif isinstance(obj, list):
        for v in obj:
            out |= shape(v, prefix + "[]")
    return out


def normalize_shape(paths):
    # percentile keys and the config's symbols are data, not structure
    return {(re.sub(r"\.(percentile|per_second)\.[0-9.]+", r".\1.P", re.sub(r"\.symbols\.[A-Z0-9_]+", ".symbols.S", p)), t)
            for p, t in paths}


def check(directory):
    with open(os.path.join(directory, "truth.json")) as f:
        truth = json.load(f)
    prepare(truth.get("same_cpu", False))
    base_shape = {}
    for key, body in _bodies.items():
        base_shape[key] = normalize_shape(shape(body))
    group_of = {}
    sizes, hosts, _ = plan(truth["hosts"], truth["seed"], truth["outlier_percent"])
    for g in GROUPS:
        for h in hosts[g["name"]]:
            group_of[h] = g["name"]
    problems = 0
    files = sorted(n for n in os.listdir(os.path.join(directory, "hosts")) if n.endswith(".json.gz"))
    for name in files:
        host = name[: -len(".json.gz")]
        with gzip.open(os.path.join(directory, "hosts", name), "rt", encoding="utf-8") as f:
            snap = json.load(f)
        kind = truth["outliers"].get(host)
        group = group_of.get(host)
        body = _bodies.get((group, kind)) or _bodies[(group, None)]
        ref = base_shape.get((group, kind)) or base_shape[(group, None)]
        got = normalize_shape(shape(snap))
        extra, missing = got - ref, ref - got
        allowed_extra = {p for p in extra if kind == "scheduler" and ".queue.iosched" in p[0]}
        allowed_extra |= {p for p in extra if kind in ("mitigations-off",) and p[0].startswith(".kernel.cmdline.effective.")}
        allowed_missing = {p for p in missing if kind == "poll-queues-0" and p[0].startswith(".kernel.cmdline.effective.")}
        bad = []
        if snap.get("schema") != "kdrift.snapshot/1":
            bad.append("schema")
        if snap["environment"]["hostname"] != host:
            bad.append("hostname")
        if snap["kernel"]["release"] != body["kernel"]["release"]:
            bad.append("kernel.release")
        if extra - allowed_extra:
            bad.append(f"new paths {sorted(extra - allowed_extra)[:5]}")
        if missing - allowed_missing:
            bad.append(f"missing paths {sorted(missing - allowed_missing)[:5]}")
        if bad:
            problems += 1
            print(f"{host}: {'; '.join(bad)}", file=sys.stderr)
    print(f"fleet-generate --check: {len(files)} files, {problems} with problems", file=sys.stderr)
    return 1 if problems or len(files) != truth["hosts"] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--hosts", type=int, help="number of hosts")
    ap.add_argument("-o", "--output", help="directory: writes hosts/*.json.gz and truth.json")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--outliers", type=float, default=3.0, help="percent of hosts with a planted outlier")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--same-cpu", action="store_true",
                    help="keep the captures' CPU name (QEMU TCG) in every group: instance types then differ "
                         "only in DMI, NVMe, NUMA and IOMMU hardware")
    ap.add_argument("--check", metavar="DIR", help="validate a generated directory against its bases")
    args = ap.parse_args()
    if args.check:
        sys.exit(check(args.check))
    if not args.hosts or not args.output:
        ap.error("-n and -o are required")
    generate(args)


if __name__ == "__main__":
    main()
