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
import signal
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
        # Its own process group, killed whole at the timeout: killing only GNU time would leave
        # kdrift running on (a decompression bomb for minutes, on the baseline).
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                              env=env, start_new_session=True,
                              stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL
                              ) as process:
            try:
                stdout, stderr = process.communicate(stdin, timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                stdout, stderr = process.communicate()
                return Run(args, None, stdout, stderr, 0, timed_out=True)
        with open(rss.name) as f:
            lines = [l for l in f.read().split() if l.isdigit()]
        return Run(args, process.returncode, stdout, stderr, int(lines[-1]) if lines else 0)


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


# --- decompression bombs (test_decompression.py) ------------------------------------------------

def tar_number(value, width):
    """A tar header's numeric field: octal when it fits, else GNU's base-256 (first byte 0x80)."""
    if value < 8 ** (width - 1):
        return b"%0*o\0" % (width - 1, value)
    return b"\x80" + value.to_bytes(width - 1, "big")


def tar_header(name, size, typeflag=b"0", realsize=None, sparse=(), extended=False):
    """One 512-byte tar header as an attacker writes it. typeflag b"S" makes an old GNU sparse
    member: up to 4 (offset, numbytes) pairs of its map in the header, realsize its file size
    (the size field counts only the bytes stored), extended saying more map blocks follow."""
    header = bytearray(512)
    header[0:len(name)] = name.encode()
    header[100:108] = b"0000644\0"
    header[108:116] = header[116:124] = b"0000000\0"
    header[124:136] = tar_number(size, 12)
    header[136:148] = tar_number(0, 12)
    header[156:157] = typeflag
    header[257:265] = b"ustar  \0"  # GNU's magic, which the 'S' type needs
    for i, (offset, numbytes) in enumerate(sparse):
        header[386 + 24 * i:398 + 24 * i] = tar_number(offset, 12)
        header[398 + 24 * i:410 + 24 * i] = tar_number(numbytes, 12)
    header[482] = 1 if extended else 0
    if realsize is not None:
        header[483:495] = tar_number(realsize, 12)
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % sum(header)
    return bytes(header)


def tar_member_header(member):
    """The header of a plain member, with its data padded to 512 bytes."""
    padding = bytes(-len(member.data) % 512)
    return tar_header(member.name, len(member.data)) + member.data + padding


def compress(data, compression):
    """One complete stream: "gz", "bz2", "xz" (1 MiB dictionary), "zst" (the zstd program)."""
    import bz2, gzip, lzma  # noqa: E401 (only the bombs need them)
    if compression == "gz":
        return gzip.compress(data, 6)
    if compression == "bz2":
        return bz2.compress(data, 9)
    if compression == "xz":
        return lzma.compress(data, format=lzma.FORMAT_XZ,
                             filters=[{"id": lzma.FILTER_LZMA2, "preset": 0, "dict_size": 1 << 20}])
    if compression == "zst":
        return subprocess.run(["zstd", "-q", "-c", "-3", "--no-check"], input=data,
                              stdout=subprocess.PIPE, check=True).stdout
    raise ValueError(compression)


def concatenated(path, compression, pieces):
    """Writes pieces, (bytes, count) pairs, as one compressed stream of their concatenation: each
    distinct piece compressed once, repeated count times, which gzip members, bzip2 and xz
    streams and zstd frames all allow. Gigabytes of tar stream cost kilobytes to megabytes."""
    with open(path, "wb") as f:
        for data, count in pieces:
            packed = compress(data, compression)
            for _ in range(count):
                f.write(packed)
    return path


ZEROS_PIECE = 64 << 20


def sparse_size_bomb(path, compression, stored, members=()):
    """members, then an old GNU sparse member of a not-held path whose real size is 1 byte over
    a map of stored bytes, all stored (zeros): its header declares 1 byte, skipping it
    decompresses stored bytes. stored is a multiple of 64 MiB."""
    header = b"".join(tar_member_header(m) for m in members) + tar_header(
        "var/log/sparse", stored, b"S", realsize=1, sparse=[(0, stored)])
    return concatenated(path, compression, [
        (header, 1), (bytes(ZEROS_PIECE), stored // ZEROS_PIECE), (bytes(1024), 1)])


def sparse_map_bomb(path, compression, map_blocks, members=()):
    """members, then an old GNU sparse member whose map runs on for map_blocks extension blocks
    of 21 entries each: libarchive holds every entry, about 2 bytes of memory a byte of map."""
    entry = tar_number(1, 12) + tar_number(1, 12)
    block = entry * 21 + b"\x01" + bytes(7)  # 21 entries, "another block follows"
    last = entry * 21 + bytes(8)
    header = b"".join(tar_member_header(m) for m in members) + tar_header(
        "var/log/map", 512, b"S", realsize=2, sparse=[(0, 1)] * 4, extended=True)
    chunk = 1 << 17  # extension blocks per repeated piece: 64 MiB
    return concatenated(path, compression, [
        (header, 1), (block * chunk, map_blocks // chunk), (last + bytes(512) + bytes(1024), 1)])


def crc32_le(data):
    import zlib  # noqa: E401
    return (zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "little")


def lzma_tar(path, members, container, codec):
    """A tar of members compressed by liblzma in container (lzma.FORMAT_XZ or FORMAT_ALONE) with
    codec and a 1 MiB dictionary, the header left for the caller to lie in."""
    import lzma  # noqa: E401
    plain = tar_archive(path + ".tar", members, compression="")
    with open(plain, "rb") as source, lzma.open(path, "wb", format=container, filters=[
            {"id": codec, "preset": 0, "dict_size": 1 << 20}]) as packed:
        shutil.copyfileobj(source, packed, 1 << 20)
    os.unlink(plain)


def xz_declaring_dictionary(path, members, dictionary_byte):
    """A tar.xz of members, written with a 1 MiB dictionary, whose block header then declares
    LZMA2 dictionary byte dictionary_byte (40: 4 GiB - 1), its CRC32 recomputed: liblzma
    allocates what the header declares, however little the data needs."""
    import lzma  # noqa: E401
    lzma_tar(path, members, lzma.FORMAT_XZ, lzma.FILTER_LZMA2)
    with open(path, "r+b") as f:
        head = bytearray(f.read(1024))
        start = 12  # after the stream header
        size = (head[start] + 1) * 4
        flags, at = head[start + 1], start + 2
        for present in (0x40, 0x80):  # compressed and uncompressed sizes, as VLIs
            if flags & present:
                while head[at] & 0x80:
                    at += 1
                at += 1
        assert head[at:at + 2] == b"\x21\x01", "LZMA2 with one property byte expected"
        head[at + 2] = dictionary_byte
        head[start + size - 4:start + size] = crc32_le(bytes(head[start:start + size - 4]))
        f.seek(0)
        f.write(head[:start + size])
    return path


def lzma_declaring_dictionary(path, members, dictionary):
    """A tar.lzma (legacy format) of members whose header declares a dictionary of dictionary
    bytes (written with 1 MiB)."""
    import lzma  # noqa: E401
    lzma_tar(path, members, lzma.FORMAT_ALONE, lzma.FILTER_LZMA1)
    with open(path, "r+b") as f:
        f.seek(1)
        f.write(dictionary.to_bytes(4, "little"))
    return path


def zstd_declaring_window(path, members, window_log):
    """A tar.zst of members whose frame declares a window of 2^window_log bytes (the zstd
    program writes a frame without content size from a pipe, so the window byte is the 5th)."""
    plain = tar_archive(path + ".tar", members, compression="")
    with open(plain, "rb") as source:
        packed = bytearray(compress(source.read(), "zst"))
    os.unlink(plain)
    assert packed[4] & 0xE0 == 0, "a frame with a window descriptor and no content size expected"
    packed[5] = (window_log - 10) << 3
    with open(path, "wb") as f:
        f.write(packed)
    return path
