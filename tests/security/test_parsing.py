"""Bounded parsing (issue 16, attacks 6 and 7): every input kdrift reads is a regular file (or
stdin) within a size limit, JSON is bounded in depth and value count while it is parsed, TOML is
checked for depth before toml++ recurses through it, and probe parameters are checked once,
the same way from a profile and from a flag. None of these needs root."""

import gzip
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402

MINIMAL_SNAPSHOT = b'{"schema": "kdrift.snapshot/1"}\n'
PROFILE_HEAD = b'[[workload]]\nname = "w"\nengines = ["psync"]\nrw = "randread"\n'
# What a probe given a bad value would otherwise run: short, small, on a file in the test's
# directory, without the capability canaries or BPF.
QUICK_PROBE = {"--runtime": "200ms", "--ramp": "0", "--size": "1m"}


def quick_probe(profile, target, *args):
    """probe arguments: args, and QUICK_PROBE's options that args do not give."""
    options = [item for option, value in QUICK_PROBE.items() if option not in args
               for item in (option, value)]
    return (["probe", "--profile", profile, "--target", target, "--no-capabilities", "--no-trace"]
            + options + list(args))
# kdrift reading a small valid snapshot peaks near 15 MiB; a refused bomb must stay near that.
SMALL_RSS_MIB = 96


def minimal_snapshot(directory):
    path = os.path.join(directory, "good.json")
    with open(path, "wb") as out:
        out.write(MINIMAL_SNAPSHOT)
    return path


# --- the hostile inputs (also written out by generate.py) ---------------------------------------

def empty_arrays_gzip(directory, count=20_000_000):
    """A snapshot whose one value is count empty arrays: 60 MB of JSON in a ~60 KB gzip file."""
    path = os.path.join(directory, "empty-arrays.json.gz")
    chunk = b"[]," * 100_000
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b'{"schema": "kdrift.snapshot/1", "x": [')
        for _ in range(count // 100_000):
            out.write(chunk)
        out.write(b"[]]}\n")
    return path


def empty_arrays_plain(directory, count=2_000_000):
    """Plain JSON within the size limit holding twice the value limit: refused by count."""
    path = os.path.join(directory, "empty-arrays.json")
    with open(path, "wb") as out:
        out.write(b'{"schema": "kdrift.snapshot/1", "x": [' + b"[]," * count + b"[]]}\n")
    return path


def oversized_snapshot(directory):
    """A valid snapshot padded past the 32 MiB limit with whitespace."""
    path = os.path.join(directory, "oversized.json")
    with open(path, "wb") as out:
        out.write(MINIMAL_SNAPSHOT[:-2] + b" " * (33 << 20) + b"}\n")
    return path


def deep_fio_percentile(directory, depth=500_000):
    """fio JSON whose one percentile value is an array nested depth deep."""
    path = os.path.join(directory, "deep-percentile.fio.json")
    with open(path, "wb") as out:
        out.write(b'{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "read": {"total_ios": 1, '
                  b'"clat_ns": {"min": 1, "percentile": {"99.000000": ' + hostile.nested_json(depth) +
                  b"}}}}]}\n")
    return path


# toml++ stops inline tables and arrays at 256 levels, but builds a table per part of a dotted key or a [table.header] without a limit, and those
# tables are torn down recursively: 50,000 parts overflowed the stack.
def dotted_toml_key(depth):
    return ("a" + ".a" * depth + " = 1\n").encode()


def deep_toml_header(depth):
    return ("[a" + ".a" * depth + "]\nb = 1\n").encode()


def deep_rule_dir(directory, depth=50_000):
    """A --checks directory whose one rule file holds a dotted key depth parts deep."""
    rules = os.path.join(directory, "deep-rules")
    os.makedirs(rules, exist_ok=True)
    path = os.path.join(rules, "deep.toml")
    with open(path, "wb") as out:
        out.write(dotted_toml_key(depth))
    return path


def deep_profile(directory, depth=50_000):
    """A profile whose table header is depth parts deep."""
    path = os.path.join(directory, "deep-profile.toml")
    with open(path, "wb") as out:
        out.write(deep_toml_header(depth))
    return path


def zero_block_profile(directory):
    """bs = "0": the engines once divided by it (SIGFPE)."""
    path = os.path.join(directory, "bs-zero.toml")
    with open(path, "wb") as out:
        out.write(PROFILE_HEAD + b'bs = "0"\niodepth = 1\n')
    return path


def matrix_profile(directory, entries=20_000):
    """160 KB of lists: entries block sizes x 4096 depths x 3 engines, 245 million jobs."""
    path = os.path.join(directory, "matrix.toml")
    sizes = ", ".join(['"512"'] * entries)
    depths = ", ".join(str(depth) for depth in range(1, 4097))
    with open(path, "w") as out:
        out.write('[[workload]]\nname = "m"\nengines = ["io_uring", "libaio", "psync"]\n'
                  'rw = "randread"\nbs = [%s]\niodepth = [%s]\n' % (sizes, depths))
    return path


def many_workloads_profile(directory, count=10_000):
    """A megabyte of one-job workloads: their every pair was once compared (quadratic)."""
    path = os.path.join(directory, "workloads.toml")
    with open(path, "w") as out:
        for i in range(count):
            out.write('[[workload]]\nname = "w%d"\nengines = ["io_uring"]\nrw = "randread"\n'
                      'bs = "%d"\niodepth = %d\n' % (i, 512 * (1 + i // 4000), 1 + i % 4000))
    return path


def hostile_inputs(directory):
    return [empty_arrays_gzip(directory), empty_arrays_plain(directory),
            oversized_snapshot(directory), deep_fio_percentile(directory),
            deep_rule_dir(directory), deep_profile(directory), zero_block_profile(directory),
            matrix_profile(directory), many_workloads_profile(directory)]


# --- the attacks --------------------------------------------------------------------------------

class SnapshotBombs(hostile.Case):
    def test_gzip_of_twenty_million_empty_arrays_stops_at_the_text_limit(self):
        bomb = empty_arrays_gzip(self.work)
        self.assertLess(os.path.getsize(bomb), 200 << 10)
        for args in (["check", bomb], ["diff", minimal_snapshot(self.work), bomb]):
            run = hostile.run_kdrift(args, timeout=120)
            self.assertRefused(run, bomb, "decompresses to more than", max_rss_mib=SMALL_RSS_MIB)

    def test_two_million_values_are_refused_while_parsing(self):
        bomb = empty_arrays_plain(self.work)
        run = hostile.run_kdrift(["check", bomb])
        self.assertRefused(run, bomb, "more than 1000000 values", max_rss_mib=SMALL_RSS_MIB)

    def test_plain_json_over_the_size_limit_is_refused_unread(self):
        big = oversized_snapshot(self.work)
        run = hostile.run_kdrift(["check", big])
        self.assertRefused(run, big, "over the 32m size limit", max_rss_mib=SMALL_RSS_MIB)

    def test_a_fifo_or_a_device_is_no_snapshot(self):
        fifo = hostile.make_fifo(self.path("snapshot.json"))
        # Nobody ever writes the FIFO: reading it would wait forever.
        run = hostile.run_kdrift(["check", fifo], timeout=20)
        self.assertRefused(run, fifo + ": a FIFO, not a regular file", max_rss_mib=SMALL_RSS_MIB)
        run = hostile.run_kdrift(["diff", minimal_snapshot(self.work), "/dev/null"], timeout=20)
        self.assertRefused(run, "/dev/null: a character device, not a regular file",
                           max_rss_mib=SMALL_RSS_MIB)


def zeros_gzip(directory, count=16_000_000):
    """A snapshot of count zeros in an array, just under the 32 MiB text limit, in ~30 KB of gzip:
    two structural characters per byte for simdjson's index to hold before the count refuses it."""
    path = os.path.join(directory, "zeros.json.gz")
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b'{"schema": "kdrift.snapshot/1", "x": [')
        for _ in range(count // 100_000):
            out.write(b"0," * 100_000)
        out.write(b"0]}\n")
    return path


class FleetBombs(hostile.Case):
    # Each reader holds one snapshot: its text, a padded copy and simdjson's index of it (4 bytes
    # per structural character: 128 MiB for zeros_gzip), so two readers stay within two of these.
    FLEET_RSS_MIB = 2 * 224

    def test_a_fleet_lists_every_bomb_unreadable_and_reads_the_rest_within_bounded_memory(self):
        fleet = self.path("fleet")
        os.mkdir(fleet)
        for host in ("good-1", "good-2", "good-3"):
            with open(os.path.join(fleet, host + ".json"), "wb") as out:
                out.write(MINIMAL_SNAPSHOT)
        os.rename(empty_arrays_plain(fleet), os.path.join(fleet, "plain-arrays.json"))
        empty_arrays_gzip(fleet)
        zeros_gzip(fleet)
        with open(os.path.join(fleet, "deep.json"), "wb") as out:
            out.write(b'{"schema": "kdrift.snapshot/1", "x": ' + hostile.nested_json(100_000) + b"}")
        # In the IRQ table, which the fleet's filter does not build: refused all the same.
        with open(os.path.join(fleet, "broken.json"), "wb") as out:
            out.write(b'{"schema": "kdrift.snapshot/1", "irq": {"x": [1 2]}}')
        run = hostile.run_kdrift(["fleet", fleet, "--format", "json", "--jobs", "2"], timeout=120)
        self.assertEqual(run.status, 0, str(run))
        self.assertBounded(run, self.FLEET_RSS_MIB)
        report = json.loads(run.stdout)
        self.assertEqual(report["hosts"], 3)
        errors = {os.path.basename(u["file"]): u["error"] for u in report["unreadable"]}
        expected = {"plain-arrays.json": "more than 1000000 values",
                    "empty-arrays.json.gz": "decompresses to more than",
                    "zeros.json.gz": "more than 1000000 values",
                    "deep.json": "nested deeper than 64 levels",
                    "broken.json": "not valid JSON"}
        self.assertEqual(sorted(errors), sorted(expected), str(run))
        for name, mention in expected.items():
            self.assertIn(mention, errors[name])


class FioImport(hostile.Case):
    def test_a_percentile_nested_half_a_million_deep_is_refused_not_a_crash(self):
        deep = deep_fio_percentile(self.work)
        run = hostile.run_kdrift(["import-fio", deep])
        self.assertRefused(run, deep, "nested deeper than 32 levels", max_rss_mib=SMALL_RSS_MIB)


class TomlFiles(hostile.Case):
    def test_a_rule_key_nested_fifty_thousand_deep_is_refused_before_toml_parses_it(self):
        rule = deep_rule_dir(self.work)
        run = hostile.run_kdrift(["check", minimal_snapshot(self.work), "--checks", os.path.dirname(rule)])
        self.assertRefused(run, rule + ":1: nested deeper than 32 levels",
                           max_rss_mib=SMALL_RSS_MIB)

    def test_a_profile_key_nested_fifty_thousand_deep_is_refused_before_toml_parses_it(self):
        profile = deep_profile(self.work)
        run = hostile.run_kdrift(quick_probe(profile, self.work), timeout=60)
        self.assertRefused(run, profile + ":1: nested deeper than 32 levels",
                           max_rss_mib=SMALL_RSS_MIB)

    def test_a_fifo_named_like_a_rule_file_is_refused_not_waited_on(self):
        rules = self.path("rules")
        os.makedirs(rules)
        fifo = hostile.make_fifo(os.path.join(rules, "x.toml"))
        run = hostile.run_kdrift(["check", minimal_snapshot(self.work), "--checks", rules], timeout=20)
        self.assertRefused(run, fifo + ": a FIFO, not a regular file", max_rss_mib=SMALL_RSS_MIB)


class ProbeParameters(hostile.Case):
    def probe(self, *args, profile="quick"):
        return hostile.run_kdrift(quick_probe(profile, self.work, *args), timeout=60)

    def test_a_zero_block_size_in_a_profile_names_the_file_and_key(self):
        profile = zero_block_profile(self.work)
        run = self.probe(profile=profile)
        self.assertRefused(run, profile + ":5:", 'bs: invalid value "0"',
                           "a positive multiple of 512 bytes", max_rss_mib=SMALL_RSS_MIB)

    def test_flags_are_held_to_the_bounds_a_profile_is(self):
        refusals = [
            (["--bs", "0"], '--bs: cannot use "0": a positive multiple of 512 bytes'),
            (["--iodepth", "0"], '--iodepth: cannot use "0": from 1 to 4096, not 0'),
            (["--iodepth", "100000"], '--iodepth: cannot use "100000": from 1 to 4096'),
            # A profile's batch_complete_min is at least 1; the flag once took 0.
            (["--batch-complete-min", "0"], '--batch-complete-min: cannot use "0": from 1 to 4096'),
            (["--batch-submit", "-5"], '--batch-submit: cannot use "-5": from 0 to 4096'),
            (["--runtime", "0s"], '--runtime: cannot use "0s": from 1ms to 3600s'),
            (["--bs", "64m", "--iodepth", "4096", "--engine", "io_uring"],
             'workload "randread": block size 64m at queue depth 4096 holds more than 1g'),
        ]
        for args, message in refusals:
            with self.subTest(args=args):
                self.assertRefused(self.probe(*args), message, max_rss_mib=SMALL_RSS_MIB)

    def test_a_matrix_of_millions_of_jobs_is_refused_before_it_is_expanded(self):
        # Today's main expanded all 245 million: still running after 60 s.
        profile = matrix_profile(self.work)
        started = time.monotonic()
        run = hostile.run_kdrift(quick_probe(profile, self.work), timeout=30)
        self.assertRefused(run, profile + ": engines x block sizes x queue depths come to more "
                           "than 1024 jobs", max_rss_mib=SMALL_RSS_MIB)
        self.assertLess(time.monotonic() - started, 5)

    def test_a_megabyte_of_workloads_costs_no_quadratic_time(self):
        # Each workload was expanded with every other: 11 s on today's main for 10,000.
        profile = many_workloads_profile(self.work)
        started = time.monotonic()
        run = hostile.run_kdrift(quick_probe(profile, self.work), timeout=30)
        self.assertRefused(run, "more than 1024 jobs", max_rss_mib=SMALL_RSS_MIB)
        self.assertLess(time.monotonic() - started, 5)


if __name__ == "__main__":
    hostile.main()
