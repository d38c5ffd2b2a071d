"""What every attack test shares: running kdrift as an attacker's victim would, measuring it, and
building the hostile inputs (archives, deep documents, devices) the tests feed it.

Each test_*.py is a unittest module run by ctest (label "security") through main() below, which
exits 77 when every case was skipped so that ctest reports the file as skipped, not passed.
A module may define hostile_inputs(directory) -> list of paths: generate.py calls them all.
"""

import contextlib
import dataclasses
import hashlib
import io
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import unittest

SOURCE_DIR = os.environ.get(
    "KDRIFT_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
KDRIFT = os.environ.get("KDRIFT", os.path.join(SOURCE_DIR, "build", "kdrift"))
TIME = "/usr/bin/time"


@dataclasses.dataclass
class Run:
    args: list
    status: int  # None when the run was killed at its timeout
    stdout: bytes
    stderr: bytes
    max_rss_kib: int  # peak resident set, from GNU time's %M
    timed_out: bool = False

    def text(self):
        return (self.stdout + self.stderr).decode("utf-8", "replace")

    def __str__(self):
        return "kdrift %s -> status %s, %d KiB peak RSS%s\n%s" % (
            " ".join(map(str, self.args)), self.status, self.max_rss_kib,
            " (timed out)" if self.timed_out else "", self.stderr.decode("utf-8", "replace")[-2000:])


def run_kdrift(args, stdin=None, timeout=120, cwd=None, env=None):
    """Runs kdrift under GNU time; stdin is bytes or None. Never raises on a bad status."""
    with tempfile.NamedTemporaryFile(prefix="kdrift-time.") as rss:
        command = [TIME, "-f", "%M", "-o", rss.name, KDRIFT] + [str(a) for a in args]
        try:
            done = subprocess.run(command, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  timeout=timeout, cwd=cwd, env=env,
                                  stdin=None if stdin is not None else subprocess.DEVNULL)
        except subprocess.TimeoutExpired as expired:
            return Run(args, None, expired.stdout or b"", expired.stderr or b"", 0, timed_out=True)
        with open(rss.name) as f:
            lines = [l for l in f.read().split() if l.isdigit()]
        return Run(args, done.returncode, done.stdout, done.stderr, int(lines[-1]) if lines else 0)


def is_root():
    return os.geteuid() == 0


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Case(unittest.TestCase):
    """Assertions every attack test makes."""

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="kdrift-security.")
        self.addCleanup(shutil.rmtree, self.work, True)

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def require_root(self, why):
        if not is_root():
            self.skipTest("needs root: " + why)

    def assertRefused(self, run, *mentions, status=2, max_rss_mib=256):
        """kdrift stopped with status, said each of mentions, and stayed within max_rss_mib."""
        self.assertFalse(run.timed_out, str(run))
        self.assertEqual(run.status, status, str(run))
        for mention in mentions:
            self.assertIn(mention, run.text(), str(run))
        self.assertBounded(run, max_rss_mib)

    def assertBounded(self, run, max_rss_mib):
        self.assertGreater(run.max_rss_kib, 0, str(run))
        self.assertLessEqual(run.max_rss_kib, max_rss_mib * 1024, str(run))

    def assertNoControlBytes(self, data):
        """No terminal control byte but newline and tab in data (bytes)."""
        bad = sorted({b for b in data if (b < 0x20 and b not in (0x09, 0x0A)) or b == 0x7F})
        self.assertEqual(bad, [], "control bytes reach the terminal: %r" % bad)


# --- hostile input builders -------------------------------------------------------------------

@dataclasses.dataclass
class Member:
    """One tar member as an attacker writes it: any name, type, mode, owner or size."""
    name: str
    data: bytes = b""
    type: bytes = tarfile.REGTYPE
    mode: int = 0o644
    linkname: str = ""
    uid: int = 0
    gid: int = 0
    size: int = None  # for a ZeroStream member: its declared (and real) size


class ZeroStream(io.RawIOBase):
    """size zero bytes without holding them: a huge member that compresses to almost nothing."""

    def __init__(self, size):
        self.left = size

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def tar_archive(path, members, compression="gz"):
    """Writes members (Member) into path as tar.<compression> ("gz", "xz", "" for plain tar)."""
    mode = "w:" + compression if compression else "w"
    with tarfile.open(path, mode, format=tarfile.GNU_FORMAT) as archive:
        for member in members:
            info = tarfile.TarInfo(member.name)
            info.type = member.type
            info.mode = member.mode
            info.uid, info.gid = member.uid, member.gid
            info.linkname = member.linkname
            if member.size is not None:
                info.size = member.size
                archive.addfile(info, io.BufferedReader(ZeroStream(member.size), 1 << 20))
            elif member.type in (tarfile.REGTYPE, tarfile.AREGTYPE):
                info.size = len(member.data)
                archive.addfile(info, io.BytesIO(member.data))
            else:
                archive.addfile(info)
    return path


def nested_json(depth, inner="0"):
    """A JSON array nested depth deep: [[[...0...]]]."""
    return ("[" * depth + inner + "]" * depth).encode()


def make_fifo(path):
    os.mkfifo(path, 0o600)
    return path


@contextlib.contextmanager
def loop_device(image, read_only=False):
    """A loop device over image, detached afterwards (needs root)."""
    command = ["losetup", "--find", "--show"] + (["--read-only"] if read_only else []) + [image]
    device = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "--detach", device], check=False)


def sparse_image(path, size_mib):
    with open(path, "wb") as f:
        f.truncate(size_mib << 20)
    return path


def ext4_image(path, size_mib=32):
    """A file holding a real ext4 filesystem: the victim whose sha256 must not change."""
    sparse_image(path, size_mib)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "nodiscard", path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def main():
    """unittest.main, with exit status 77 when every case was skipped (ctest: skipped)."""
    program = unittest.main(verbosity=2, exit=False)
    result = program.result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun > 0 and len(result.skipped) == result.testsRun:
        sys.exit(77)
    sys.exit(0)
