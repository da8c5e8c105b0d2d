#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""hddmodel.py --- replay a stream of block reads through a simple HDD model.

The model (after C. Ruemmler and J. Wilkes, "An introduction to disk drive
modeling", IEEE Computer 27(3), 1994), one disk, one request at a time:

  * The disk is a line of bytes 0 .. SPAN (SPAN = the image size).  The
    head is at the byte where the last media read ended.
  * A request that starts exactly where the head is costs its transfer
    only: LENGTH / RATE.
  * Otherwise it costs a positioning time, then the transfer:
        seek(d) = SETTLE + (STROKE - SETTLE) * sqrt(d / SPAN) + HALF_ROT
    for a distance of d bytes (a square-root seek curve, plus on average
    half a rotation of latency).  A FORWARD gap of g bytes may instead be
    "spun by": the disk keeps turning and the head reaches the start after
    g / RATE; the cheaper of the two is taken.
  * A page cache (the host's): a block already read is never paid again.
    Its unit is the file system block.
  * Optionally (the "trace" mode), a drive read-ahead cache: after every
    media read ending at byte E, the drive keeps the bytes [E, E + RA) (a
    "segment"); it holds the SEGMENTS most recent segments (LRU).  A
    request wholly inside a segment, and not at the head, is served from
    it: it costs its transfer (those bytes had to come off the platter)
    but no positioning, and the head does not move.  A request within RA
    bytes ahead of the head is not looked up: it is on the head's own
    stream and pays the forward-gap rule, so that every byte that passes
    under the head is paid once, as transfer or as spin.  A media read
    that continues a segment's stream replaces that segment.

Parameters (defaults; all can be changed on the command line):
"""

import argparse
import json
import math
import os
import re
import sys

SETTLE_MS = 1.0          # track-to-track settle time, ms
STROKE_MS = 15.0         # full-stroke seek, ms (settle included)
HALF_ROT_MS = 4.17       # half a rotation at 7200 rpm = 60000/7200/2 ms
RATE = 150e6             # media transfer rate, bytes/s
RA_KIB = 512             # drive read-ahead per read (trace mode), KiB
SEGMENTS = 1             # drive cache segments (trace mode): 1 = 512 KiB
                         # total

__doc__ += """
  SETTLE_MS   = %.2f ms
  STROKE_MS   = %.2f ms
  HALF_ROT_MS = %.2f ms
  RATE        = %.0f MB/s
  RA_KIB      = %d KiB   (trace mode)
  SEGMENTS    = %d       (trace mode)

Usage:
  hddmodel.py fsck LOG --span BYTES --bs BS [--kinds KINDS]
      LOG: e2fsck's test_io log (TEST_IO_FLAGS=0x05: read_blk and
      set_blksize lines).  KINDS: 'blockorder kinds' output, to split the
      time by what was read.
  hddmodel.py strace TRACE --image FILE --span BYTES --bs BS
          [--kick-lag-ms MS]
      TRACE: an 'strace -f -y -T' log; its pread64/pwrite64 calls on FILE
      are replayed: reads through the page cache, which writes also
      fill; writes buffered in it until the next fsync/fdatasync of FILE,
      then each dirty block once, in block order (the kernel's write-back
      and elevator); a sync_file_range(SYNC_FILE_RANGE_WRITE) of FILE
      writes them the same way MS later (default: src/model/disk.h's
      MP_TOOLIO_KICK_LAG_MS); fadvise64(WILLNEED) reads.
  hddmodel.py trace TRACE --span BYTES --bs BS [--ra-kib N] [--segments N]
          [--kinds KINDS]
      TRACE: 'bench/readtrace' output (R|W OFFSET LENGTH, the kernel's
      block requests in issue order), replayed as the disk's requests:
      no page cache, reads through the drive cache, writes to the media
      (they leave no read-ahead and make what the drive kept stale).
All print one JSON object.
""" % (SETTLE_MS, STROKE_MS, HALF_ROT_MS, RATE / 1e6, RA_KIB, SEGMENTS)


class Disk:
    """The HDD model.  Positions and lengths in bytes, times in ms."""

    def __init__(self, span, bs, settle=SETTLE_MS, stroke=STROKE_MS,
                 half_rot=HALF_ROT_MS, rate=RATE, ra_bytes=0, segments=0):
        self.span = float(span)
        self.bs = bs
        self.settle = settle
        self.stroke = stroke
        self.half_rot = half_rot
        self.rate_per_ms = rate / 1000.0
        self.ra = ra_bytes
        self.nseg = segments if ra_bytes > 0 else 0
        self.segs = []          # drive cache: [start, end), MRU first
        self.head = 0
        self.cached = bytearray(span // bs + 2)   # host page cache
        self.time = 0.0
        self.xfer = 0.0         # transfer-only part of self.time
        self.bytes = 0          # bytes that came from the disk
        self.requests = 0       # requests issued by the host
        self.media = 0          # of which went to the media
        self.seeks = 0          # of which paid a seek
        self.spins = 0          # of which spun over a forward gap
        self.drive_hits = 0
        self.pc_hits = 0        # blocks found in the page cache
        self.by_kind = {}
        self.before_request = None  # called before each host read request

    def seek_ms(self, dist):
        return (self.settle + (self.stroke - self.settle) *
                math.sqrt(min(dist, self.span) / self.span) + self.half_rot)

    def _account(self, kind, ms, seek):
        k = self.by_kind.setdefault(kind, {"requests": 0, "seeks": 0,
                                           "ms": 0.0, "blocks": 0})
        k["requests"] += 1
        k["seeks"] += seek
        k["ms"] += ms

    def read(self, first, count, kind="?"):
        """A host read of COUNT blocks from block FIRST.  Blocks already
        in the page cache are skipped; the rest go to the disk as one
        request per uncached run."""
        c = self.cached
        end = first + count
        b = first
        while b < end:
            if c[b]:
                self.pc_hits += 1
                b += 1
                continue
            e = c.find(1, b, end)
            if e < 0:
                e = end
            if self.before_request:
                self.before_request()
            c[b:e] = b"\x01" * (e - b)
            self._disk_read(b * self.bs, (e - b) * self.bs, kind)
            if kind in self.by_kind:
                self.by_kind[kind]["blocks"] += e - b
            b = e

    def write(self, first, count, kind="write"):
        """A write of COUNT blocks from block FIRST: always goes to the
        disk (in the order issued: no elevator), then the blocks are in
        the page cache."""
        self.cached[first:first + count] = b"\x01" * count
        self._disk_read(first * self.bs, count * self.bs, kind)
        self.by_kind[kind]["blocks"] += count

    def _disk_read(self, pos, length, kind, write=False):
        self.requests += 1
        self.bytes += length
        xfer = length / self.rate_per_ms
        self.xfer += xfer
        # The segment the head is streaming (the RA bytes that follow it)
        # is not looked up: going on forward there is a media read that
        # spins over the gap, so that every byte that passes under the
        # head is paid once, as transfer or as spin.
        if self.nseg and not write and \
                not (self.head <= pos <= self.head + self.ra):
            for i, (s, e) in enumerate(self.segs):
                if s <= pos and pos + length <= e:
                    # Drive cache hit: transfer, no positioning, the head
                    # stays where it is.
                    self.segs.insert(0, self.segs.pop(i))
                    self.drive_hits += 1
                    self.time += xfer
                    self._account(kind, xfer, 0)
                    return
        self.media += 1
        pos_ms = 0.0
        seek = 0
        if pos != self.head:
            d = abs(pos - self.head)
            pos_ms = self.seek_ms(d)
            seek = 1
            if pos > self.head:
                spin = d / self.rate_per_ms
                if spin < pos_ms:
                    pos_ms = spin
                    seek = 0
                    self.spins += 1
            self.seeks += seek
        self.time += pos_ms + xfer
        self._account(kind, pos_ms + xfer, seek)
        end = pos + length
        self.head = end
        if self.nseg and write:
            # A write leaves no read-ahead behind, and whatever the drive
            # kept of those bytes is stale.
            self.segs = [(s, e) for (s, e) in self.segs
                         if not (pos < e and s < end)]
        elif self.nseg:
            # This read's stream: drop the segment it continues (or
            # overlaps), then keep the bytes that follow it.
            self.segs = [(s, e) for (s, e) in self.segs
                         if not (s <= pos <= e or (pos < e and s < end))]
            self.segs.insert(0, (end, end + self.ra))
            del self.segs[self.nseg:]

    def result(self):
        return {
            "time_ms": round(self.time, 3),
            "floor_ms": round(self.xfer, 3),
            "bytes": self.bytes,
            "requests": self.requests,
            "media_requests": self.media,
            "seeks": self.seeks,
            "spins": self.spins,
            "drive_cache_hits": self.drive_hits,
            "page_cache_hits": self.pc_hits,
            "by_kind": {k: {"requests": v["requests"], "seeks": v["seeks"],
                            "blocks": v["blocks"], "ms": round(v["ms"], 3)}
                        for k, v in sorted(self.by_kind.items())},
            "model": {"settle_ms": self.settle, "stroke_ms": self.stroke,
                      "half_rotation_ms": self.half_rot,
                      "rate_MBps": self.rate_per_ms / 1000.0,
                      "span_bytes": int(self.span), "block_size": self.bs,
                      "drive_ra_kib": self.ra // 1024,
                      "drive_segments": self.nseg},
        }


def load_kinds(path, nblocks):
    """'blockorder kinds' output -> (list of names, bytearray of codes)."""
    names = ["data"]
    codes = {"data": 0}
    arr = bytearray(nblocks + 1)
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            s, n, k = line.split()
            s, n = int(s), int(n)
            if k not in codes:
                codes[k] = len(names)
                names.append(k)
            c = codes[k]
            e = min(s + n, nblocks)
            if s < e:
                arr[s:e] = bytes([c]) * (e - s)
    return names, arr


READ_RE = re.compile(r"Test_io: read_blk(?:64)?\((\d+), (-?\d+)\)")
BLKSZ_RE = re.compile(r"Test_io: set_blksize\((\d+)\)")


def cmd_fsck(a):
    disk = Disk(a.span, a.bs, a.settle, a.stroke, a.half_rot, a.rate * 1e6)
    nblocks = a.span // a.bs + 1
    names, kinds = (None, None)
    if a.kinds:
        names, kinds = load_kinds(a.kinds, nblocks)
    chan_bs = 1024                   # test_io's initial channel block size
    nreads = 0
    with open(a.log, errors="replace") as f:
        for line in f:
            m = READ_RE.match(line)
            if m:
                blk, cnt = int(m.group(1)), int(m.group(2))
                off = blk * chan_bs
                length = -cnt if cnt < 0 else cnt * chan_bs
                first = off // a.bs
                last = (off + length + a.bs - 1) // a.bs
                last = min(last, nblocks)
                if last <= first:
                    continue
                nreads += 1
                if kinds is not None:
                    # Split the read where the kind changes, so that the
                    # time is charged to what was read.
                    b = first
                    while b < last:
                        k = kinds[b]
                        e = b + 1
                        while e < last and kinds[e] == k:
                            e += 1
                        disk.read(b, e - b, names[k])
                        b = e
                else:
                    disk.read(first, last - first)
                continue
            m = BLKSZ_RE.match(line)
            if m:
                chan_bs = int(m.group(1))
    r = disk.result()
    r["log_reads"] = nreads
    json.dump(r, sys.stdout)
    print()


def cmd_trace(a):
    """Replay a block-request trace ('bench/readtrace': R|W OFFSET LENGTH
    per line, in issue order) as the disk's own requests: no page cache
    (the kernel's requests are what reached the disk), reads through the
    drive's read-ahead cache, writes to the media."""
    disk = Disk(a.span, a.bs, a.settle, a.stroke, a.half_rot, a.rate * 1e6,
                a.ra_kib * 1024, a.segments)
    nblocks = a.span // a.bs + 1
    names, kinds = (None, None)
    if a.kinds:
        names, kinds = load_kinds(a.kinds, nblocks)
    reads = writes = 0
    with open(a.trace) as f:
        for line in f:
            t = line.split()
            if len(t) != 3 or t[0] not in ("R", "W"):
                continue
            off, length = int(t[1]), int(t[2])
            kind = "write" if t[0] == "W" else "data"
            if kinds is not None and t[0] == "R":
                b = off // a.bs
                kind = names[kinds[b]] if b < nblocks else "data"
            disk._disk_read(off, length, kind, write=(t[0] == "W"))
            if t[0] == "W":
                writes += 1
            else:
                reads += 1
            disk.by_kind[kind]["blocks"] += length // a.bs
    r = disk.result()
    r["reads"] = reads
    r["writes"] = writes
    json.dump(r, sys.stdout)
    print()


STRACE_RE = re.compile(
    r"^(?:\d+\s+)?(pread64|pwrite64)\((\d+)<([^>]*)>, .*, (\d+), (\d+)\)"
    r"\s+=\s+(-?\d+)(?:\s+<[\d.]+>)?\s*$")


FSYNC_RE = re.compile(r"^(?:\d+\s+)?(fsync|fdatasync)\((\d+)<([^>]*)>\)")
KICK_RE = re.compile(r"^(?:\d+\s+)?sync_file_range\((\d+)<([^>]*)>, .*"
                     r"SYNC_FILE_RANGE_WRITE\)\s+=\s+0")
WILLNEED_RE = re.compile(r"^(?:\d+\s+)?fadvise64\((\d+)<([^>]*)>, (\d+), "
                         r"(\d+), POSIX_FADV_WILLNEED\)\s+=\s+0")


def cmd_strace(a):
    """Replay the pread64/pwrite64 calls on one file from an
    'strace -f -y' log: the I/O of a tool (e3metapack) on the same model
    disk as e2fsck's log.  Only the image's own I/O is replayed (an undo
    file is taken to be on another disk).  Writes are buffered, as the
    kernel's page cache does for a file opened without O_DIRECT: they go
    to the disk at the next fsync/fdatasync of the image (and at the end),
    each distinct block once, in block order (the elevator); a read of a
    written block is served by the page cache.  A sync_file_range(...,
    SYNC_FILE_RANGE_WRITE) of the image (a kick) writes them the same
    way once --kick-lag-ms of the disk's time has passed, before the
    first read request after that; a fadvise64(..., POSIX_FADV_WILLNEED)
    reads its range as a read would.  With --kinds (blockorder
    kinds of the image before the run) each request is counted under
    "read " or "write " and the kind its first block had before the
    run (a free block counts as data)."""
    disk = Disk(a.span, a.bs, a.settle, a.stroke, a.half_rot, a.rate * 1e6)
    nblocks = a.span // a.bs + 1
    image = os.path.realpath(a.image)
    calls = 0
    dirty = set()
    names, codes = (load_kinds(a.kinds, nblocks) if a.kinds
                    else (None, None))

    def kind(rw, b):
        return rw if names is None else "%s %s" % (rw, names[codes[b]])

    def writeback():
        run = None
        for b in sorted(dirty):
            if run and b == run[0] + run[1]:
                run[1] += 1
                continue
            if run:
                disk.write(run[0], run[1], kind("write", run[0]))
            run = [b, 1]
        if run:
            disk.write(run[0], run[1], kind("write", run[0]))
        dirty.clear()
        kick[0] = None

    kick = [None]       # when the last kick's writes go out

    def due():
        if kick[0] is not None and disk.time >= kick[0]:
            writeback()
    disk.before_request = due

    with open(a.trace, errors="replace") as f:
        for line in f:
            m = FSYNC_RE.match(line)
            if m and m.group(3) == image:
                writeback()
                continue
            m = KICK_RE.match(line)
            if m and m.group(2) == image:
                if kick[0] is None:
                    kick[0] = disk.time + a.kick_lag_ms
                continue
            m = WILLNEED_RE.match(line)
            if m and m.group(2) == image:
                off, n = int(m.group(3)), int(m.group(4))
                first = off // a.bs
                last = min((off + n + a.bs - 1) // a.bs, nblocks)
                if last > first:
                    disk.read(first, last - first, kind("read", first))
                continue
            m = STRACE_RE.match(line)
            if not m or m.group(3) != image:
                continue
            ret = int(m.group(6))
            if ret <= 0:
                continue
            off = int(m.group(5))
            first = off // a.bs
            last = min((off + ret + a.bs - 1) // a.bs, nblocks)
            if last <= first:
                continue
            calls += 1
            if m.group(1) == "pread64":
                disk.read(first, last - first, kind("read", first))
            else:
                disk.cached[first:last] = b"\x01" * (last - first)
                dirty.update(range(first, last))
    writeback()
    r = disk.result()
    r["calls"] = calls
    json.dump(r, sys.stdout)
    print()


def kick_lag_ms():
    """The model's MP_TOOLIO_KICK_LAG_MS (src/model/disk.h, the one place
    it is set), or 0 where the source tree is not beside this file."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "src", "model", "disk.h")
    try:
        for line in open(path):
            t = line.split()
            if len(t) == 3 and t[:2] == ["#define", "MP_TOOLIO_KICK_LAG_MS"]:
                return float(t[2])
    except (OSError, ValueError):
        pass
    return 0.0


def main():
    p = argparse.ArgumentParser(
        description="Replay block reads through an HDD model.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("fsck", "strace", "trace"):
        s = sub.add_parser(name)
        s.add_argument("input")
        s.add_argument("--span", type=int, required=True,
                       help="disk size in bytes (the image size)")
        s.add_argument("--bs", type=int, required=True,
                       help="file system block size")
        s.add_argument("--settle", type=float, default=SETTLE_MS)
        s.add_argument("--stroke", type=float, default=STROKE_MS)
        s.add_argument("--half-rot", type=float, default=HALF_ROT_MS)
        s.add_argument("--rate", type=float, default=RATE / 1e6,
                       help="MB/s")
        s.add_argument("--kinds")
        if name == "strace":
            s.add_argument("--image", required=True,
                           help="the file whose I/O is replayed")
            s.add_argument("--kick-lag-ms", type=float,
                           default=kick_lag_ms(),
                           help="how late a kick's writes go out "
                           "(default: src/model/disk.h's "
                           "MP_TOOLIO_KICK_LAG_MS)")
        if name == "trace":
            s.add_argument("--ra-kib", type=int, default=RA_KIB)
            s.add_argument("--segments", type=int, default=SEGMENTS)
    a = p.parse_args()
    if a.cmd == "fsck":
        a.log = a.input
        cmd_fsck(a)
    elif a.cmd == "strace":
        a.trace = a.input
        cmd_strace(a)
    else:
        a.trace = a.input
        cmd_trace(a)


if __name__ == "__main__":
    main()
