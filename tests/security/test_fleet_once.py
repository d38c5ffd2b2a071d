"""kdrift fleet reads every snapshot once: a file renamed over a host's snapshot while the fleet
is read must not change the verdict on an outlier it already found.

The fleet reads all snapshots through a filter to find the outliers, then reads the outliers
and their references whole to judge them by the rules. Before, that second read reopened the
files by name: a racer renaming another file over the reference (or over the outlier) between
the two reads erased the outlier's findings, and exit status 1 became 0. Now the second read is
of the file the first one read, reopened by its file handle (open_by_handle_at, which root may
use), not by its name. A racer swaps the file in a loop during every run; each run's report must
be one that some consistent set of files could give.
"""

import gzip
import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402

SNAPSHOTS = os.path.join(hostile.SOURCE_DIR, "tests", "fixtures", "snapshots")
RUNS = 20
CLEAN = ["db1", "db2", "db3", "db4", "db5"]
OUTLIER = "db6"


def write_host(directory, name, host, fixture):
    with gzip.open(os.path.join(SNAPSHOTS, fixture + ".json.gz"), "rt") as f:
        snapshot = json.load(f)
    snapshot["environment"]["hostname"] = host
    path = os.path.join(directory, name)
    with gzip.open(path, "wt", compresslevel=1) as f:
        json.dump(snapshot, f)
    return path


class Racer:
    """Renames one of two prepared files over target, alternately, until stopped."""

    def __init__(self, target, first, second):
        self.target, self.files = target, (first, second)
        self.stop = threading.Event()
        self.swaps = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        swap = os.path.join(os.path.dirname(self.target), ".swap")
        while not self.stop.is_set():
            for source in self.files:
                if os.path.exists(swap):
                    os.unlink(swap)
                os.link(source, swap)
                os.rename(swap, self.target)
                self.swaps += 1

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


class FleetReadsOnce(hostile.Case):
    def setUp(self):
        super().setUp()
        self.fleet = self.path("fleet")
        os.mkdir(self.fleet)
        for host in CLEAN:
            write_host(self.fleet, host + ".json.gz", host, "poll-queues-2")
        write_host(self.fleet, OUTLIER + ".json.gz", OUTLIER, "poll-queues-0")
        # Hidden names: a fleet directory lists no file whose name starts with a dot.
        self.clean = write_host(self.fleet, ".clean.json.gz", "spare", "poll-queues-2")
        self.bad = write_host(self.fleet, ".bad.json.gz", "spare", "poll-queues-0")

    def fleet_run(self):
        run = hostile.run_kdrift(["fleet", self.fleet, "--format", "json"], timeout=120)
        self.assertFalse(run.timed_out, str(run))
        self.assertIn(run.status, (0, 1), str(run))
        return run, json.loads(run.stdout)

    def outlier(self, report, host):
        return next((o for o in report["outliers"] if o["host"] == host), None)

    def assertJudged(self, run, report, host):
        outlier = self.outlier(report, host)
        self.assertIsNotNone(outlier, str(run))
        ids = {finding["id"] for finding in outlier["findings"]}
        self.assertIn("nvme.poll-queues", ids, "%s: %s" % (host, json.dumps(outlier)[:3000]))
        self.assertIn(outlier["severity"], ("warning", "critical"))
        self.assertEqual(run.status, 1, str(run))

    def test_the_reference_swapped_between_the_reads_leaves_the_outliers_findings(self):
        run, report = self.fleet_run()
        self.assertJudged(run, report, OUTLIER)
        reference = self.outlier(report, OUTLIER)["reference"]
        # The reference file alternates between its own snapshot and an outlier's: whichever
        # the fleet read, db6 is an outlier against a reference that has poll queues.
        target = os.path.join(self.fleet, reference + ".json.gz")
        os.link(target, self.path("reference.json.gz"))
        with Racer(target, self.path("reference.json.gz"), self.bad) as racer:
            for _ in range(RUNS):
                run, report = self.fleet_run()
                self.assertJudged(run, report, OUTLIER)
        self.assertGreater(racer.swaps, RUNS, "the racer ran during the runs")

    def test_an_outlier_swapped_for_a_clean_snapshot_is_judged_as_it_was_first_read(self):
        target = os.path.join(self.fleet, OUTLIER + ".json.gz")
        os.link(target, self.path("outlier.json.gz"))
        listed = 0
        with Racer(target, self.path("outlier.json.gz"), self.clean) as racer:
            for _ in range(RUNS):
                run, report = self.fleet_run()
                if self.outlier(report, OUTLIER) is None:
                    # Read clean: no outlier, nothing to flag.
                    self.assertEqual(run.status, 0, str(run))
                    continue
                listed += 1
                self.assertJudged(run, report, OUTLIER)
        self.assertGreater(racer.swaps, RUNS, "the racer ran during the runs")
        self.assertGreater(listed, 0, "some run read the outlier's own snapshot")

    def test_each_snapshot_is_opened_by_its_name_once(self):
        if not os.path.exists("/usr/bin/strace"):
            self.skipTest("strace is not installed")
        trace = self.path("trace")
        command = ["/usr/bin/strace", "-f", "-e", "trace=openat,open,open_by_handle_at", "-o", trace,
                   hostile.KDRIFT, "fleet", self.fleet, "--format", "json"]
        import subprocess
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(done.returncode, 1, done.stderr.decode()[-2000:])
        with open(trace) as f:
            opens = [line for line in f if ".json.gz" in line]
        for host in CLEAN + [OUTLIER]:
            named = [line for line in opens if '"%s.json.gz"' % host in line]
            self.assertEqual(len(named), 1, "%s opened %d times:\n%s" % (host, len(named), "".join(named)))
        with open(trace) as f:
            by_handle = [line for line in f if "open_by_handle_at(" in line and "= -1" not in line]
        # The outlier and its reference are read again, by handle.
        self.assertGreaterEqual(len(by_handle), 2, "".join(by_handle))


if __name__ == "__main__":
    hostile.main()
