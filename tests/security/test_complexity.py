"""Inputs that grow only the work, not the file: a bisect journal of many events, a snapshot of
many IOMMU devices, a rule that matches many kernel config symbols. Each must cost time linear
in its size (or n log n): a quadratic step turns a few megabytes into minutes of root's CPU.

Each test times kdrift (CPU seconds, user + system, from GNU time: the other jobs on the machine
do not count, and the fastest of three runs is the one they disturbed least) on a tiny input, on
N and on 4N, and requires the growth beyond the tiny input's cost to stay below 8x from N to
4N: linear work gives ~4x, quadratic ~16x. A run of 4N that takes longer than quadratic growth
would is stopped and counts as a failure.
"""

import gzip
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402

MAX_GROWTH = 8.0
SNAPSHOTS = os.path.join(hostile.SOURCE_DIR, "tests", "fixtures", "snapshots")


class Timed:
    def __init__(self, status, cpu, rss_kib, stdout, stderr, timed_out=False):
        self.status, self.cpu, self.rss_kib = status, cpu, rss_kib
        self.stdout, self.stderr, self.timed_out = stdout, stderr, timed_out

    def __str__(self):
        return "status %s, %.2f s CPU, %d KiB peak RSS%s\n%s" % (
            self.status, self.cpu, self.rss_kib, " (stopped)" if self.timed_out else "",
            self.stderr.decode("utf-8", "replace")[-1500:])


def timed(args, timeout):
    """kdrift args under GNU time in a session of its own, all of it killed at timeout."""
    with tempfile.NamedTemporaryFile(prefix="kdrift-time.") as report:
        command = [hostile.TIME, "-f", "%U %S %M", "-o", report.name, hostile.KDRIFT]
        process = subprocess.Popen(command + [str(a) for a in args], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            return Timed(None, float("inf"), 0, stdout, stderr, timed_out=True)
        with open(report.name) as f:
            fields = f.read().split()[-3:]
        user, system, rss = float(fields[0]), float(fields[1]), int(fields[2])
        return Timed(process.returncode, user + system, rss, stdout, stderr)


class Complexity(hostile.Case):
    # The fastest of three: other work on the machine only ever adds CPU time (caches, a busier
    # memory bus), and the median of three still let the system tier running beside it make one
    # linear case look 8.1x (N 0.46 s, 4N 2.87 s) in a CI run.
    def fastest_run(self, args, runs=3, timeout=120):
        done = [timed(args, timeout) for _ in range(runs)]
        for run in done:
            self.assertFalse(run.timed_out, str(run))
        return min(done, key=lambda run: run.cpu)

    def assertLinear(self, build, n, expect_status):
        """build(size) -> kdrift's arguments; the cost beyond a tiny input's grows < 8x, N to 4N."""
        tiny = self.fastest_run(build(max(1, n // 100)))
        small = self.fastest_run(build(n))
        self.assertEqual(small.status, expect_status, str(small))
        base = tiny.cpu
        beyond = max(small.cpu - base, 0.05)
        # Quadratic growth would take 16x: stop at what 8x allows and a margin.
        limit = base + MAX_GROWTH * beyond * 1.5 + 5
        large = []
        for _ in range(3):
            run = timed(build(4 * n), limit * 4 + 10)
            large.append(run)
            if run.timed_out or run.cpu > limit:
                break
        large = min(large, key=lambda run: run.cpu)
        growth = (large.cpu - base) / beyond
        message = "N=%d: tiny %.2f s, N %.2f s, 4N %.2f s CPU: growth %.1fx (linear ~4, quadratic ~16)" % (
            n, tiny.cpu, small.cpu, large.cpu, growth)
        if large.timed_out or large.status != expect_status:
            message += "\n4N: " + str(large)
        print(message, file=sys.stderr)
        self.assertFalse(large.timed_out, message)
        self.assertEqual(large.status, expect_status, message)
        self.assertLess(growth, MAX_GROWTH, message)
        return small, large


# --- a bisect journal of many events ------------------------------------------------------------

def journal_events(n):
    """A declared (git bisect-like) session: n / 4 candidates at the start, then n events: new
    candidates (isolation tests), attempts, and verdicts on candidates anywhere in the list."""
    count = max(4, n // 4)
    names = ["c%d" % i for i in range(count)]
    start = {"event": "start", "id": "complexity", "candidates": [{"name": c} for c in names],
             "good": names[0], "bad": names[-1], "metric": "declared", "mode": "manual",
             "config": {"declared": True}}
    events = [start]
    shuffled = random.Random(n).sample(range(1, count - 1), count - 2) if count > 2 else []
    attempts = 0
    for i in range(n):
        kind = i % 4
        if kind == 0:
            name = "x%d" % i
            names.append(name)
            events.append({"event": "candidate", "name": name, "append": "isolation=%d" % i})
        elif kind == 1:
            attempts += 1
            events.append({"event": "attempt", "candidate": names[i % len(names)],
                           "attempt": attempts, "boot_id": "boot-%d" % attempts})
        else:
            target = names[shuffled[i % len(shuffled)]] if shuffled else names[0]
            events.append({"event": "verdict", "candidate": target, "verdict": "skip", "by": "user"})
    return events


def state_dir(root, n):
    """A bisect state directory (root-owned, 0700) holding a journal of n events."""
    directory = os.path.join(root, "state-%d" % n)
    if not os.path.isdir(directory):
        os.mkdir(directory, 0o700)
        with open(os.path.join(directory, "journal.jsonl"), "w") as f:
            for event in journal_events(n):
                f.write(json.dumps(event, separators=(",", ":")) + "\n")
    return directory


# --- snapshots of many devices, and a rule over many symbols ------------------------------------

def fixture(name):
    with gzip.open(os.path.join(SNAPSHOTS, name + ".json.gz"), "rt") as f:
        return json.load(f)


def write_gzip(path, document):
    with gzip.open(path, "wt", compresslevel=1) as f:
        json.dump(document, f, separators=(",", ":"))
    return path


def iommu_snapshot(directory, n):
    """The intel-strict lab capture with n NVMe namespaces, each on its own PCI function."""
    path = os.path.join(directory, "iommu-%d.json.gz" % n)
    if not os.path.exists(path):
        snapshot = fixture("intel-strict")
        snapshot["iommu"]["devices"] = [
            {"device": "nvme%dn1" % i, "pci": "0000:%02x:%02x.%d" % (i >> 16 & 0xff, i >> 8 & 0xff, i & 7),
             "iommu_group": i, "domain_type": "DMA", "mode": "translated-strict"} for i in range(n)]
        write_gzip(path, snapshot)
    return path


MANY_SYMBOLS_RULE = '''id = "test.many-symbols"
severity = "warning"
title = "Kernel options built in"
magnitude = 0.1
relevance = "any"
explanation = """A rule that matches every built-in kernel option: one hit per symbol."""
remedy = """None: a complexity test."""

[[match]]
each = "kernel.config.symbols.*"
equals = "y"
'''


def symbols_snapshot(directory, n):
    path = os.path.join(directory, "symbols-%d.json.gz" % n)
    if not os.path.exists(path):
        snapshot = fixture("intel-pt")
        snapshot["kernel"]["config"]["symbols"] = {"CONFIG_OPTION_%07d" % i: "y" for i in range(n)}
        write_gzip(path, snapshot)
    return path


class ReplayIsLinear(Complexity):
    def test_a_journal_of_many_events_replays_in_linear_time(self):
        self.require_root("the bisect state directory must be owned by the user running kdrift")
        root = self.path("bisect")
        os.mkdir(root, 0o700)
        small, _ = self.assertLinear(
            lambda n: ["bisect", "--state-dir", state_dir(root, n), "status"], 40_000, 0)
        self.assertIn("complexity", small.stdout.decode("utf-8", "replace"))


class RulesAreLinear(Complexity):
    def test_rules_over_many_iommu_devices_run_in_linear_time(self):
        small, large = self.assertLinear(
            lambda n: ["check", iommu_snapshot(self.work, n), "--format", "json"], 20_000, 1)
        report = json.loads(large.stdout)
        finding = next(f for f in report["findings"] if f["id"] == "iommu.dma-translation")
        self.assertLessEqual(len(finding["evidence"]), 12)
        self.assertRegex(finding["evidence"][-1], r"and \d+ more")

    def test_a_rule_matching_many_config_symbols_runs_in_linear_time_and_bounded_evidence(self):
        rules = self.path("rules")
        os.mkdir(rules)
        with open(os.path.join(rules, "test.many-symbols.toml"), "w") as f:
            f.write(MANY_SYMBOLS_RULE)
        n = 40_000
        small, large = self.assertLinear(
            lambda n: ["check", symbols_snapshot(self.work, n), "--checks", rules, "--format", "json"],
            n, 1)
        finding = next(f for f in json.loads(large.stdout)["findings"] if f["id"] == "test.many-symbols")
        self.assertEqual(len(finding["evidence"]), 12)
        self.assertEqual(finding["evidence"][-1], "… and %d more" % (4 * n - 11))
        # Memory follows the snapshot (4x the symbols), not the matches times anything.
        self.assertLess(large.rss_kib, 5 * small.rss_kib, "%s\n%s" % (small, large))


if __name__ == "__main__":
    hostile.main()
