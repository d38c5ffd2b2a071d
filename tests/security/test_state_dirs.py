"""Issue 32, trusted state directories: the directories kdrift keeps its own state in (the bisect
journal, the applied-knob record, the boot history) decide what root does next, so no other user
may be able to change them, nor any directory on the way to them.

A state directory used to be checked by path (stat) and then used by path again: a user who could
write its parent exchanged it with their own (renameat2 RENAME_EXCHANGE) between the two, and
`bisect step --dry-run` planned a kexec of the user's kernel. `bisect knobs` restored whatever an
applied.json in --state-dir said, into any file below /sys. Now each directory is opened once
from / without following a symlink, every component is checked on its descriptor (owned by root
or the user running kdrift, no group or world write but for a root-owned sticky directory on
the way), and a knob record restores only the files applying its knob changes.
"""

import ctypes
import json
import os
import platform
import shutil
import subprocess
import time

import hostile

NOBODY = 65534
SYSROOTS = os.path.join(hostile.SOURCE_DIR, "tests", "fixtures", "sysroots")
SNAPSHOTS = os.path.join(hostile.SOURCE_DIR, "tests", "fixtures", "snapshots")
RACE_RUNS = 200
ATTACKER_KERNEL = "vmlinuz-attacker"  # in the directory the attacker owns
ATTACKER_APPEND = "init=/home/attacker/rootshell"

# The attacker's loop: exchange the victim's state directory with their own, as fast as it goes,
# as nobody (the owner of the parent directory), for as long as the test runs.
RACER = r"""
import ctypes, os, platform, sys
os.setgid(%(nobody)d)
os.setuid(%(nobody)d)
libc = ctypes.CDLL(None, use_errno=True)
number = {"x86_64": 316, "aarch64": 276}[platform.machine()]
a, b = sys.argv[1].encode(), sys.argv[2].encode()
while True:
    libc.syscall(number, -100, a, -100, b, 2)  # renameat2(AT_FDCWD, a, AT_FDCWD, b, EXCHANGE)
""" % {"nobody": NOBODY}


def give_to_nobody(path):
    for directory, subdirectories, files in os.walk(path):
        os.chown(directory, NOBODY, NOBODY)
        for name in files:
            os.chown(os.path.join(directory, name), NOBODY, NOBODY)


def bisect(state, *arguments, **options):
    return hostile.run_kdrift(["bisect", "--state-dir", state] + list(arguments), **options)


class StateDirCase(hostile.Case):
    def setUp(self):
        super().setUp()
        # Others (the attacker) may pass through the test's own directory, as through /var/lib.
        os.chmod(self.work, 0o755)

    def start_bisect(self, state):
        """A kexec bisect of two harmless candidates (a plain file as kernel) recorded in state,
        and the root it is stepped with."""
        kernel = self.path("vmlinuz")
        with open(kernel, "w") as f:
            f.write("not a kernel: nothing here boots it")
        candidates = self.path("list.txt")
        with open(candidates, "w") as f:
            f.write('c0 kernel=%s append="console=ttyS0"\nc1 kernel=%s append="console=ttyS0 '
                    'quiet"\n' % (kernel, kernel))
        started = bisect(state, "start", "--good", "c0", "--bad", "c1", "--predicate",
                         "iommu.strict", "--candidates", candidates)
        self.assertEqual(started.status, 0, str(started))
        root = self.path("root")
        os.mkdir(root)
        subprocess.run(["tar", "xzf", os.path.join(SYSROOTS, "intel-lazy.tar.gz"), "-C", root],
                       check=True)
        with open(os.path.join(root, "proc", "cmdline"), "w") as f:
            f.write("console=ttyS0\n")
        return root


class StateDirRace(StateDirCase):
    def attacker_copy(self, state, evil):
        """The attacker's directory: the victim's bisect with the next candidate's kernel and
        command line replaced by theirs (a kernel file beside it), owned by nobody."""
        os.mkdir(evil, 0o700)
        kernel = os.path.join(os.path.dirname(evil), ATTACKER_KERNEL)
        with open(kernel, "w") as f:
            f.write("the attacker's kernel")
        os.chown(kernel, NOBODY, NOBODY)
        with open(os.path.join(state, "journal.jsonl")) as f:
            journal = f.read()
        journal = journal.replace(self.path("vmlinuz"), kernel)
        journal = journal.replace("console=ttyS0 quiet", ATTACKER_APPEND)
        with open(os.path.join(evil, "journal.jsonl"), "w") as f:
            f.write(journal)
        give_to_nobody(evil)

    def test_exchanging_the_state_dir_never_gets_the_attackers_kernel_planned(self):
        self.require_root("a directory owned by nobody and a racer running as nobody")
        if platform.machine() not in ("x86_64", "aarch64"):
            self.skipTest("renameat2's syscall number is known here for x86_64 and aarch64 only")
        # The victim's bisect is started where nobody else can write, then moved into a parent
        # the attacker owns (as a --state-dir under a user's directory would be).
        staging = self.path("staging")
        os.mkdir(staging, 0o700)
        root = self.start_bisect(os.path.join(staging, "state"))
        parent = self.path("parent")
        os.mkdir(parent, 0o755)
        state = os.path.join(parent, "state")
        os.rename(os.path.join(staging, "state"), state)
        os.chmod(state, 0o700)
        self.attacker_copy(state, os.path.join(parent, "evil"))
        os.chown(parent, NOBODY, NOBODY)
        racer = subprocess.Popen(["/usr/bin/python3", "-c", RACER, state,
                                  os.path.join(parent, "evil")])
        runs = []
        try:
            time.sleep(0.2)
            for attempt in range(RACE_RUNS):
                words = (["step", "--root", root, "--dry-run"] if attempt % 2 == 0
                         else ["status"])
                run = bisect(state, *words, timeout=60)
                self.assertFalse(run.timed_out, str(run))
                runs.append(run)
        finally:
            racer.kill()
            racer.wait()
        hijacked = [run for run in runs
                    if ATTACKER_KERNEL in run.text() or ATTACKER_APPEND in run.text()]
        self.assertEqual(len(hijacked), 0, "%d of %d runs read the attacker's journal; first: %s"
                         % (len(hijacked), len(runs), hijacked[:1] and hijacked[0]))
        for run in runs:
            self.assertRefused(run, parent + " is owned by uid %d" % NOBODY)


class StateDirOwnership(StateDirCase):
    def test_a_state_dir_through_a_symlink_is_refused(self):
        state = self.path("state")
        self.start_bisect(state)
        os.symlink(state, self.path("link"))
        run = bisect(self.path("link"), "status")
        self.assertRefused(run, self.path("link") + " is a symbolic link")

    def test_a_state_dir_whose_parent_another_user_owns_is_refused(self):
        self.require_root("a directory owned by nobody")
        parent = self.path("parent")
        os.mkdir(parent, 0o755)
        state = os.path.join(parent, "state")
        self.start_bisect(state)
        os.chown(parent, NOBODY, NOBODY)
        for words in (["status"], ["log"], ["good"]):
            with self.subTest(command=words[0]):
                self.assertRefused(bisect(state, *words), parent + " is owned by uid %d" % NOBODY)

    def test_a_state_dir_another_user_owns_or_anyone_can_write_is_refused(self):
        self.require_root("a directory owned by nobody")
        state = self.path("state")
        self.start_bisect(state)
        for owner, mode, says in ((NOBODY, 0o700, "is owned by uid %d" % NOBODY),
                                  (0, 0o777, "is writable by its group or others (mode 0777)")):
            with self.subTest(owner=owner, mode=oct(mode)):
                os.chown(state, owner, owner)
                os.chmod(state, mode)
                self.assertRefused(bisect(state, "status"), state + " " + says)
                os.chown(state, 0, 0)
                os.chmod(state, 0o755)
        self.assertEqual(bisect(state, "status").status, 0)


def read_ahead(device):
    with open("/sys/block/%s/queue/read_ahead_kb" % device) as f:
        return f.read().strip()


def set_read_ahead(device, value):
    with open("/sys/block/%s/queue/read_ahead_kb" % device, "w") as f:
        f.write(value)


def knob_record(applied, restore):
    return json.dumps({"schema": "kdrift.bisect-knobs.applied/1",
                       "applied": {"path": applied, "value": "x"},
                       "restore": [{"path": path, "value": value} for path, value in restore]})


class KnobRecords(hostile.Case):
    """A loop device's queue/read_ahead_kb is the harmless sysfs file whose value proves whether
    kdrift wrote; the dangerous files are only named with their current value, which a restore
    never rewrites, so even a kdrift that would accept them writes nothing there."""

    def setUp(self):
        super().setUp()
        os.chmod(self.work, 0o755)
        self.require_root("loop devices and a directory owned by nobody")
        self.devices = []
        for name in ("a.img", "b.img"):
            image = hostile.sparse_image(self.path(name), 8)
            device = self.enterContext(hostile.loop_device(image))
            name = os.path.basename(device)
            self.addCleanup(set_read_ahead, name, read_ahead(name))
            self.devices.append(name)
        self.snapshot = os.path.join(SNAPSHOTS, "intel-lazy.json.gz")

    def knobs(self, state, *extra):
        # Both sides the same snapshot: no knob differs, so the run restores and ends.
        return bisect(state, "knobs", "--good", self.snapshot, "--bad", self.snapshot,
                      "--metric", "probe:quick:sync:1:iops", "--target", self.work, *extra,
                      timeout=120)

    def plant(self, directory, record):
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "applied.json"), "w") as f:
            f.write(record)

    def test_a_record_planted_in_another_users_directory_is_refused_unwritten(self):
        device = self.devices[0]
        before = read_ahead(device)
        planted = "8" if before != "8" else "16"
        attribute = "/sys/block/%s/queue/read_ahead_kb" % device
        state = self.path("knobs")
        self.plant(state, knob_record(attribute, [(attribute, planted)]))
        give_to_nobody(state)
        run = self.knobs(state)
        self.assertEqual(read_ahead(device), before, "root wrote nobody's value: %s" % run)
        self.assertRefused(run, state + " is owned by uid %d" % NOBODY)
        self.assertTrue(os.path.exists(os.path.join(state, "applied.json")))

    def test_a_record_restoring_another_devices_attribute_is_refused_before_any_write(self):
        applied, other = self.devices
        before = (read_ahead(applied), read_ahead(other))
        value = lambda now: "8" if now != "8" else "16"
        state = self.path("knobs")
        attribute = "/sys/block/%s/queue/read_ahead_kb"
        self.plant(state, knob_record(attribute % applied,
                                      [(attribute % applied, value(before[0])),
                                       (attribute % other, value(before[1]))]))
        run = self.knobs(state)
        self.assertEqual((read_ahead(applied), read_ahead(other)), before,
                         "a value was written: %s" % run)
        self.assertRefused(run, os.path.join(state, "applied.json"),
                           '"%s" refused' % (attribute % other))

    def test_a_record_naming_files_no_knob_writes_is_refused(self):
        device = self.devices[0]
        state = self.path("knobs")
        attribute = "/sys/block/%s/queue/read_ahead_kb" % device
        for dangerous in ("/sys/kernel/uevent_helper", "/sys/power/state"):
            if not os.path.exists(dangerous):
                continue
            with open(dangerous) as f:
                current = f.read().strip()
            for applied in (dangerous, attribute):
                with self.subTest(file=dangerous, applied=applied):
                    self.plant(state, knob_record(applied, [(attribute, read_ahead(device)),
                                                            (dangerous, current)]))
                    # The plan says so too, rather than promising a restore that would not run.
                    run = self.knobs(state, "--dry-run")
                    self.assertRefused(run, os.path.join(state, "applied.json"), dangerous)
                    run = self.knobs(state)
                    self.assertRefused(run, os.path.join(state, "applied.json"), dangerous)
                    with open(dangerous) as f:
                        self.assertEqual(f.read().strip(), current)


class BootHistory(hostile.Case):
    def setUp(self):
        super().setUp()
        os.chmod(self.work, 0o755)

    def plant(self, directory):
        os.makedirs(directory)
        shutil.copy(os.path.join(SNAPSHOTS, "intel-lazy.json.gz"),
                    os.path.join(directory, "20250101T000000Z-aaaaaaaa.json.gz"))

    def test_a_history_another_user_owns_or_can_write_is_refused(self):
        self.require_root("a directory owned by nobody")
        for case in ("owned", "shared", "parent"):
            with self.subTest(case=case):
                parent = self.path(case)
                history = os.path.join(parent, "boots")
                self.plant(history)
                refused = {"owned": history, "shared": history, "parent": parent}[case]
                if case == "shared":
                    os.chmod(history, 0o777)
                else:
                    os.chown(refused, NOBODY, NOBODY)
                run = hostile.run_kdrift(["history", "--dir", history])
                self.assertRefused(run, refused + " is ")
                self.assertNotIn("aaaaaaaa", run.text().replace(history, ""))

    def test_root_records_no_boot_into_a_history_another_user_owns(self):
        self.require_root("a directory owned by nobody")
        history = self.path("boots")
        self.plant(history)
        give_to_nobody(history)
        run = hostile.run_kdrift(["history", "record", "--dir", history], timeout=300)
        self.assertRefused(run, history + " is owned by uid %d" % NOBODY)
        self.assertEqual(os.listdir(history), ["20250101T000000Z-aaaaaaaa.json.gz"])


def hostile_inputs(directory):
    """A knob record naming a file no knob writes, as planted in a state directory."""
    path = os.path.join(directory, "state-dirs-applied.json")
    with open(path, "w") as f:
        f.write(knob_record("/sys/kernel/uevent_helper", [("/sys/kernel/uevent_helper", "/x")]))
    return [path]


if __name__ == "__main__":
    hostile.main()
