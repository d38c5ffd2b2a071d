"""Dumps and --root: a dump archive is read into memory, never unpacked, within limits; a
directory root is read below its descriptor, so no symlink (however fast it flips) leads out."""

import contextlib
import ctypes
import json
import os
import select
import signal
import stat
import subprocess
import sys
import tarfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402
from hostile import Member  # noqa: E402

SECRET = "kdrift_secret_root_only_7f3a"
PROC = [Member("proc/cmdline", b"quiet\n"), Member("proc/sys/kernel/osrelease", b"6.1.0\n")]


# What capture reads below /proc, each read a chance for a flip to land between check and open.
NOBODY = 65534
FLIPPED = ["cmdline", "sys/kernel/osrelease"] + ["sys/" + name.replace(".", "/") for name in (
    "fs.aio-max-nr", "kernel.dmesg_restrict", "kernel.io_uring_disabled",
    "kernel.kexec_load_disabled", "kernel.perf_event_paranoid", "kernel.sched_autogroup_enabled",
    "kernel.unprivileged_bpf_disabled", "vm.dirty_background_ratio", "vm.dirty_ratio",
    "vm.swappiness", "vm.vfs_cache_pressure")]


def write(path, text, mode):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def mode_archive(directory, with_dot=True):
    """'./' mode 0777 (when with_dot), a world-writable directory and a setuid-root binary."""
    members = ([Member("./", type=tarfile.DIRTYPE, mode=0o777)] if with_dot else []) + PROC + [
        Member("pub", type=tarfile.DIRTYPE, mode=0o777),
        Member("pub/su", b"\x7fELF" + bytes(64), mode=0o4755)]
    name = "dot-0777-setuid.tar.gz" if with_dot else "setuid.tar.gz"
    return hostile.tar_archive(os.path.join(directory, name), members)


def dot_symlink_archive(directory, target):
    """Entry '.' is a symlink to another directory: an extractor makes its temporary directory
    that symlink, and the capture reads the other directory."""
    return hostile.tar_archive(os.path.join(directory, "dot-symlink.tar.gz"),
                               [Member(".", type=tarfile.SYMTYPE, linkname=target)])


def huge_member_archive(directory):
    """About 2 MB of gzip holding a 2 GiB member."""
    return hostile.tar_archive(os.path.join(directory, "2GiB-member.tar.gz"),
                               PROC + [Member("boot/huge", size=2 << 30)])


def total_bytes_bomb(directory):
    """Five members of 15 MiB, each within the per-member limit, 75 MiB together."""
    return hostile.tar_archive(os.path.join(directory, "75MiB.tar.gz"),
                               [Member("boot/part%d" % i, size=15 << 20) for i in range(5)])


def member_count_bomb(directory, count=100_001):
    return hostile.tar_archive(os.path.join(directory, "members.tar.gz"),
                               [Member("m/%06d" % i) for i in range(count)])


def depth_bomb(directory, depth=100):
    return hostile.tar_archive(os.path.join(directory, "deep.tar.gz"),
                               PROC + [Member("/".join(["d"] * depth) + "/x", b"x")])


def manifest_bomb(directory, depth=500_000):
    """The dump's own manifest nested half a million deep: parsed, it would blow the stack."""
    return hostile.tar_archive(os.path.join(directory, "manifest-bomb.tar.gz"), PROC + [
        Member("kdrift-sysroot.json", b'{"errors": ' + hostile.nested_json(depth) + b"}")])


def hostile_inputs(directory):
    return [mode_archive(directory), mode_archive(directory, with_dot=False),
            dot_symlink_archive(directory, "/etc"), huge_member_archive(directory),
            total_bytes_bomb(directory), member_count_bomb(directory), depth_bomb(directory),
            manifest_bomb(directory)]


def exchange(a, b, directory=-100):
    """renameat2(RENAME_EXCHANGE): a and b swap places atomically, a file with a symlink or a
    directory with a symlink; relative names are looked up in the directory descriptor."""
    libc = ctypes.CDLL(None, use_errno=True)
    rename_exchange = 2
    return libc.renameat2(directory, a.encode(), directory, b.encode(), rename_exchange)


class Dump(hostile.Case):

    def setUp(self):
        super().setUp()
        self.tmpdir = self.path("tmpdir")
        os.mkdir(self.tmpdir)

    def env(self):
        return dict(os.environ, TMPDIR=self.tmpdir)

    def capture(self, root, **kwargs):
        return hostile.run_kdrift(["capture", "--root", root], env=self.env(), **kwargs)

    def watch_tmpdir(self, process, kill_on_sight=False, limit=60):
        """Polls TMPDIR until process ends; every name ever seen there, with its mode."""
        seen = {}
        deadline = time.monotonic() + limit
        while process.poll() is None and time.monotonic() < deadline:
            for base, dirs, files in os.walk(self.tmpdir):
                for name in dirs + files:
                    path = os.path.join(base, name)
                    try:
                        seen[path] = os.lstat(path).st_mode
                    except FileNotFoundError:
                        pass
            if seen and kill_on_sight:
                process.send_signal(signal.SIGKILL)
        if process.poll() is None:
            process.kill()
        self.stderr = process.communicate()[1].decode("utf-8", "replace")
        return seen

    def assertNothingWritten(self, seen):
        dangerous = {p: oct(m) for p, m in seen.items()
                     if m & stat.S_ISUID or (stat.S_ISDIR(m) and m & stat.S_IWOTH)}
        self.assertEqual(dangerous, {}, "world-writable or setuid files appeared in TMPDIR")
        self.assertEqual(sorted(seen), [], "a dump reached the disk")
        self.assertEqual(os.listdir(self.tmpdir), [], "a dump was left in TMPDIR")

    def start(self, root):
        return subprocess.Popen([hostile.KDRIFT, "capture", "--root", root], env=self.env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def test_archive_modes_and_setuid_never_reach_the_disk(self):
        for archive in (mode_archive(self.work), mode_archive(self.work, with_dot=False)):
            with self.subTest(archive=os.path.basename(archive)):
                process = self.start(archive)
                self.assertNothingWritten(self.watch_tmpdir(process))
                self.assertEqual(process.returncode, 0, self.stderr)

    def test_sigkill_mid_capture_leaves_nothing_behind(self):
        archive = mode_archive(self.work, with_dot=False)
        for delay in (0.0, 0.02, 0.1):
            with self.subTest(delay=delay):
                process = self.start(archive)
                time.sleep(delay)
                self.assertNothingWritten(self.watch_tmpdir(process, kill_on_sight=True))

    def test_dot_entry_symlink_is_refused(self):
        elsewhere = self.path("elsewhere")
        os.makedirs(os.path.join(elsewhere, "proc"))
        with open(os.path.join(elsewhere, "proc", "cmdline"), "w") as f:
            f.write(SECRET + "\n")
        run = self.capture(dot_symlink_archive(self.work, elsewhere))
        self.assertRefused(run, "member \".\"", max_rss_mib=64)
        self.assertNotIn(SECRET, run.text())

    def test_huge_member_is_refused_from_its_header(self):
        archive = huge_member_archive(self.work)
        self.assertLess(os.path.getsize(archive), 4 << 20)
        run = self.capture(archive)
        self.assertRefused(run, "member \"boot/huge\"", "2147483648 bytes", max_rss_mib=64)
        self.assertEqual(os.listdir(self.tmpdir), [])

    def test_total_bytes_bomb_is_refused_within_its_memory(self):
        run = self.capture(total_bytes_bomb(self.work))
        self.assertRefused(run, "member \"boot/part4\"", "past 67108864 bytes", max_rss_mib=128)
        self.assertEqual(os.listdir(self.tmpdir), [])

    def test_member_count_bomb_is_refused(self):
        run = self.capture(member_count_bomb(self.work))
        self.assertRefused(run, "member \"m/100000\"", "more than 100000 members", max_rss_mib=128)
        self.assertEqual(os.listdir(self.tmpdir), [])

    def test_depth_bomb_is_refused(self):
        run = self.capture(depth_bomb(self.work))
        self.assertRefused(run, "member \"d/d/d", "components deep", max_rss_mib=64)
        self.assertEqual(os.listdir(self.tmpdir), [])

    def test_deep_manifest_only_loses_error_replay(self):
        run = self.capture(manifest_bomb(self.work))
        self.assertEqual(run.status, 0, str(run))
        self.assertBounded(run, 64)
        self.assertIn("quiet", run.stdout.decode())

    def test_archive_made_by_tar_from_dot_reads_like_the_dump(self):
        """`tar -C DIR -czf X .` names the top "./" and every member "./name": that is a dump
        a user repacked, not an attack, and reads as the original."""
        fixture = os.path.join(hostile.SOURCE_DIR, "tests/fixtures/sysroots/cloud.tar.gz")
        unpacked = self.path("unpacked")
        os.makedirs(unpacked)
        subprocess.run(["tar", "-xzf", fixture, "-C", unpacked], check=True)
        repacked = self.path("repacked.tar.gz")
        subprocess.run(["tar", "-czf", repacked, "-C", unpacked, "."], check=True)
        original, again = self.capture(fixture), self.capture(repacked)
        self.assertEqual(again.status, 0, str(again))
        # The capture section says how and from where it ran, not what it found.
        found = lambda run: {k: v for k, v in json.loads(run.stdout).items() if k != "capture"}
        self.assertEqual(found(again), found(original))

    def test_a_directory_tree_of_thirty_thousand_devices_is_refused_in_bounded_time(self):
        """A user's tree can hold as many files as they care to make: 30,000 links to one
        block device cost today's main 35 s and 470 MB, and it wrote an 86 MB snapshot it
        then refused to read back."""
        fixture = os.path.join(hostile.SOURCE_DIR, "tests/fixtures/sysroots/intel-pt.tar.gz")
        tree = self.path("tree")
        os.makedirs(tree)
        subprocess.run(["tar", "-xzf", fixture, "-C", tree], check=True)
        block = os.path.join(tree, "sys", "block")
        target = os.readlink(os.path.join(block, "nvme0n1"))
        for i in range(30_000):
            os.symlink(target, os.path.join(block, "sd%d" % i))
        started = time.monotonic()
        run = hostile.run_kdrift(["capture", "--root", tree, "-o", self.path("out.json")],
                                 env=self.env(), timeout=60)
        self.assertRefused(run, "--root " + tree + ": " + tree + " holds more than 400000 "
                           "lookups and reads, far more than a capture of any host reads",
                           max_rss_mib=256)
        self.assertLess(time.monotonic() - started, 20)
        self.assertFalse(os.path.exists(self.path("out.json")), "a refused capture was written")
        # The fixture itself is well inside the budget.
        self.assertEqual(self.capture(fixture).status, 0)

    def test_xz_archive_is_read_too(self):
        archive = hostile.tar_archive(self.path("dump.tar.xz"), PROC, compression="xz")
        run = self.capture(archive)
        self.assertEqual(run.status, 0, str(run))
        self.assertIn("quiet", run.stdout.decode())

    def test_hard_link_to_a_root_only_file_in_a_users_tree_is_refused(self):
        """Where fs.protected_hardlinks is 0 a user can hard-link a root-only file into a tree
        they own: kdrift never shows through the tree what its owner could not read."""
        secret, root = self.path("root-only-secret"), self.path("root")
        write(secret, SECRET + "\n", 0o600)
        write(os.path.join(root, "proc", "sys", "kernel", "osrelease"), "6.1.0\n", 0o644)
        for base, directories, files in os.walk(root):
            for name in [base] + [os.path.join(base, entry) for entry in directories + files]:
                os.lchown(name, NOBODY, NOBODY)
        os.link(secret, os.path.join(root, "proc", "cmdline"))  # after the chown: still root's
        run = self.capture(root)
        self.assertEqual(run.status, 0, run.text())
        snapshot = run.stdout.decode("utf-8", "replace")
        self.assertNotIn(SECRET, snapshot)
        refusal = json.loads(snapshot)["kernel"]["unavailable"]["cmdline"]
        self.assertIn("uid 65534", refusal)
        self.assertIn("Permission denied", refusal)

    def test_flipping_symlinks_in_a_directory_root_never_leak(self):
        """A user who owns DIR flips proc/cmdline between a file and a symlink to a root-only
        file all along, and swaps proc for a symlink to a root-only copy holding the secret the
        moment inotify says kdrift opened a file in proc/sys/kernel (so after it checked proc)."""
        secret_dir, root = self.path("root-only"), self.path("root")
        for name in FLIPPED:
            write(os.path.join(secret_dir, name), SECRET + "\n", 0o600)
            write(os.path.join(root, "proc", name), "0\n", 0o644)
        write(os.path.join(secret_dir, "secret"), SECRET + "\n", 0o600)
        for base, _, _ in os.walk(secret_dir):
            os.chmod(base, 0o700)
        proc = os.path.join(root, "proc")
        os.symlink(os.path.join(secret_dir, "secret"), os.path.join(proc, "cmdline.flip"))
        os.symlink(secret_dir, proc + ".flip")
        stop = threading.Event()

        # The user's tree is the user's; the flips run as root only because the test does, so
        # they go through a descriptor of the real proc: a name looked up through proc while it
        # is the symlink would let root move the root-only file into the tree, which the user
        # cannot do.
        for base, directories, files in os.walk(root):
            for name in [base] + [os.path.join(base, entry) for entry in directories + files]:
                os.lchown(name, NOBODY, NOBODY)
        proc_fd = os.open(proc, os.O_RDONLY | os.O_DIRECTORY)

        def flip_cmdline():
            while not stop.is_set():
                exchange("cmdline", "cmdline.flip", proc_fd)

        flipper = threading.Thread(target=flip_cmdline)
        flipper.start()
        leaks = []
        try:
            with opened_watch(os.path.join(proc, "sys", "kernel")) as watch:
                for _ in range(20):
                    leaks += self.capture_swapping(root, proc, watch)
        finally:
            stop.set()
            flipper.join()
            os.close(proc_fd)
        self.assertEqual(leaks, [], "the root-only files reached the snapshot")

    def capture_swapping(self, root, proc, watch):
        """One capture of root, proc swapped for its symlink at the first open in the watched
        directory; the snapshot's lines that hold the secret."""
        while select.select([watch], [], [], 0)[0]:
            os.read(watch, 65536)
        process = subprocess.Popen([hostile.KDRIFT, "capture", "--root", root], env=self.env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        swapped = bool(select.select([watch], [], [], 5)[0]) and exchange(proc, proc + ".flip") == 0
        out = process.communicate(timeout=60)[0].decode("utf-8", "replace")
        if swapped:
            exchange(proc, proc + ".flip")
        self.assertIn(process.returncode, (0, 1))
        return [line for line in out.splitlines() if SECRET in line]


@contextlib.contextmanager
def opened_watch(directory):
    """An inotify descriptor reporting every open in directory."""
    libc = ctypes.CDLL(None, use_errno=True)
    in_open = 0x20
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0 or libc.inotify_add_watch(fd, directory.encode(), in_open) < 0:
        raise OSError(ctypes.get_errno(), "inotify on " + directory)
    try:
        yield fd
    finally:
        os.close(fd)


if __name__ == "__main__":
    hostile.main()
