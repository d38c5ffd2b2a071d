#!/usr/bin/env bash
# Fleet scale, measured: `kdrift fleet DIR --format json` over synthetic fleets of SIZES hosts
# (default 100, 1000 and 10000) made by fleet-generate.py from the committed captures: uneven
# peer groups of different hardware and kernels, per-host noise, and 3 % of the hosts with a
# planted outlier of a known kind (IOMMU strict, poll queues gone, mq-deadline, mitigations=off,
# an IOMMU kconfig default, probe at 0.5x). Each size runs RUNS times (default 3) under
# /usr/bin/time; the table has the medians of wall time and peak RSS, seconds per 1000 hosts,
# the peer groups found, recall (planted outliers among .outliers[].host / planted) and
# precision (planted among those flagged / flagged), and how many of the planted outliers found
# have a deviation naming the planted fact. Growth ratios (wall, RSS) between consecutive sizes
# follow, then recall by kind, then every missed planted host and every falsely flagged host
# with its deviations.
# Generated fleets are cached in $KDRIFT_FLEET_CACHE (default /var/tmp/kdrift-bench-fleet), keyed
# by size, seed, outlier share and the generator's hash, so a rerun reuses them (about 115 KB a
# host: 10000 hosts ~1.1 GiB and several minutes to generate, 100000 hosts ~11 GiB and about an
# hour and a half on two cores; a size whose fleet would not fit on the cache's file system is
# refused before anything is written). kdrift fleet runs with its default --jobs (the online
# CPUs, at most 8) and holds no descriptor per host, so the open-file limit does not matter.
# Measured figures: docs/benchmarks.md, "Fleet scale".
# Usage: scripts/bench/fleet.sh [RUNS] [SIZES...]
# Environment: KDRIFT_BIN (default build/kdrift), KDRIFT_FLEET_SEED (1), KDRIFT_FLEET_OUTLIERS
# (percent, 3), KDRIFT_FLEET_MEM_GIB (address-space limit per run, default 3/4 of RAM),
# KDRIFT_FLEET_TIMEOUT (seconds per run, 3600), KDRIFT_FLEET_KEEP=DIR keeps the reports,
# KDRIFT_FLEET_SAME_CPU=1 generates with --same-cpu (instance types that differ only in DMI,
# NVMe, NUMA and IOMMU, not in the CPU's name: what a peer key without them lumps together).
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

runs=${1:-3}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000 10000)
kdrift=${KDRIFT_BIN:-build/kdrift}
case $kdrift in /*) ;; *) [ -x "$kdrift" ] || kdrift=$KDRIFT_ROOT/$kdrift ;; esac
seed=${KDRIFT_FLEET_SEED:-1}
percent=${KDRIFT_FLEET_OUTLIERS:-3}
cache=${KDRIFT_FLEET_CACHE:-/var/tmp/kdrift-bench-fleet}
timeout_s=${KDRIFT_FLEET_TIMEOUT:-3600}
mem_gib=${KDRIFT_FLEET_MEM_GIB:-$(awk '/^MemTotal:/ {print int($2 * 3 / 4 / 1048576)}' /proc/meminfo)}
generator=$KDRIFT_ROOT/scripts/bench/fleet-generate.py
keep=${KDRIFT_FLEET_KEEP:-}
gen_opts=()
variant=
if [ "${KDRIFT_FLEET_SAME_CPU:-0}" = 1 ]; then gen_opts+=(--same-cpu); variant=-samecpu; fi

ensure_packages time jq python3
[ -x "$kdrift" ] || { log "no kdrift binary at $kdrift (set KDRIFT_BIN)"; exit 2; }
# (an unknown subcommand's --help is the top-level help, exit status 0: look at the list instead)
"$kdrift" --help 2>&1 | grep -qE '^ +fleet( |$)' || { log "$kdrift has no 'fleet' subcommand"; exit 2; }
fleet_opts=(--format json)
# every outlier in the report, not the first few: recall is counted over all of them
"$kdrift" fleet --help 2>&1 | grep -q -- '--max-outliers' && max_outliers=1 || max_outliers=0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "$keep" ] && mkdir -p "$keep"
gen_hash=$(sha256sum "$generator" | cut -c1-12)
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# The generated fleet of SIZE hosts (cached); prints its directory.
fleet_dir() {
  local dir=$cache/n$1-s$seed-p$percent$variant-g$gen_hash
  if [ ! -f "$dir/truth.json" ]; then
    log "generating $1 hosts in $dir"
    rm -rf "$dir.tmp"
    mkdir -p "$cache"
    # 115 KB a host, and a tenth more to spare.
    local need_kib=$(($1 * 127)) free_kib
    free_kib=$(df -Pk "$cache" | awk 'NR == 2 {print $4}')
    if [ "$free_kib" -lt "$need_kib" ]; then
      log "$1 hosts need about $((need_kib >> 20)) GiB in $cache, which has $((free_kib >> 20)) GiB free"
      exit 2
    fi
    python3 "$generator" -n "$1" --seed "$seed" --outliers "$percent" -o "$dir.tmp" --progress "${gen_opts[@]}" >&2
    rm -rf "$dir"
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}

: > "$work/rows"
for size in "${sizes[@]}"; do
  dir=$(fleet_dir "$size")
  opts=("${fleet_opts[@]}")
  [ "$max_outliers" = 1 ] && opts+=(--max-outliers "$size")
  : > "$work/wall"; : > "$work/rss"
  failed=
  for run in $(seq "$runs"); do
    out=$work/fleet-$size-$run.json
    set +e
    (
      ulimit -v $((mem_gib * 1024 * 1024))
      exec timeout "$timeout_s" /usr/bin/time -f '%e %M' -o "$work/time" \
        "$kdrift" fleet "$dir/hosts" "${opts[@]}" -o "$out"
    ) 2> "$work/stderr"
    rc=$?
    set -e
    if [ "$rc" -gt 1 ] || [ ! -s "$out" ]; then
      failed="exit $rc: $(grep -v '^Command exited' "$work/stderr" | tail -1)"
      log "$size hosts, run $run failed ($failed)"
      break
    fi
    read -r wall rss < <(grep -E '^[0-9.]+ [0-9]+$' "$work/time" | tail -1)
    echo "$wall" >> "$work/wall"
    echo "$rss" >> "$work/rss"
  done
  if [ -n "$failed" ]; then
    printf '%s\tfailed\t%s\n' "$size" "$failed" >> "$work/rows"
    continue
  fi
  report=$work/fleet-$size-$runs.json
  # the outlier list should not depend on the run
  for run in $(seq "$runs"); do
    if ! cmp -s <(jq -c '[.outliers[].host]' "$work/fleet-$size-1.json") \
                <(jq -c '[.outliers[].host]' "$work/fleet-$size-$run.json"); then
      log "$size hosts: run $run flagged other hosts than run 1"
    fi
  done
  [ -n "$keep" ] && cp "$report" "$keep/fleet-$size.json" && cp "$dir/truth.json" "$keep/truth-$size.json"
  printf '%s\tok\t%s\t%s\t%s\t%s\n' "$size" "$(median < "$work/wall")" "$(median < "$work/rss")" \
    "$dir/truth.json" "$report" >> "$work/rows"
done

python3 - "$work/rows" "$runs" <<'EOF'
import json, re, sys

rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
runs = sys.argv[2]


def named(kind_spec, outlier):
    facts = [d.get("fact", "") for d in outlier.get("deviations", [])]
    return any(re.search(p, f) for p in kind_spec["facts"] for f in facts)


def group_of(truth, host):
    for g in truth["groups"]:
        if host.startswith(g["prefix"] + "-"):
            return g["name"]
    return "?"


results = []
print(f"| hosts | wall s (median of {runs}) | peak RSS MiB | s per 1000 hosts | peer groups | recall | precision | fact named |")
print("|------:|------:|------:|------:|------:|------:|------:|------:|")
for row in rows:
    size = int(row[0])
    if row[1] != "ok":
        print(f"| {size} | {row[2]} | | | | | | |")
        continue
    wall, rss_kib, truth_path, report_path = float(row[2]), float(row[3]), row[4], row[5]
    truth = json.load(open(truth_path))
    report = json.load(open(report_path))
    planted = truth["outliers"]
    flagged = {o["host"]: o for o in report.get("outliers", [])}
    hits = [h for h in flagged if h in planted]
    missed = sorted(h for h in planted if h not in flagged)
    false = sorted(h for h in flagged if h not in planted)
    explained = [h for h in hits if named(truth["kinds"][planted[h]], flagged[h])]
    recall = len(hits) / len(planted) if planted else float("nan")
    precision = len(hits) / len(flagged) if flagged else float("nan")
    peers = len(report.get("peers", []))
    print(f"| {size} | {wall:.2f} | {rss_kib / 1024:.0f} | {wall / size * 1000:.2f} | {peers} (of {len(truth['groups'])}) "
          f"| {recall:.3f} ({len(hits)}/{len(planted)}) | {precision:.3f} ({len(hits)}/{len(flagged)}) "
          f"| {len(explained)}/{len(hits)} |")
    results.append(dict(size=size, wall=wall, rss=rss_kib, truth=truth, report=report, flagged=flagged,
                        missed=missed, false=false, hits=hits, explained=explained))

print()
for a, b in zip(results, results[1:]):
    print(f"{a['size']} -> {b['size']} hosts (x{b['size'] / a['size']:g}): wall x{b['wall'] / max(a['wall'], 1e-9):.2f}, "
          f"peak RSS x{b['rss'] / max(a['rss'], 1):.2f}")

for r in results:
    truth, report, flagged = r["truth"], r["report"], r["flagged"]
    print(f"\n## {r['size']} hosts")
    if report.get("unreadable"):
        print(f"unreadable: {len(report['unreadable'])}, first: {report['unreadable'][0]}")
    if report.get("outliers_omitted"):
        print(f"outliers_omitted: {report['outliers_omitted']} (recall counts only the listed ones)")
    by_kind = {}
    for h, k in truth["outliers"].items():
        e = by_kind.setdefault(k, [0, 0, 0])
        e[0] += 1
        e[1] += h in flagged
        e[2] += h in r["explained"]
    print("| kind | planted | found | fact named |")
    print("|------|------:|------:|------:|")
    for k in sorted(by_kind):
        print(f"| {k} | {by_kind[k][0]} | {by_kind[k][1]} | {by_kind[k][2]} |")
    unnamed = [h for h in r["hits"] if h not in r["explained"]]
    for title, hosts in (("missed (planted, not flagged)", r["missed"]),
                         ("falsely flagged (not planted)", r["false"]),
                         ("found, but no deviation names the planted fact", unnamed)):
        if not hosts:
            continue
        print(f"\n{title}: {len(hosts)}")
        for h in hosts[:25]:
            kind = truth["outliers"].get(h, "-")
            o = flagged.get(h)
            line = f"- {h} [group {truth['outlier_groups'].get(h) or group_of(truth, h)}, planted {kind}]"
            if o:
                devs = "; ".join(f"{d.get('fact')}={json.dumps(d.get('value'))} (majority {json.dumps(d.get('majority'))}"
                                 f" {d.get('majority_hosts')}/{d.get('peer_hosts')})" for d in o.get("deviations", [])[:6])
                more = len(o.get("deviations", [])) - 6
                line += f" severity {o.get('severity')}, score {o.get('score')}, ref {o.get('reference')}: {devs}"
                if more > 0:
                    line += f" (+{more} more)"
                ids = [f.get("id") for f in o.get("findings", [])]
                if ids:
                    line += f"; findings {' '.join(ids)}"
            print(line)
        if len(hosts) > 25:
            print(f"- ... and {len(hosts) - 25} more")
EOF
