"""Attack 4 and the --state-dir item of attack 9: what kdrift writes, and where.

-o FILE is created beside the destination (O_EXCL) and renamed into place: a symlink planted at
the destination can no longer point the write at a block device, a device node or a FIFO (which
used to hang the command); files are 0600 whatever the umask unless --mode says otherwise; a
state directory that would inject lines into the systemd unit is refused before the unit exists.
"""

import os
import stat

import hostile

FIXTURES = os.path.join(hostile.SOURCE_DIR, "tests", "fixtures", "snapshots")
A = os.path.join(FIXTURES, "intel-lazy.json.gz")
B = os.path.join(FIXTURES, "intel-strict.json.gz")


def write_report(destination, *extra):
    """A fast command that writes a file: the diff of two fixture snapshots."""
    return hostile.run_kdrift(["diff", A, B, "-o", destination] + list(extra), timeout=60)


class OutputDestinations(hostile.Case):
    def assertWrittenRegular(self, run, path):
        self.assertIn(run.status, (0, 1), str(run))
        info = os.lstat(path)
        self.assertTrue(stat.S_ISREG(info.st_mode), "%s is not a regular file" % path)
        return info

    def test_symlink_to_a_block_device_is_refused_and_the_device_unchanged(self):
        self.require_root("a loop device stands in for the victim disk")
        image = hostile.ext4_image(self.path("victim.img"), 16)
        before = hostile.sha256(image)
        with hostile.loop_device(image) as device:
            os.symlink(device, self.path("report.txt"))
            run = write_report(self.path("report.txt"))
        self.assertRefused(run, "is a symlink to a block device")
        self.assertEqual(hostile.sha256(image), before, "the report was written over the disk")
        self.assertTrue(os.path.islink(self.path("report.txt")))

    def test_directory_or_symlink_to_one_is_refused_and_left_empty(self):
        os.mkdir(self.path("dir"))
        os.symlink(self.path("dir"), self.path("link"))
        for name, says in (("dir", "is a directory"), ("link", "is a symlink to a directory")):
            run = write_report(self.path(name))
            self.assertRefused(run, self.path(name) + " " + says)
        self.assertEqual(os.listdir(self.path("dir")), [])
        self.assertEqual(sorted(os.listdir(self.work)), ["dir", "link"], "no temporary left")

    def test_symlink_to_a_character_device_is_refused(self):
        self.require_root("mknod of a null device")
        node = self.path("null")
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        os.symlink(node, self.path("out.md"))
        run = write_report(self.path("out.md"), "--format", "markdown")
        self.assertRefused(run, "is a symlink to a character device")
        self.assertTrue(stat.S_ISCHR(os.stat(node).st_mode))

    def test_fifo_destination_is_refused_without_hanging(self):
        fifo = hostile.make_fifo(self.path("fifo"))
        run = hostile.run_kdrift(["diff", A, B, "-o", fifo], timeout=20)
        self.assertRefused(run, "is a FIFO")
        run = hostile.run_kdrift(["capture", "--probe", "none", "--no-trace", "-o", fifo],
                                 timeout=60)
        self.assertRefused(run, "is a FIFO")

    def test_symlink_to_a_regular_file_is_replaced_not_followed(self):
        victim = self.path("victim")
        with open(victim, "w") as f:
            f.write("precious")
        os.symlink(victim, self.path("report.txt"))
        run = write_report(self.path("report.txt"))
        self.assertWrittenRegular(run, self.path("report.txt"))
        with open(victim) as f:
            self.assertEqual(f.read(), "precious")

    def test_files_are_0600_whatever_the_umask(self):
        saved = os.umask(0)
        try:
            report = write_report(self.path("report.txt"))
            snapshot = hostile.run_kdrift(
                ["capture", "--probe", "none", "--no-trace", "-o", self.path("s.json")])
        finally:
            os.umask(saved)
        for run, name in ((report, "report.txt"), (snapshot, "s.json")):
            info = self.assertWrittenRegular(run, self.path(name))
            self.assertEqual(stat.S_IMODE(info.st_mode), 0o600, name)

    def test_mode_asks_for_other_permissions_and_refuses_special_bits(self):
        run = write_report(self.path("report.txt"), "--mode", "0640")
        info = self.assertWrittenRegular(run, self.path("report.txt"))
        self.assertEqual(stat.S_IMODE(info.st_mode), 0o640)
        for mode in ("4755", "0x1ff", "999"):
            run = write_report(self.path("bad-%s.txt" % mode), "--mode", mode)
            self.assertRefused(run, "--mode")
            self.assertFalse(os.path.exists(self.path("bad-%s.txt" % mode)))


class StateDirectory(hostile.Case):
    def candidates(self):
        """Two candidates whose kernel is a plain file: nothing here ever boots it."""
        kernel = self.path("vmlinuz")
        with open(kernel, "w") as f:
            f.write("not a kernel")
        candidates = self.path("list.txt")
        with open(candidates, "w") as f:
            f.write("c0 kernel=%s\nc1 kernel=%s\n" % (kernel, kernel))
        return candidates

    def test_state_dir_with_a_newline_never_reaches_the_unit_file(self):
        candidates = self.candidates()
        state = self.path("state\nExecStartPre=/tmp/pwned")
        units = self.path("units")
        os.makedirs(state)  # the injected line names a path: its directories must exist
        started = hostile.run_kdrift(["bisect", "--state-dir", state, "start", "--good", "c0",
                                      "--bad", "c1", "--predicate", "iommu.strict",
                                      "--candidates", candidates])
        self.assertEqual(started.status, 0, str(started))
        run = hostile.run_kdrift(["bisect", "--state-dir", state, "install", "--unit-dir", units])
        self.assertRefused(run, "control character")
        self.assertNotIn("\nExecStartPre", run.text())
        self.assertFalse(os.path.exists(os.path.join(units, "kdrift-bisect.service")),
                         "a unit was written")

    def test_state_dir_another_user_can_write_is_refused(self):
        """Whoever writes the journal chooses the kernels `bisect step` kexecs as root: a state
        directory planted in /tmp by another user (or left world-writable) is refused."""
        self.require_root("giving the directory to another user")
        candidates = self.candidates()
        for owner, mode in ((65534, 0o755), (0, 0o777)):
            with self.subTest(owner=owner, mode=oct(mode)):
                state = self.path("state-%d-%o" % (owner, mode))
                os.makedirs(state)
                os.chown(state, owner, owner)
                os.chmod(state, mode)
                run = hostile.run_kdrift(["bisect", "--state-dir", state, "start", "--good", "c0",
                                          "--bad", "c1", "--candidates", candidates])
                self.assertRefused(run, state)
                self.assertEqual(os.listdir(state), [], "the bisect wrote into it")


def hostile_inputs(directory):
    """None: every attack here is a destination (a symlink, a device node, a FIFO) made by the
    test beside the file kdrift writes, not an input file to keep (a FIFO would hang a fuzzer)."""
    del directory
    return []


if __name__ == "__main__":
    hostile.main()
