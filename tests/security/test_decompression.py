"""Decompression is bounded by memory and by work, not by what headers declare: a dump archive
(--root) costs at most kdrift's decoder memory limit (128 MiB) and 4 GiB of decompressed tar
stream, whatever its xz/lzma dictionary, zstd window, tar sizes or sparse map say."""

import bz2
import gzip
import lzma
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402
from hostile import Member  # noqa: E402

PROC = [Member("proc/cmdline", b"quiet\n"), Member("proc/sys/kernel/osrelease", b"6.1.0\n")]
GIB = 1 << 30
# What a refusal that decompresses nothing may take.
MAX_SECONDS = 20
BUDGET = 4 * GIB  # kDumpArchiveLimits.decompressed_bytes


def seconds_per_gib(compression):
    """What decompressing a GiB of zeros costs this machine now, with the same libraries (zlib,
    libbz2, liblzma) through Python: a quarter GiB timed. The work tests are bounded relative to
    it, since a shared machine can be several times slower than an idle one."""
    packed = hostile.compress(bytes(hostile.ZEROS_PIECE), compression)
    decompress = {"gz": gzip.decompress, "bz2": bz2.decompress, "xz": lzma.decompress}[compression]
    started = time.monotonic()
    for _ in range(GIB // 4 // hostile.ZEROS_PIECE):
        decompress(packed)
    return (time.monotonic() - started) * 4


def xz_dictionary_bomb(directory):
    """1 GiB of zeros in a member no capture reads, its xz block declaring a 4 GiB dictionary."""
    return hostile.xz_declaring_dictionary(os.path.join(directory, "4GiB-dictionary.tar.xz"),
                                           PROC + [Member("var/log/zeros", size=GIB)], 40)


def lzma_dictionary_bomb(directory):
    return hostile.lzma_declaring_dictionary(os.path.join(directory, "2GiB-dictionary.tar.lzma"),
                                             PROC + [Member("var/log/zeros", b"z" * 4096)], 2 * GIB)


def sparse_size_bomb(directory, compression, stored):
    return hostile.sparse_size_bomb(
        os.path.join(directory, "sparse-%dGiB.tar.%s" % (stored // GIB, compression)),
        compression, stored, PROC)


def hostile_inputs(directory):
    return [xz_dictionary_bomb(directory), lzma_dictionary_bomb(directory),
            sparse_size_bomb(directory, "bz2", 64 * GIB),
            hostile.sparse_map_bomb(os.path.join(directory, "sparse-map.tar.gz"), "gz", 1 << 21,
                                    PROC)]


class Decompression(hostile.Case):

    def capture(self, root, timeout=120):
        started = time.monotonic()
        run = hostile.run_kdrift(["capture", "--root", root], timeout=timeout)
        run.seconds = time.monotonic() - started
        return run

    def assertRefusedInTime(self, run, *mentions, max_rss_mib=256, max_seconds=MAX_SECONDS):
        self.assertRefused(run, *mentions, max_rss_mib=max_rss_mib)
        self.assertLess(run.seconds, max_seconds, str(run))

    def assertRefusedAtTheBudget(self, archive, compression, *mentions):
        """Refused after the budget's worth of decompression (twice this machine's cost of it,
        plus 10 s), not after what the archive holds."""
        bound = BUDGET / GIB * seconds_per_gib(compression) * 2 + 10
        run = self.capture(archive, timeout=max(90, 2 * bound))
        self.assertRefusedInTime(run, *mentions, max_seconds=bound)

    def test_xz_declaring_a_4_GiB_dictionary_is_refused_before_decoding(self):
        run = self.capture(xz_dictionary_bomb(self.work), timeout=60)
        self.assertRefusedInTime(
            run, "xz data needs 4097 MiB of memory to decompress (its dictionary), more than "
            "the 128 MiB kdrift allows", max_rss_mib=64)

    def test_lzma_declaring_a_2_GiB_dictionary_is_refused_before_decoding(self):
        run = self.capture(lzma_dictionary_bomb(self.work))
        self.assertRefusedInTime(run, "lzma data needs 2049 MiB of memory", "the 128 MiB kdrift",
                                 max_rss_mib=64)

    def test_zstd_frame_declaring_a_2_GiB_window_is_refused(self):
        if shutil.which("zstd") is None:
            self.skipTest("needs the zstd program to write the frame")
        archive = hostile.zstd_declaring_window(self.path("2GiB-window.tar.zst"), PROC, 31)
        run = self.capture(archive)
        self.assertRefusedInTime(run, "zstd", "128 MiB", max_rss_mib=64)

    def test_sparse_member_declaring_1_byte_costs_what_is_decompressed(self):
        """A 1-byte real size over 64 GiB stored (16 GiB for gzip, whose zeros pack only 1000:1):
        the header's word was what the skipped bytes were counted by."""
        for compression, stored in (("bz2", 64 * GIB), ("xz", 64 * GIB), ("gz", 16 * GIB)):
            with self.subTest(compression=compression):
                self.assertRefusedAtTheBudget(
                    sparse_size_bomb(self.work, compression, stored), compression,
                    "member \"var/log/sparse\"", "brings the archive past 4 GiB decompressed")

    def test_sparse_map_bomb_is_refused_within_its_memory(self):
        """1 GiB of sparse map (44 million entries), which libarchive held in 2 GiB."""
        archive = hostile.sparse_map_bomb(self.path("sparse-map.tar.gz"), "gz", 1 << 21, PROC)
        run = self.capture(archive, timeout=60)
        self.assertRefusedInTime(run, "the member after \"proc/sys/kernel/osrelease\"",
                                 "take more than 4 MiB", max_rss_mib=64)

    def test_gzip_bomb_is_refused_at_the_budget(self):
        """Plain members, sizes told truthfully: 3 GiB of zeros twice, in 6 MB of gzip."""
        pieces = hostile.tar_header("var/log/a", 3 * GIB), hostile.tar_header("var/log/b", 3 * GIB)
        head = b"".join(hostile.tar_member_header(m) for m in PROC)
        archive = hostile.concatenated(self.path("bomb.tar.gz"), "gz", [
            (head + pieces[0], 1), (bytes(hostile.ZEROS_PIECE), 48), (pieces[1], 1),
            (bytes(hostile.ZEROS_PIECE), 48), (bytes(1024), 1)])
        self.assertRefusedAtTheBudget(archive, "gz", "member \"var/log/b\"",
                                      "brings the archive past 4 GiB decompressed")

    def test_real_dumps_read_in_every_format(self):
        """What tar, xz, lzma, zstd and lz4 write is read as before: the limits are far above."""
        plain = hostile.tar_archive(self.path("dump.tar"), PROC, compression="")
        formats = {"gz": ["gzip", "-9"], "bz2": ["bzip2", "-9"], "xz": ["xz", "-9e"],
                   "lzma": ["lzma", "-9"], "zst": ["zstd", "-q", "-19"], "lz4": ["lz4", "-q", "-9"]}
        for suffix, command in formats.items():
            with self.subTest(format=suffix):
                if shutil.which(command[0]) is None:
                    self.skipTest("needs the %s program" % command[0])
                archive = self.path("dump.tar." + suffix)
                with open(plain, "rb") as source, open(archive, "wb") as out:
                    subprocess.run(command + ["-c"], stdin=source, stdout=out, check=True)
                run = self.capture(archive)
                self.assertEqual(run.status, 0, str(run))
                self.assertIn("quiet", run.stdout.decode())
                self.assertBounded(run, 256)


if __name__ == "__main__":
    hostile.main()
