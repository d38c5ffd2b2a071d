"""Attacks on the probe's write refusal (issue 16, attacks 3 and 9): a symlink re-pointed while
kdrift decides whether its target may be written, the file behind a mounted loop device, and a
read-only loop device. Each needs root (loop devices, mounts) and skips with the reason without it.
"""

import contextlib
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402

# A run that writes for a few milliseconds and measures nothing else: well under a second.
WRITES = ["--allow-write", "--engine", "psync", "--rw", "randwrite", "--bs", "4k", "--iodepth",
          "1", "--runtime", "20ms", "--ramp", "0s", "--no-capabilities", "--no-trace",
          "--format", "json"]
RACE_STARTS = 60

# Re-points LINK between two targets as fast as it can, each time atomically (rename over it),
# so the name always exists and kdrift's lookups see either target.
FLIPPER = """
import os, sys
link, targets = sys.argv[1], sys.argv[2:]
next_link = link + ".next"
i = 0
while True:
    os.symlink(targets[i % 2], next_link)
    os.rename(next_link, link)
    i += 1
"""


def writes_completed(device):
    """Writes the device completed, from its own counters (field 5 of /sys/block/X/stat)."""
    with open("/sys/block/%s/stat" % os.path.basename(device)) as f:
        return int(f.read().split()[4])


@contextlib.contextmanager
def mounted_read_only(device, directory):
    """Mounted without a journal replay, so the image changes only if something else writes it."""
    os.makedirs(directory, exist_ok=True)
    subprocess.run(["mount", "-o", "ro,noload", device, directory], check=True)
    try:
        yield directory
    finally:
        subprocess.run(["umount", directory], check=False)


def probe_section(run):
    return json.loads(run.stdout)["probe"]


class TargetRace(hostile.Case):
    def test_flipping_symlink_never_gets_ext4_written(self):
        self.require_root("loop devices")
        victim = hostile.ext4_image(self.path("victim.ext4"))
        blank = hostile.sparse_image(self.path("blank.img"), 32)
        before = hostile.sha256(victim)
        link = self.path("target")
        with hostile.loop_device(victim) as ext4_device, hostile.loop_device(blank) as blank_device:
            blank_writes = writes_completed(blank_device)
            os.symlink(blank_device, link)
            flipper = subprocess.Popen(["/usr/bin/python3", "-c", FLIPPER, link, blank_device,
                                        ext4_device])
            try:
                for start in range(1, RACE_STARTS + 1):
                    run = hostile.run_kdrift(["probe", "--target", link] + WRITES, timeout=60)
                    self.assertFalse(run.timed_out, str(run))
                    self.assertEqual(hostile.sha256(victim), before,
                                     "start %d of %d wrote over the ext4 filesystem: %s"
                                     % (start, RACE_STARTS, run))
            finally:
                flipper.kill()
                flipper.wait()
            # The race was live: some starts got the blank device and wrote it.
            self.assertGreater(writes_completed(blank_device), blank_writes)


class TargetInUse(hostile.Case):
    def test_file_behind_a_mounted_loop_device_is_not_written(self):
        self.require_root("loop devices and mounts")
        victim = hostile.ext4_image(self.path("victim.ext4"))
        with hostile.loop_device(victim) as device, \
                mounted_read_only(device, self.path("mnt")) as mountpoint:
            before = hostile.sha256(victim)
            run = hostile.run_kdrift(["probe", "--target", victim] + WRITES)
            self.assertEqual(hostile.sha256(victim), before, str(run))
            self.assertRefused(run, victim + ": refused for writes",
                               "backs %s, mounted on %s" % (os.path.basename(device), mountpoint))

    def test_read_only_loop_device_is_not_writable(self):
        self.require_root("loop devices")
        image = hostile.sparse_image(self.path("read-only.img"), 32)
        with hostile.loop_device(image, read_only=True) as device:
            writes = writes_completed(device)  # a loop device's counters outlive its bindings
            run = hostile.run_kdrift(["probe", "--target", device] + WRITES)
            self.assertEqual(run.status, 0, str(run))
            target = probe_section(run)["target"]
            self.assertFalse(target["writable"], json.dumps(target))
            self.assertIn("%s is a read-only device (BLKROGET)" % os.path.basename(device),
                          target["write_refusals"])
            self.assertEqual(probe_section(run)["jobs"][0]["status"], "skipped")
            self.assertEqual(writes_completed(device), writes)


def hostile_inputs(directory):
    """The victim filesystem image; everything else here is a loop device and needs root."""
    return [hostile.ext4_image(os.path.join(directory, "target-victim.ext4"))]


if __name__ == "__main__":
    hostile.main()
