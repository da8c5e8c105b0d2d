#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""workload.py --- deterministic file trees and aging for the benchmark.

  workload.py tree DIR --files N --seed S [--min B] [--max B]
                  [--median B] [--sigma X] [--dirs D] [--budget B]
                  [--tind B] [--pin-max]
      Make DIR (for mke2fs -d): N regular files whose sizes are
      log-normal (median, sigma) clipped to [min, max], spread over D
      subdirectories, plus, with --tind, one extra file of that many bytes
      (big enough to need a triple-indirect block).  If the sizes add up
      to more than --budget bytes, the largest are shrunk until they fit.
      Every block of every file is non-zero and different (a header
      naming the seed, file and block starts every 1 KiB); times are fixed.

  workload.py age DIR --seed S [--writers W] [--rounds R] [--fill-hi F]
                  [--fill-lo F] [--fill-end F] [--median B] [--sigma X]
      Age the file system mounted at DIR: W writers append to their own
      files in small chunks, taking turns (one write() each, so their
      blocks are allocated interleaved, as with concurrent appenders);
      when the volume is F_hi full, random files are deleted down to
      F_lo; R such rounds, then it is refilled to F_end.  One process,
      one seeded RNG: the same seed makes the same sequence of calls.

  workload.py dirage DIR --seed S [--writers W] [--dirs D] [--files N]
                  [--logs L] [--log-bytes B] [--median B] [--sigma X]
                  [--delete F]
      Grow a directory-heavy tree on the file system mounted at DIR, as
      W concurrent writers would: D directories made as the files come
      (each under a random existing one, up to 6 deep), N small files
      (log-normal sizes) written in one-write() turns between the
      writers, so directory blocks are allocated among the data; a file
      goes to a directory picked with a heavy tail (a few hold hundreds
      of entries: multi-block, htree-indexed); L log files appended a
      chunk each turn to B bytes in all (indirect blocks).  Then a
      fraction F of the small files is deleted and as many written
      again (directories reuse their holes and grow).

  workload.py drop FILE...
      Drop FILE's pages from the page cache (fsync + POSIX_FADV_DONTNEED),
      for cold-cache timings, without touching the rest of the machine.

  workload.py copy SRC DST
      Copy SRC to DST keeping its holes, each data extent's blocks
      fallocated on DST before they are written, and sync DST: a large
      image with ~10^5 scattered blocks copied with cp --sparse=always
      can fail fsync() with ENOSPC on an ext4 host mounted with
      resv_strict (delayed allocation), the way fallocated blocks do not.

  workload.py stats DIR
      Print count and size statistics of the regular files under DIR.
"""

import argparse
import math
import os
import random
import sys

EPOCH = 1600000000
HDR = 1024          # a header every HDR bytes (the smallest block size)


class Filler:
    """Deterministic non-zero data: a seeded random 1 MiB base, with a
    header "<tag>:<offset>" written every HDR bytes."""

    def __init__(self, seed):
        rnd = random.Random("base:%s" % seed)
        b = rnd.randbytes(1 << 20)
        self.base = b.replace(b"\x00", b"\x5a")   # no zero byte at all

    def chunk(self, tag, off, n):
        """N bytes of file TAG from byte offset OFF (OFF % HDR == 0)."""
        out = bytearray()
        while n > 0:
            k = min(n, len(self.base))
            buf = bytearray(self.base[:k])
            for p in range(0, k, HDR):
                h = ("%s:%d:" % (tag, off + p)).encode()
                buf[p:p + len(h)] = h[:max(0, min(len(h), k - p))]
            out += buf
            off += k
            n -= k
        return bytes(out)


def lognormal_size(rnd, median, sigma, lo, hi):
    s = int(math.exp(rnd.gauss(math.log(median), sigma)))
    return max(lo, min(hi, s))


def write_file(path, size, tag, filler, step=1 << 20):
    with open(path, "wb") as f:
        off = 0
        while off < size:
            n = min(step, size - off)
            f.write(filler.chunk(tag, off, n))
            off += n
    os.utime(path, (EPOCH, EPOCH))


def cmd_tree(a):
    rnd = random.Random("tree:%s" % a.seed)
    sizes = [lognormal_size(rnd, a.median, a.sigma, a.min, a.max)
             for _ in range(a.files)]
    if sizes and a.pin_max:
        # The largest file gets the maximum size, so the range is covered.
        sizes[max(range(len(sizes)), key=lambda j: sizes[j])] = a.max
    if a.budget:
        total = sum(sizes) + (a.tind or 0)
        while total > a.budget:
            i = max(range(len(sizes)), key=lambda j: sizes[j])
            cut = min(sizes[i] // 2, total - a.budget)
            if cut <= 0:
                break
            sizes[i] -= cut
            total -= cut
    filler = Filler(a.seed)
    os.makedirs(a.dir, exist_ok=True)
    dirs = []
    for d in range(a.dirs):
        p = os.path.join(a.dir, "d%02d" % d)
        os.makedirs(p, exist_ok=True)
        dirs.append(p)
    for i, size in enumerate(sizes):
        d = dirs[i % len(dirs)] if dirs else a.dir
        write_file(os.path.join(d, "f%05d" % i), size,
                   "%s/%d" % (a.seed, i), filler)
    if a.tind:
        write_file(os.path.join(a.dir, "tind"), a.tind, "%s/tind" % a.seed,
                   filler)
    for d in dirs + [a.dir]:
        os.utime(d, (EPOCH, EPOCH))
    print("tree: %d files, %d bytes, largest %d, median %d" %
          (len(sizes) + (1 if a.tind else 0), sum(sizes) + (a.tind or 0),
           max(sizes + [a.tind or 0]), sorted(sizes)[len(sizes) // 2]))


def used_frac(path):
    st = os.statvfs(path)
    return 1.0 - st.f_bfree / st.f_blocks


def cmd_age(a):
    rnd = random.Random("age:%s" % a.seed)
    filler = Filler(a.seed)
    chunks = [4096, 8192, 16384, 32768, 65536, 131072]
    dirs = []
    for d in range(a.dirs):
        p = os.path.join(a.dir, "d%02d" % d)
        os.makedirs(p, exist_ok=True)
        dirs.append(p)
    live = []               # paths of closed files, in creation order
    serial = [0]
    writers = [None] * a.writers    # [fd, path, target, written, tag]

    def new_file():
        n = serial[0]
        serial[0] += 1
        path = os.path.join(dirs[rnd.randrange(len(dirs))], "a%06d" % n)
        size = lognormal_size(rnd, a.median, a.sigma, 4096, a.max)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        return [fd, path, size, 0, "%s/a%d" % (a.seed, n)]

    def close(w):
        os.close(w[0])
        live.append(w[1])

    def fill_to(frac):
        check = 0
        while True:
            for i in range(len(writers)):
                w = writers[i]
                if w is None:
                    w = writers[i] = new_file()
                n = min(rnd.choice(chunks), w[2] - w[3])
                os.write(w[0], filler.chunk(w[4], w[3], n))
                w[3] += n
                if w[3] >= w[2]:
                    close(w)
                    writers[i] = None
            check += 1
            if check % 16 == 0 and used_frac(a.dir) >= frac:
                return

    def delete_to(frac):
        while live and used_frac(a.dir) > frac:
            for _ in range(8):
                if not live:
                    break
                p = live.pop(rnd.randrange(len(live)))
                os.unlink(p)
            os.sync()

    for r in range(a.rounds):
        fill_to(a.fill_hi)
        delete_to(a.fill_lo)
        print("age: round %d: %d files, %.1f%% used" %
              (r + 1, len(live), 100 * used_frac(a.dir)), flush=True)
    fill_to(a.fill_end)
    for i, w in enumerate(writers):
        if w is not None:
            close(w)
            writers[i] = None
    for p in live:
        os.utime(p, (EPOCH, EPOCH))
    os.sync()
    print("age: %d files, %.1f%% used" % (len(live), 100 * used_frac(a.dir)))


def cmd_dirage(a):
    rnd = random.Random("dirage:%s" % a.seed)
    filler = Filler(a.seed)
    dirs = [(a.dir, 0)]             # (path, depth)
    cum = [1.0]                     # heavy-tailed pick of a directory
    live = []
    serial = [0, 0]
    logs = []
    for i in range(a.logs):
        path = os.path.join(a.dir, "log%d" % i)
        logs.append([os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                             0o644), path, 0, "%s/log%d" % (a.seed, i)])
    log_each = a.log_bytes // max(1, a.logs)
    turns = max(1, 2 * a.files)     # log chunks spread over the writes
    log_chunk = max(4096, (log_each // turns) & ~4095)

    def new_dir():
        parent, depth = dirs[rnd.randrange(len(dirs))]
        if depth >= 6:
            parent, depth = a.dir, 0
        serial[1] += 1
        p = os.path.join(parent, "d%05d" % serial[1])
        os.mkdir(p)
        dirs.append((p, depth + 1))
        cum.append(cum[-1] + rnd.paretovariate(1.1))

    def new_file():
        if len(dirs) - 1 < a.dirs and rnd.random() < a.dirs / a.files:
            new_dir()
        d = rnd.choices(dirs, cum_weights=cum)[0][0]
        serial[0] += 1
        n = serial[0]
        path = os.path.join(d, "f%06d.dat" % n)
        size = lognormal_size(rnd, a.median, a.sigma, 1, 1 << 20)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        return [fd, path, size, 0, "%s/f%d" % (a.seed, n)]

    def write_files(count):
        writers = [None] * a.writers
        made = 0
        while made < count or any(writers):
            for i in range(len(writers)):
                w = writers[i]
                if w is None:
                    if made >= count:
                        continue
                    w = writers[i] = new_file()
                    made += 1
                n = min(rnd.choice((4096, 8192, 16384)), w[2] - w[3])
                os.write(w[0], filler.chunk(w[4], w[3], n))
                w[3] += n
                if w[3] >= w[2]:
                    os.close(w[0])
                    live.append(w[1])
                    writers[i] = None
                lg = logs[rnd.randrange(len(logs))] if logs else None
                if lg and lg[2] < log_each:
                    os.write(lg[0], filler.chunk(lg[3], lg[2], log_chunk))
                    lg[2] += log_chunk

    # Every directory wanted is made by the time the files are written.
    write_files(a.files)
    while len(dirs) - 1 < a.dirs:
        new_dir()
    ndel = int(len(live) * a.delete)
    for _ in range(ndel):
        os.unlink(live.pop(rnd.randrange(len(live))))
    os.sync()
    write_files(ndel)
    for lg in logs:
        while lg[2] < log_each:
            os.write(lg[0], filler.chunk(lg[3], lg[2], log_chunk))
            lg[2] += log_chunk
        os.close(lg[0])
        live.append(lg[1])
    for p in live:
        os.utime(p, (EPOCH, EPOCH))
    for p, _ in reversed(dirs):
        os.utime(p, (EPOCH, EPOCH))
    os.sync()
    print("dirage: %d directories, %d files, %.1f%% used" %
          (len(dirs) - 1, len(live), 100 * used_frac(a.dir)))


def cmd_drop(a):
    for p in a.files:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        except OSError:
            pass
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)


def data_extents(fd, size):
    """(offset, length) of each data extent of FD, by SEEK_DATA/HOLE."""
    off = 0
    while off < size:
        try:
            start = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            return
        end = os.lseek(fd, start, os.SEEK_HOLE)
        yield start, end - start
        off = end


def cmd_copy(a):
    src = os.open(a.src, os.O_RDONLY)
    size = os.fstat(src).st_size
    dst = os.open(a.dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.ftruncate(dst, size)
    for start, n in data_extents(src, size):
        os.posix_fallocate(dst, start, n)
        done = 0
        while done < n:
            buf = os.pread(src, min(n - done, 8 << 20), start + done)
            if not buf:
                sys.exit("%s: short read at %d" % (a.src, start + done))
            os.pwrite(dst, buf, start + done)
            done += len(buf)
    os.fsync(dst)
    os.close(dst)
    os.close(src)


def cmd_stats(a):
    sizes = []
    for root, _, files in os.walk(a.dir):
        for f in files:
            p = os.path.join(root, f)
            if os.path.isfile(p) and not os.path.islink(p):
                sizes.append(os.path.getsize(p))
    sizes.sort()
    if not sizes:
        print("0 files")
        return
    print("%d files, %d bytes, min %d, median %d, max %d" %
          (len(sizes), sum(sizes), sizes[0], sizes[len(sizes) // 2],
           sizes[-1]))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tree")
    t.add_argument("dir")
    t.add_argument("--files", type=int, required=True)
    t.add_argument("--seed", default="1")
    t.add_argument("--min", type=int, default=4096)
    t.add_argument("--max", type=int, default=64 << 20)
    t.add_argument("--median", type=int, default=128 << 10)
    t.add_argument("--sigma", type=float, default=1.8)
    t.add_argument("--dirs", type=int, default=16)
    t.add_argument("--budget", type=int, default=0)
    t.add_argument("--tind", type=int, default=0)
    t.add_argument("--pin-max", action="store_true",
                   help="make the largest file exactly --max bytes")
    c = sub.add_parser("copy")
    c.add_argument("src")
    c.add_argument("dst")
    g = sub.add_parser("age")
    g.add_argument("dir")
    g.add_argument("--seed", default="1")
    g.add_argument("--writers", type=int, default=6)
    g.add_argument("--rounds", type=int, default=3)
    g.add_argument("--dirs", type=int, default=8)
    g.add_argument("--fill-hi", type=float, default=0.80)
    g.add_argument("--fill-lo", type=float, default=0.55)
    g.add_argument("--fill-end", type=float, default=0.75)
    g.add_argument("--median", type=int, default=256 << 10)
    g.add_argument("--sigma", type=float, default=1.6)
    g.add_argument("--max", type=int, default=64 << 20)
    g = sub.add_parser("dirage")
    g.add_argument("dir")
    g.add_argument("--seed", default="1")
    g.add_argument("--writers", type=int, default=4)
    g.add_argument("--dirs", type=int, default=4000)
    g.add_argument("--files", type=int, default=39000)
    g.add_argument("--logs", type=int, default=4)
    g.add_argument("--log-bytes", type=int, default=256 << 20)
    g.add_argument("--median", type=int, default=8 << 10)
    g.add_argument("--sigma", type=float, default=1.2)
    g.add_argument("--delete", type=float, default=0.3)
    d = sub.add_parser("drop")
    d.add_argument("files", nargs="+")
    s = sub.add_parser("stats")
    s.add_argument("dir")
    a = p.parse_args()
    {"tree": cmd_tree, "age": cmd_age, "drop": cmd_drop, "copy": cmd_copy,
     "stats": cmd_stats, "dirage": cmd_dirage}[a.cmd](a)


if __name__ == "__main__":
    main()
