"""Issue 32: the kernels a kexec bisect boots as root are root's own.

A candidate list names each candidate's kernel= and initrd=; `kdrift bisect step` kexecs them as
root on every boot. A kernel owned by another user, kept in a directory another user controls, or
writable by a group, lets that user choose the kernel root boots, and swap it between a check and
the load. kdrift bisect start refuses such a candidate before anything is recorded, and bisect
step refuses it again at the boot that would load it (here with --dry-run, which loads nothing),
exit status 2 naming the file, its owner and why; a symlink flipped by a racer running as nobody
for the whole test is refused every time. The kernels here are any bytes: nothing is ever loaded.

And every field of a candidate (name, kernel, initrd, append) that `bisect step --dry-run` prints
is made inert: a terminal escape in them reaches no terminal.
"""

import os
import signal
import time

import hostile

NOBODY = 65534
TERMINAL = "\x1b]0;pwned\x07\x1b[2J"
RELEASE = "6.1.0-test"


class KexecBisect(hostile.Case):
    """A root-owned work tree (mkdtemp), its state directory, good kernels, and a machine for
    step: a sysroot that can kexec and a kexec on PATH that is never run."""

    def setUp(self):
        super().setUp()
        self.require_root("the attacker's files belong to nobody (uid 65534)")
        os.chmod(self.work, 0o755)  # nobody must reach the directories given to it
        self.good_kernel = self.file("boot/vmlinuz-good", b"not a kernel: root's")
        self.good_initrd = self.file("boot/initrd-good", b"not an initrd: root's")
        self.root = self.machine()
        self.env = dict(os.environ, PATH=self.path("bin") + ":/usr/bin:/bin")

    def file(self, relative, data, mode=0o644, owner=0):
        path = self.path(relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)
        os.chown(path, owner, owner)
        return path

    def directory(self, relative, owner=0, mode=0o755):
        path = self.path(relative)
        os.makedirs(path, exist_ok=True)
        os.chown(path, owner, owner)
        os.chmod(path, mode)
        return path

    def machine(self):
        """A boot of RELEASE with both kexec calls configured, no lockdown, loads enabled."""
        for relative, text in (("root/proc/sys/kernel/osrelease", RELEASE + "\n"),
                               ("root/proc/sys/kernel/random/boot_id",
                                "6f1e1c4e-35b0-4c57-9d3e-0d7f3c1f0b11\n"),
                               ("root/proc/cmdline", "root=/dev/vda1 quiet\n"),
                               ("root/proc/sys/kernel/kexec_load_disabled", "0\n"),
                               ("root/sys/kernel/security/lockdown",
                                "[none] integrity confidentiality\n"),
                               ("root/boot/config-" + RELEASE,
                                "CONFIG_KEXEC=y\nCONFIG_KEXEC_FILE=y\n")):
            self.file(relative, text.encode())
        self.file("bin/kexec", b"#!/bin/sh\necho 'the test kexec ran' >&2\nexit 1\n", 0o755)
        return self.path("root")

    def candidates(self, lines):
        return self.file("list.txt", "".join(line + "\n" for line in lines).encode())

    def good(self, name):
        return "%s kernel=%s initrd=%s" % (name, self.good_kernel, self.good_initrd)

    def start(self, state, candidates, good="c0", bad="c2"):
        return hostile.run_kdrift(["bisect", "--state-dir", state, "start", "--good", good,
                                   "--bad", bad, "--predicate", "iommu.strict", "--mode", "kexec",
                                   "--root", self.root, "--candidates", candidates], env=self.env)

    def step_dry_run(self, state):
        return hostile.run_kdrift(["bisect", "--state-dir", state, "step", "--dry-run",
                                   "--root", self.root], env=self.env)

    def assertRefusedImage(self, run, path, *mentions):
        """Exit 2 naming the file; no candidate planned or booted, nothing of it loaded."""
        self.assertRefused(run, path, *mentions)
        self.assertNotIn("next: test", run.text())
        self.assertNotIn("kexec_file_load:", run.text())
        self.assertNotIn("booting", run.stdout.decode("utf-8", "replace"))


class RefusedAtStart(KexecBisect):
    def refuse(self, kernel=None, initrd=None, *mentions):
        """A bisect whose middle candidate boots kernel/initrd is refused and records nothing."""
        line = "c1 kernel=%s initrd=%s" % (kernel or self.good_kernel, initrd or self.good_initrd)
        state = self.path("state")
        run = self.start(state, self.candidates([self.good("c0"), line, self.good("c2")]))
        self.assertRefusedImage(run, kernel or initrd, *mentions)
        self.assertFalse(os.path.exists(os.path.join(state, "journal.jsonl")), "a bisect started")

    def test_kernel_owned_by_nobody(self):
        evil = self.file("boot/vmlinuz-evil", b"nobody's kernel", owner=NOBODY)
        self.refuse(evil, None, "owned by uid 65534")

    def test_initrd_owned_by_nobody(self):
        evil = self.file("boot/initrd-evil", b"nobody's initrd", owner=NOBODY)
        self.refuse(None, evil, "initrd " + evil, "owned by uid 65534")

    def test_root_kernel_in_a_directory_nobody_owns(self):
        # Root's file, but nobody can rename another in its place.
        self.directory("theirs", owner=NOBODY)
        kernel = self.file("theirs/vmlinuz", b"root's kernel, nobody's directory")
        self.refuse(kernel, None, self.path("theirs") + " is owned by uid 65534")

    def test_group_writable_kernel(self):
        kernel = self.file("boot/vmlinuz-group", b"group-writable", mode=0o664)
        self.refuse(kernel, None, "writable by its group")

    def test_kernel_in_a_world_writable_directory(self):
        self.directory("open", mode=0o777)
        kernel = self.file("open/vmlinuz", b"root's kernel, anyone's directory")
        self.refuse(kernel, None, self.path("open") + " is writable by its group or others")


class SwappedByARacer(KexecBisect):
    """nobody flips a symlink between root's kernel and their own for the whole test."""

    def setUp(self):
        super().setUp()
        self.racing = self.directory("racing")  # root's until the step part below
        self.link = os.path.join(self.racing, "vmlinuz")
        self.evil = self.file("evil/vmlinuz", b"nobody's kernel", owner=NOBODY)
        os.chown(self.path("evil"), NOBODY, NOBODY)

    def start_racer(self):
        os.chown(self.racing, NOBODY, NOBODY)
        pid = os.fork()
        if pid == 0:  # the attacker: nobody, swapping with rename(2) as fast as it can
            try:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                flip = 0
                while True:
                    temporary = self.link + ".new"
                    os.symlink(self.evil if flip else self.good_kernel, temporary)
                    os.rename(temporary, self.link)
                    flip ^= 1
            finally:
                os._exit(1)
        self.racer = pid
        self.addCleanup(self.stop_racer)
        time.sleep(0.05)

    def stop_racer(self):
        os.kill(self.racer, signal.SIGKILL)
        os.waitpid(self.racer, 0)

    def test_start_and_step_refuse_the_swapped_kernel_every_time(self):
        # Started while the kernel and its directory were root's alone: step must judge again.
        self.file("racing/vmlinuz", b"root's kernel, before the directory changed hands")
        state = self.path("state")
        started = self.start(state, self.candidates(["c%d kernel=%s" % (i, self.link)
                                                     for i in range(3)]))
        self.assertEqual(started.status, 0, str(started))
        self.start_racer()
        listed = self.candidates([self.good("c0"), "c1 kernel=" + self.link, self.good("c2")])
        for attempt in range(15):
            with self.subTest(start=attempt):
                run = self.start(self.path("state-%d" % attempt), listed)
                self.assertRefusedImage(run, "kernel " + self.link, self.racing)
                self.assertNotIn(self.evil, run.stdout.decode("utf-8", "replace"))
        for attempt in range(15):
            with self.subTest(step=attempt):
                run = self.step_dry_run(state)
                self.assertRefusedImage(run, "kernel " + self.link, "owned by uid 65534")
        with open(os.path.join(state, "journal.jsonl")) as f:
            self.assertNotIn('"event":"attempt"', f.read())


class InertCandidateFields(KexecBisect):
    def test_step_dry_run_prints_every_field_escaped(self):
        kernel = self.file("boot/vmlinuz" + TERMINAL, b"root's kernel, hostile name")
        initrd = self.file("boot/initrd" + TERMINAL, b"root's initrd, hostile name")
        # The bad endpoint: step verifies it first.
        name = "c2" + TERMINAL
        hostile_line = '"%s" kernel="%s" initrd="%s" append="quiet %s"' % (
            name, kernel, initrd, TERMINAL)
        state = self.path("state")
        started = self.start(state, self.candidates([self.good("c0"), self.good("c1"),
                                                     hostile_line]), bad=name)
        self.assertEqual(started.status, 0, str(started))
        self.assertNoControlBytes(started.stdout + started.stderr)
        run = self.step_dry_run(state)
        self.assertEqual(run.status, 0, str(run))
        self.assertNoControlBytes(run.stdout + run.stderr)
        # Not vacuous: step printed this candidate's name, kernel, initrd and command line.
        escaped = b"\\x1b]0;pwned\\x07\\x1b[2J"
        for field in (b"booting c2" + escaped, b"vmlinuz" + escaped, b"initrd" + escaped,
                      b"quiet " + escaped):
            self.assertIn(field, run.stdout, run.stdout)


if __name__ == "__main__":
    hostile.main()
