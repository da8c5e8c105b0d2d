#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""realfsck.py --- bench/realfsck's per-case figures and its report.

  realfsck.py case --log REQUESTS --lines N0 N1 --kinds KINDS --bs BS ...
      The requests bench/emudisk served between log lines N0 and N1 (the
      run), as one JSON object: wall time, busy time (the sum of the
      modelled costs), bytes, and the busy time split by what was read.
      A request's positioning is charged to the kind of its first block
      (see asked_for), its transfer to the kinds of its blocks, byte for
      byte (so that the
      data blocks the kernel's read-ahead brought along with an inode
      table are charged as such).  Kinds: bench/blockorder kinds of the
      image (before the run); a block in no metadata run is "data": file
      data or free space, which e2fsck never asks for -- only read-ahead
      reads it.
  realfsck.py origins CASE.requests.gz --kinds KINDS [--bs BS]
      A case's "data (RA)" split by where each read-ahead stream began
      (the kind its first request asked for: after packing, inode tables
      and metaclusters), as a markdown table.
  realfsck.py toolpred RES... --binary E3MP --stock VOL=IMAGE... [--doc FILE]
      e3metapack's own run: the table of the tool-raRA-sSEGS.json cases
      measured in the RES directories (a later one's case of the same
      name wins), then for each VOL `E3MP -n --json IMAGE` (the report's
      .predicted.tool_ms) against each of them; with --doc, written into
      FILE between its "bench:toolpred" markers.
  realfsck.py render RES [--doc FILE] --binary E3MP --top DIR
      Tables of every case in RES; with --doc, written into FILE between
      the "bench:realfsck" markers, through bench/render (FILE must hold
      them).  With --block layouts: the layouts compared alone (below).  With --headline FILE..., the one headline (the largest
      volume measured: e2fsck -fn's busy time stock -> packed at each
      read_ahead_kb, e3metapack's own run) into each FILE between its
      "bench:headline" markers; with --advice FILE..., what to set before
      checking a packed volume (from the E3MP_RF_FSCKOPTS cases) between
      its "bench:advice" markers.  The layouts compared (copies packed
      with other options: bench/rflayout.py) go between FILE's
      "bench:layouts" markers.  With --block NAME (not "realfsck"): the
      cases of the --volumes named only, under a shorter introduction
      naming --cmd, into FILE's "bench:NAME" block (a volume measured
      apart from the matrix); the headline as above, neither the layouts
      nor the advice.
"""

import argparse
import bisect
import collections
import glob
import gzip
import json
import os
import platform
import re
import subprocess
import sys
import textwrap
import time

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hddmodel  # noqa: E402  (one set of constants: RATE)
import rflayout  # noqa: E402  (the layouts compared, issue 31)

# What each blockorder kind is reported as, in the report's column order.
GROUPS = [
    ("sb", "sb+gdt"), ("resize", "sb+gdt"),
    ("bbitmap", "bitmaps"), ("ibitmap", "bitmaps"),
    ("itable", "itable"),
    ("ind", "ind"), ("extent", "ind"),
    ("dir", "dir"),
    ("journal", "journal"),
    ("ea", "other"), ("symlink", "other"),
    ("data", "data (RA)"),
]
COLUMNS = ["sb+gdt", "bitmaps", "itable", "ind", "dir", "journal", "other",
           "data (RA)", "write"]
GROUP_OF = dict(GROUPS)
PAGE = 4096             # the kernel's page: its block requests' unit


def read_requests(path, n0, n1):
    """The log's lines N0 < line number <= N1: (rw, off, len, cost_ms)."""
    out = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if i <= n0:
                continue
            if i > n1:
                break
            t = line.split()
            if len(t) == 5 and t[0] in ("R", "W"):
                out.append((t[0], int(t[1]), int(t[2]), float(t[4])))
    return out


def rereads(reqs):
    """(seconds, bytes) of the reads in REQS ((rw, off, len, cost_ms), in
    order) whose every page the run had read or written before: a page
    cache that kept what it was given would have served them.  On a host
    shared with other benches, another one's drop_caches makes them."""
    seen = set()
    ms = nbytes = 0
    for rw, off, length, cost in reqs:
        pages = range(off // PAGE, (off + length + PAGE - 1) // PAGE)
        if rw == "R" and all(p in seen for p in pages):
            ms += cost
            nbytes += length
        seen.update(pages)
    return ms / 1000.0, nbytes


def cmd_case(a):
    reqs = read_requests(a.log, a.lines[0], a.lines[1])
    names, kinds = load_kinds(a.kinds)
    rate_per_ms = hddmodel.RATE / 1000.0
    ms = collections.defaultdict(float)
    nbytes = collections.defaultdict(int)
    busy = rbytes = wbytes = 0
    for rw, off, length, cost in reqs:
        busy += cost
        if rw == "W":
            wbytes += length
            ms["write"] += cost
            nbytes["write"] += length
            continue
        rbytes += length
        xfer = min(cost, length / rate_per_ms)
        first, end = off // a.bs, (off + length - 1) // a.bs + 1
        counts = kinds.count(first, end)
        ms[GROUP_OF[names[asked_for(kinds, first, end, a.bs)]]] += \
            cost - xfer
        for c, n in counts.items():
            g = GROUP_OF[names[c]]
            ms[g] += xfer * n / (end - first)
            nbytes[g] += n * a.bs
    stats = json.load(open(a.stats)) if os.path.exists(a.stats) else {}
    tail = open(a.out_tail, errors="replace").read().strip().splitlines()
    json.dump({
        "wall_s": round(a.wall_ns / 1e9, 3),
        "busy_s": round(busy / 1000.0, 3),
        "read_bytes": rbytes, "write_bytes": wbytes,
        "requests": len(reqs), "rc": a.rc, "ra_kb": a.ra,
        "segments": a.segs, "cmd": a.cmd, "out": tail[-1] if tail else "",
        "late_s": stats.get("late_s"),
        "reread_s": round(rereads(reqs)[0], 3),
        "reread_bytes": rereads(reqs)[1],
        "by_kind_s": {k: round(v / 1000.0, 3) for k, v in ms.items()},
        "by_kind_bytes": dict(nbytes),
    }, sys.stdout)
    print()


def cmd_origins(a):
    """The data read only by read-ahead (cmd_case's "data (RA)"), split by
    where each read-ahead stream began: a request that starts where an
    earlier one ended continues that one's stream, and the stream is
    named by the kind asked for by its first request (an inode table, a
    metacluster's indirect block...)."""
    names, kinds = load_kinds(a.kinds)
    with gzip.open(a.requests, "rt") as f:
        reqs = [(t[0], int(t[1]), int(t[2]), float(t[4]))
                for t in (line.split() for line in f)
                if len(t) == 5 and t[0] in ("R", "W")]
    rate_per_ms = hddmodel.RATE / 1000.0
    root_at, ms, nbytes = {}, collections.Counter(), collections.Counter()
    for rw, off, length, cost in reqs:
        if rw == "W":
            continue
        first, end = off // a.bs, (off + length - 1) // a.bs + 1
        asked = GROUP_OF[names[asked_for(kinds, first, end, a.bs)]]
        root = root_at.pop(off, asked)
        root_at[off + length] = root
        xfer = min(cost, length / rate_per_ms)
        n = kinds.count(first, end).get(0, 0)
        ms[root] += xfer * n / (end - first) + \
            (cost - xfer if asked == "data (RA)" else 0)
        nbytes[root] += n * a.bs
    print("| stream began on | data (RA) MiB | busy s |\n|---|---:|---:|")
    for k in sorted(nbytes, key=lambda k: -nbytes[k]):
        if nbytes[k]:
            print("| %s | %.1f | %.2f |" % (k, nbytes[k] / 2.0 ** 20,
                                          ms[k] / 1000.0))


def cmd_median(a):
    """The run of median busy time among a case's runs (the lower middle
    one of an even count), with every run's busy time."""
    runs = [json.load(open(p)) for p in a.runs]
    order = sorted(range(len(runs)), key=lambda i: runs[i]["busy_s"])
    r = runs[order[(len(runs) - 1) // 2]]
    r["runs_busy_s"] = [x["busy_s"] for x in runs]
    json.dump(r, sys.stdout)
    print()


def asked_for(kinds, first, end, bs):
    """The kind a request's positioning is charged to: its first block's,
    or, where blocks are smaller than the kernel's 4 KiB page, the first
    metadata block's in its first page (the page-aligned request for a
    1 KiB indirect block starts at whatever shares its page)."""
    for b in range(first, min(end, first + max(1, PAGE // bs))):
        k = kinds.kind(b)
        if k:
            return k
    return kinds.kind(first)


class Kinds:
    """Block -> kind code, from blockorder's sorted, disjoint runs (no
    array as large as the volume: a 1 TiB one has 2^28 blocks)."""

    def __init__(self, runs):
        self.runs = sorted(runs)
        self.starts = [r[0] for r in self.runs]

    def kind(self, b):
        i = bisect.bisect_right(self.starts, b) - 1
        if i >= 0 and b < self.runs[i][0] + self.runs[i][1]:
            return self.runs[i][2]
        return 0

    def count(self, lo, hi):
        """Blocks [lo, hi) per kind code (0: data)."""
        out = collections.Counter()
        i = max(bisect.bisect_right(self.starts, lo) - 1, 0)
        pos = lo
        while i < len(self.runs) and self.runs[i][0] < hi:
            s, n, c = self.runs[i]
            i += 1
            if s + n <= pos:
                continue
            if s > pos:
                out[0] += s - pos
                pos = s
            e = min(s + n, hi)
            out[c] += e - pos
            pos = e
        if pos < hi:
            out[0] += hi - pos
        return out


def load_kinds(path):
    names, codes, runs = ["data"], {"data": 0}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            s, n, k = line.split()
            if k not in codes:
                codes[k] = len(names)
                names.append(k)
            runs.append((int(s), int(n), codes[k]))
    return names, Kinds(runs)


# Issue 29's measurement, for comparison: (volume, read_ahead_kb) ->
# gain, or "before -> after".
ISSUE = {("mixed", 128): "8.1x", ("mixed", 2560): "5.4x",
         ("aged", 128): "3.6x", ("aged", 2560): "3.4x",
         ("tind1k", 128): "3.4x", ("tind1k", 2560): "2.9x",
         ("256G", 128): "after 48 s", ("256G", 2560): "387 s -> 52 s (7.5x)"}

CASE_RE = re.compile(r"^(stock|packed)-(f[np])-ra(\d+)-s(\d+)\.json$")
# A case with other e2fsck settings (E3MP_RF_FSCKOPTS); no suffix: default.
OPT_RE = re.compile(r"^(stock|packed)-(f[np])-ra(\d+)-s(\d+)"
                    r"(?:-([a-z0-9]+))?\.json$")
# What each setting is, in a table and in the advice; ADMIN: the ones an
# admin can choose without changing e2fsck.
OPTS = {"default": "default options",
        "nora": "`-E readahead_kb=0`",
        "onecpu": "bitmaps read by one thread (`bench/onecpu.so`)"}
ADMIN = ("default", "nora")


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "?"


def vol_order(v):
    order = ["mixed", "aged", "tind1k", "ext2", "dirs"]
    if v in order:
        return (0, order.index(v), 0)
    m = re.match(r"(\d+)([GT])$", v)
    return (1, 0, int(m.group(1)) * (1024 if m.group(2) == "T" else 1)) \
        if m else (2, 0, v)


def load(res):
    vols = {}
    for path in glob.glob(os.path.join(res, "*", "*.json")):
        vol, name = path.split(os.sep)[-2:]
        try:
            vols.setdefault(vol, {})[name] = json.load(open(path))
        except ValueError:
            pass
    return {v: vols[v] for v in sorted(vols, key=vol_order)}


def gain(a, b):
    return "%.1fx" % (a / b) if a and b else "-"


def check_table(vols):
    out = ["| volume | image | model (hddmodel.py fsck) s | emulated "
           "disk, busy s | difference | requests | wall s |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for vol, c in vols.items():
        for var in ("stock", "packed"):
            m, e = c.get("model-%s.json" % var), c.get("check-%s.json" % var)
            if not m or not e:
                continue
            ms = m["time_ms"] / 1000.0
            out.append("| %s | %s | %.2f | %.2f | %+.1f %% | %d | %.2f |" % (
                vol, var, ms, e["busy_s"],
                100.0 * (e["busy_s"] - ms) / ms if ms else 0,
                e["requests"], e["wall_s"]))
    return out if len(out) > 2 else []


def settings(vols):
    """The settings measured on a stock image too (the others, packed
    only, are in the settings table)."""
    s = set()
    for c in vols.values():
        for name in c:
            m = CASE_RE.match(name)
            if m and m.group(1) == "stock":
                s.add((m.group(2), int(m.group(3)), int(m.group(4))))
    return sorted(s, key=lambda x: (x[0], -x[2], x[1]))


def setting_table(vols, mode, ra, segs):
    out = ["| volume | stock: wall s | busy s | MiB read | packed: wall s "
           "| busy s | MiB read | gain, wall | gain, busy | model gain "
           "| issue 29 |", "|---|" + "---:|" * 9 + "---|"]
    key = "%%s-%s-ra%d-s%d.json" % (mode, ra, segs)
    for vol, c in vols.items():
        s, p = c.get(key % "stock"), c.get(key % "packed")
        if not s and not p:
            continue
        ms, mp = c.get("model-stock.json"), c.get("model-packed.json")
        row = [vol]
        for r in (s, p):
            row += (["%.2f" % r["wall_s"], "%.2f" % r["busy_s"],
                     "%.0f" % (r["read_bytes"] / 2.0 ** 20)] if r
                    else ["-"] * 3)
        row.append(gain(s and s["wall_s"], p and p["wall_s"]))
        row.append(gain(s and s["busy_s"], p and p["busy_s"]))
        row.append(gain(ms and ms["time_ms"], mp and mp["time_ms"]))
        row.append(ISSUE.get((vol, ra), "") if mode == "fn" else "")
        out.append("| " + " | ".join(row) + " |")
        for r in (s, p):
            if r and r["rc"] not in (0, 1):
                out.append("| | (exit %d: %s) |" % (r["rc"], r["out"]))
    return out


def summary_table(vols):
    """One row per volume: busy stock -> packed (gain) per -fn setting."""
    sets = [x for x in settings(vols) if x[0] == "fn"]
    if not sets:
        return []
    out = ["| volume | " + " | ".join(
        "read_ahead_kb %d, %d seg." % (ra, segs) for _, ra, segs in sets) +
        " |", "|---|" + "---:|" * len(sets)]
    for vol, c in vols.items():
        row = []
        for mode, ra, segs in sets:
            key = "%%s-%s-ra%d-s%d.json" % (mode, ra, segs)
            s, p = c.get(key % "stock"), c.get(key % "packed")
            row.append("%.1f s -> %.1f s (%s)" % (
                s["busy_s"], p["busy_s"], gain(s["busy_s"], p["busy_s"]))
                if s and p else "-")
        if any(r != "-" for r in row):
            out.append("| %s | %s |" % (vol, " | ".join(row)))
    return out


def kinds_table(vols, mode, ra, segs):
    out = ["| volume | image | " + " | ".join(COLUMNS) +
           " | data (RA) MiB | late s | re-read s |",
           "|---|---|" + "---:|" * (len(COLUMNS) + 3)]
    key = "%%s-%s-ra%d-s%d.json" % (mode, ra, segs)
    for vol, c in vols.items():
        for var in ("stock", "packed"):
            r = c.get(key % var)
            if not r:
                continue
            k = r["by_kind_s"]
            rr = r.get("reread_s")
            out.append("| %s | %s | %s | %.0f | %.2f | %s |" % (
                vol, var, " | ".join("%.2f" % k[g] if g in k else "-"
                                     for g in COLUMNS),
                r["by_kind_bytes"].get("data (RA)", 0) / 2.0 ** 20,
                r.get("late_s") or 0, "-" if rr is None else "%.2f" % rr))
    return out


def err(pred, meas):
    return "%+.1f %%" % (100.0 * (pred - meas) / meas) if meas else "-"


def predict_table(vols, segs=16):
    """The report's prediction (-n --json --read-ahead=RA on the stock
    image) against the emulated disk's busy time, e2fsck -fn.  (The run's
    own time: the bench:toolpred table.)"""
    out = ["| volume | read_ahead_kb | stock: busy s | predicted | error "
           "| packed: busy s | predicted | error |", "|---|---:|" + "---:|" * 6]
    worst = 0.0
    for vol, c in vols.items():
        names = [n for n in c if re.match(r"predict-ra\d+\.json$", n)]
        for name in sorted(names, key=lambda n: int(re.sub(r"\D", "", n))):
            ra = int(re.sub(r"\D", "", name))
            pr = c[name].get("predicted", {})
            key = "%%s-fn-ra%d-s%d.json" % (ra, segs)
            s, p = c.get(key % "stock"), c.get(key % "packed")
            pb = pr.get("before_ms", {}).get("total", 0) / 1000.0
            pa = pr.get("after_ms", {}).get("total", 0) / 1000.0
            row = [vol, str(ra)]
            for r, x in ((s, pb), (p, pa)):
                row += (["%.2f" % r["busy_s"], "%.2f" % x,
                         err(x, r["busy_s"])] if r and x else ["-"] * 3)
                if r and x:
                    worst = max(worst, abs(x - r["busy_s"]) / r["busy_s"])
            out.append("| " + " | ".join(row) + " |")
    return (out, worst) if len(out) > 2 else ([], 0)


def tool_table(cases, vols):
    """The runs of @cases (cmd_toolpred's: per volume, by (read_ahead_kb,
    segments)), volumes in the order of @vols."""
    out = ["| volume | read_ahead_kb, segments | wall s | busy s | "
           "MiB read | MiB written | requests | late s |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for vol in vols:
        for (ra, segs), r in sorted(cases[vol].items()):
            out.append("| %s | %d, %d | %.2f | %.2f | %.0f | %.0f | %d | "
                       "%.2f |" % (
                           vol, ra, segs, r["wall_s"], r["busy_s"],
                           r["read_bytes"] / 2.0 ** 20,
                           r["write_bytes"] / 2.0 ** 20, r["requests"],
                           r.get("late_s") or 0))
    return out if len(out) > 2 else []


def opt_cases(vols, mode="fn"):
    """{vol: {(variant, ra, segs, opt): case}} for the volumes measured
    with a setting other than the default."""
    out = {}
    for vol, c in vols.items():
        d = {}
        for name, r in c.items():
            m = OPT_RE.match(name)
            if m and m.group(2) == mode:
                d[(m.group(1), int(m.group(3)), int(m.group(4)),
                   m.group(5) or "default")] = r
        if any(k[3] != "default" for k in d):
            out[vol] = d
    return out


def opts_table(vols):
    """Every -fn case of the volumes measured with other settings."""
    out = ["| volume | image | drive segments | read_ahead_kb | e2fsck | "
           "wall s | busy s | bitmaps s | itable s | ind s | data (RA) s "
           "| data (RA) MiB | requests |",
           "|---|---|---:|---:|---|" + "---:|" * 8]
    order = list(OPTS)
    for vol, d in opt_cases(vols).items():
        # The images and drive segments measured with other settings.
        keep = {(k[0], k[2]) for k in d if k[3] != "default"}
        d = {k: r for k, r in d.items() if (k[0], k[2]) in keep}
        for k in sorted(d, key=lambda k: (k[0] != "stock", -k[2], k[1],
                                          order.index(k[3])
                                          if k[3] in order else 99)):
            r, b = d[k], d[k]["by_kind_s"]
            out.append("| %s | %s | %d | %d | %s | %.2f | %.2f | %s |"
                       " %.0f | %d |" % (
                           vol, k[0], k[2], k[1], OPTS.get(k[3], k[3]),
                           r["wall_s"], r["busy_s"],
                           " | ".join("%.2f" % b.get(g, 0) for g in
                                      ("bitmaps", "itable", "ind",
                                       "data (RA)")),
                           r["by_kind_bytes"].get("data (RA)", 0) /
                           2.0 ** 20, r["requests"]))
    return out if len(out) > 2 else []


def setra(ra):
    return "blockdev --setra %d" % (ra * 2)


def advice(vols, segs=16):
    """Markdown: the setting an admin can choose (ADMIN, read_ahead_kb)
    that keeps the disk busy least, over the packed volumes measured with
    several (the geometric mean of the ratios), against the kernel's
    default here (the largest read_ahead_kb measured, default options);
    then where the time goes, and what one bitmap thread would give."""
    per, full = {}, {}
    for vol, d in opt_cases(vols).items():
        p = {(k[1], k[3]): r for k, r in d.items()
             if k[0] == "packed" and k[2] == segs}
        if p:
            full[vol] = p
            per[vol] = {k: r["busy_s"] for k, r in p.items()}
    if not per:
        return ""
    ras = sorted({ra for p in per.values() for ra, _ in p})
    base = (ras[-1], "default")
    cands = [(ra, o) for ra in ras for o in ADMIN
             if all((ra, o) in p for p in per.values())]
    if base not in cands:
        return ""
    score = {}
    for c in cands:
        x = 1.0
        for p in per.values():
            x *= p[c] / p[base]
        score[c] = x ** (1.0 / len(per))
    best = min(cands, key=lambda c: (score[c], c != base))
    vs = sorted(per, key=vol_order)

    def name(c):
        return "`read_ahead_kb` %d%s" % (
            c[0], " with `-E readahead_kb=0`" if c[1] == "nora" else "")

    def figs(a, b):
        return "; ".join("%s %.2f s -> %.2f s (%+.0f %%)" % (
            v, per[v][a], per[v][b],
            100.0 * (per[v][b] - per[v][a]) / per[v][a]) for v in vs)
    lines = []
    if best == base:
        lines.append("Before checking a packed volume, nothing measured "
                     "beats e2fsck's defaults at %s." % name(base))
    else:
        lines.append(
            "Before checking a packed volume, look at the disk's "
            "read-ahead (`cat /sys/block/sdX/queue/read_ahead_kb`; this "
            "kernel gives a rotational loop device %d).  If it is not %d, "
            "set %d for the check (`%s /dev/sdX`, in 512-byte sectors)%s, "
            "and set it back after.  The disk's busy time of the real "
            "`e2fsck -fn` on packed copies (%d drive segments), %s -> "
            "%s: %s." % (
                base[0], best[0], best[0], setra(best[0]),
                " and run `e2fsck -E readahead_kb=0`" if best[1] == "nora"
                else "; e2fsck's own options stay as they are",
                segs, name(base), name(best), figs(base, best)))
        lines[-1] += ("  One run each; the wall times, in the table, "
                      "vary with the host's load.")
        if best[0] == 0:
            n = ["%s %d -> %d" % (v, full[v][base]["requests"],
                                  full[v][best]["requests"]) for v in vs]
            lines.append(
                "With read-ahead 0 the kernel sends every 4 KiB page as "
                "its own request (%s requests): a disk with a higher cost "
                "per command than the model's loses part of the gain." %
                "; ".join(n))
    # (the other settings measured are in PERFORMANCE.md's table)
    # Where the time goes on the largest volume, and one bitmap thread.
    big = vs[-1]
    r = full[big][best]
    bm = r["by_kind_s"].get("bitmaps", 0)
    it = r["by_kind_s"].get("itable", 0)
    one = [ra for ra in ras if all((ra, "onecpu") in p for p in
                                   per.values())]
    text = ("Where it goes: on %s at %s, the block and inode bitmaps take "
            "%.1f s of %.1f s, the inode tables %.1f s.  libext2fs reads "
            "the bitmaps with as many threads as the machine has CPUs "
            "(`sysconf(_SC_NPROCESSORS_CONF)`, %d here; `taskset` does "
            "not change it), and they take turns at the head; e2fsck 1.47 "
            "has no option or variable to read them with one." % (
                big, name(best), bm, r["busy_s"], it, os.cpu_count()))
    if best[0] in one:
        # One thread against the same read_ahead_kb with e2fsck's
        # defaults (the shim changes nothing else).
        d = (best[0], "default")
        o = full[big][(best[0], "onecpu")]
        text += ("  With one thread (an `LD_PRELOAD` shim, "
                 "`bench/onecpu.so`; e2fsck's defaults otherwise) the "
                 "bitmaps on %s take %.1f s instead of %.1f s; e2fsck, on "
                 "every volume at %s: %s." % (
                     big, o["by_kind_s"].get("bitmaps", 0),
                     full[big][d]["by_kind_s"].get("bitmaps", 0),
                     name(d), figs(d, (best[0], "onecpu"))))
    lines.append(text)
    lines.append("(`bench/realfsck`, %s; the table is in "
                 "docs/PERFORMANCE.md.)" % time.strftime(
                     "%Y-%m-%d", time.gmtime()))
    return "\n\n".join(textwrap.fill(x, 72, break_on_hyphens=False)
                       for x in lines)


def headline(vols, res, roff):
    """The one headline: the largest volume with e2fsck -fn measured stock
    and packed (16 drive segments, else the most), at each read_ahead_kb,
    and e3metapack's own run there."""
    best = None
    for vol, c in vols.items():
        got = {}
        for name in c:
            m = CASE_RE.match(name)
            if m and m.group(1) == "stock" and m.group(2) == "fn":
                ra, segs = int(m.group(3)), int(m.group(4))
                pk = c.get("packed-fn-ra%d-s%d.json" % (ra, segs))
                if pk:
                    got.setdefault(segs, []).append(
                        (ra, c[name]["busy_s"], pk["busy_s"]))
        if got:
            segs = 16 if 16 in got else max(got)
            best = (vol, segs, sorted(got[segs]))
    if not best:
        return ""
    vol, segs, figs = best
    c = vols[vol]
    code = (lambda t: "\\fB%s\\fR" % t.replace("-", "\\-")) if roff \
        else (lambda t: "`%s`" % t)
    path = (lambda t: "\\fI%s\\fR" % t) if roff else (lambda t: t)
    m = re.match(r"(\d+)([GT])$", vol)
    what = ("an aged %s %siB ext3 volume" % (m.group(1), m.group(2))
            if m else "the bench image %s" % code(vol))
    ind = ""
    mk = os.path.join(os.path.dirname(os.path.abspath(res)), "img",
                      vol + ".mkbig")
    if os.path.exists(mk):
        kv = dict(x.split() for x in open(mk) if len(x.split()) == 2)
        n = sum(int(kv.get(k, 0)) for k in ("ind", "dind", "tind"))
        ind = " (%d indirect blocks, made by %s)" % (n, code("bench/mkbig"))
    rpm = round(60000.0 / (2 * hddmodel.HALF_ROT_MS), -2)
    parts = ["%.1f s before packing, %.1f s after (%.1fx) with %s %d" % (
        s, p, s / p, code("read_ahead_kb"), ra) for ra, s, p in figs]
    text = ("On %s%s, the real %s with its default options, on an emulated "
            "%.0f rpm disk (%s, %d drive segments, caches cold), keeps the "
            "disk busy %s." % (what, ind, code("e2fsck -fn"), rpm,
                               code("bench/emudisk"), segs,
                               "; ".join(parts)))
    tools = [(int(m.group(1)), c[n]) for n in sorted(c)
             for m in [re.match(r"tool-ra(\d+)-s%d\.json$" % segs, n)] if m]
    if tools:
        ra, t = tools[0]
        st = dict((r, s) for r, s, _ in figs).get(ra)
        text += ("  The run itself keeps it busy %.1f s (with %s %d%s)." % (
            t["busy_s"], code("read_ahead_kb"), ra,
            ", %.1fx one %s before packing" % (t["busy_s"] / st,
                                               code("e2fsck -fn"))
            if st else ""))
    text += ("  (%s, %s; every figure is in %s.)" % (
        code("bench/realfsck"), time.strftime("%Y-%m-%d", time.gmtime()),
        path("docs/PERFORMANCE.md")))
    if roff:
        return "\n".join(text.replace(".  ", ".\n").replace("; ", ";\n")
                         .split("\n"))
    return textwrap.fill(text, 72, break_on_hyphens=False)


INTRO = """\
## The real e2fsck, measured on an emulated disk

Generated by `bench/realfsck` (`make bench-realfsck`) on %(date)s:
e3metapack %(version)s (src/ at commit %(commit)s), e2fsck %(e2fsck)s, kernel
%(kernel)s, %(machine)s.  The unmodified `e2fsck` with its default options
(its own read-ahead, the bitmaps read by several threads) reads a
read-only loop device (for `-fp`: a read-write one over a copy), marked
rotational, with the `read_ahead_kb` named, caches cold, over
`bench/emudisk`: a FUSE file (direct_io) that serves each request, one
at a time, in real time with `bench/hddmodel.py`'s physics (trace mode:
%(physics)s, a persistent head, drive read-ahead in
segments of 512 KiB).
*Busy* is the sum of the modelled times of the requests the disk served
(what the disk was doing), *wall* e2fsck's elapsed time (busy, plus CPU
and the round trips of the kernel and FUSE).  *Packed*: a copy packed by
`e3metapack` with its default options (its run is timed under "The
run's own time").  *Model
gain*: bench/run's model (`e2fsck -fn -E readahead_kb=0` on one CPU, its
test_io log through `hddmodel.py fsck`), for comparison.

The busy time is split by what each request read (`bench/blockorder
kinds` of the image): a request's positioning is charged to its first
block's kind (with blocks under 4 KiB: the first metadata block's in its
first page), its transfer to its blocks' kinds byte for byte.
*sb+gdt*: superblocks, group descriptors, reserved GDT blocks; *ind*:
indirect blocks (the metaclusters after packing); *data (RA)*: blocks that
are neither metadata nor asked for by e2fsck (it reads no file data), read
only because the kernel's or e2fsck's read-ahead ran past what was asked
for; *write*: what the run wrote.  *Late*: how much later than the
model the emulated disk replied, in all (the host's own I/O and load; it
is in the wall time, not in the busy time).  *Re-read*: the busy time of
requests for pages the run had read before (something on the host took
them from the cache: "-", not recorded).  The host may be shared with
other work: wall times vary from run to run, busy times hardly (the order
of the requests can change, what they cost cannot).
"""


def about(a):
    """What INTRO and PART_INTRO name: when, which binary, which host."""
    ver = sh("'%s' -V 2>&1 | head -1" % a.binary).replace("e3metapack ", "")
    fsck = sh("e2fsck -V 2>&1 | head -1")
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "version": ver or "?",
        # The binary's sources: the last commit that changed src/.
        "commit": sh("git -C '%s' log -1 --format=%%h -- src" % a.top)
        or "?",
        "e2fsck": fsck.split(" ")[1:2][0] if fsck else "?",
        "kernel": platform.release(),
        "machine": "%s CPUs" % os.cpu_count(),
        "physics": "settle %g ms, full stroke %g ms, half rotation %g ms, "
                   "%g MB/s" % (hddmodel.SETTLE_MS, hddmodel.STROKE_MS,
                                hddmodel.HALF_ROT_MS, hddmodel.RATE / 1e6),
    }


def tables(vols):
    """The tables of VOLS' cases, each under its heading."""
    out = []
    t = summary_table(vols)
    if t:
        out += ["### Summary: e2fsck -fn, the disk's busy time, stock -> "
                "packed", ""] + t + [""]
    t = check_table(vols)
    if t:
        out += ["### The emulated disk against the model", "",
                "With everything the model leaves out turned off "
                "(`read_ahead_kb` 0, `e2fsck -fn -E readahead_kb=0`, one "
                "CPU: `taskset -c 0` and `bench/onecpu.so`, no drive "
                "cache), the emulated disk's busy time against the "
                "model's time for the same image:", ""] + t + [""]
    for mode, ra, segs in settings(vols):
        out += ["### e2fsck -f%s, read_ahead_kb %d, %d drive segment%s" %
                (mode[1], ra, segs, "s" if segs != 1 else ""), ""]
        out += setting_table(vols, mode, ra, segs) + [""]
        out += ["Busy seconds by what was read:", ""]
        out += kinds_table(vols, mode, ra, segs) + [""]
    t = opts_table(vols)
    if t:
        out += ["### e2fsck -fn with the settings an admin can choose", "",
                "The device's `read_ahead_kb` (`blockdev --setra`, in "
                "512-byte sectors), e2fsck's own prefetch off (`-E "
                "readahead_kb=0`), and, for comparison, the bitmaps read "
                "by one thread (`bench/onecpu.so`: libext2fs starts "
                "`sysconf(_SC_NPROCESSORS_CONF)` threads, %s here; "
                "e2fsck 1.47 has no option for it).  README's advice is "
                "rendered from this table." % os.cpu_count(), ""] + t + [""]
    t, worst = predict_table(vols)
    if t:
        out += ["### The report's prediction against the emulated disk", "",
                "`e3metapack -n --json --read-ahead=RA` on each stock "
                "image: `predicted.before_ms` and `after_ms` (e2fsck -fn "
                "with its default options through the model kernel: %d "
                "bitmap threads, as here) against the busy time of the "
                "unmodified e2fsck -fn above (16 drive segments).  "
                "Largest error: %.1f %%." % (os.cpu_count(), 100 * worst),
                ""] + t + [""]
    return out


COMMANDS = """### Commands

```sh
make bench-progs                     # bench/emudisk (libfuse3), blockorder, onecpu.so
bench/realfsck                       # the default matrix; root, /dev/fuse, loop devices
E3MP_RF_SEGS=1 E3MP_RF_MODES='fn fp' E3MP_RF_IMAGES='mixed aged' bench/realfsck
E3MP_RF_IMAGES= E3MP_RF_SCALE=64G bench/realfsck
E3MP_RF_IMAGES='mixed aged' E3MP_RF_SCALE='64G 256G' E3MP_RF_RA='0 128 2560' E3MP_RF_VARIANTS=packed \\
  E3MP_RF_FSCKOPTS='default nora onecpu' E3MP_RF_TOOL=0 bench/realfsck
# per case (bench/emuloop):
bench/emuloop up DIR IMAGE --read-ahead-kb RA --segments S   # prints the loop device
bench/emuloop cold DIR; e2fsck -fn LOOP; bench/emuloop down DIR
# E3MP_RF_FSCKOPTS: nora, onecpu
e2fsck -fn -E readahead_kb=0 LOOP; LD_PRELOAD=bench/onecpu.so e2fsck -fn LOOP
# the prediction (predict-raRA.json; E3MP_RF_PREDICT=0 keeps the last)
src/e3metapack -n --json --read-ahead=RA STOCK-IMAGE
# the check: read_ahead_kb 0, --segments 0, then
LD_PRELOAD=bench/onecpu.so taskset -c 0 e2fsck -fn -E readahead_kb=0 LOOP
LD_PRELOAD=bench/onecpu.so TEST_IO_FLAGS=0x05 TEST_IO_LOGFILE=LOG e2fsck -fn -E readahead_kb=0 IMAGE
bench/hddmodel.py fsck LOG --span $(stat -c %s IMAGE) --bs BS --kinds KINDS
```
"""

PART_INTRO = """\
## The real e2fsck on %(vols)s, measured apart

Generated by `bench/realfsck` on %(date)s from the cases of %(vols)s
alone (`E3MP_RF_BLOCK=%(block)s`): the cases, method and columns of the
block above, measured and rendered apart from its matrix.  e3metapack
%(version)s (src/ at commit %(commit)s), e2fsck %(e2fsck)s, kernel
%(kernel)s, %(machine)s.
DAMON's proactive reclaim, which this host runs, was off during every
case (`bench/emuloop` pauses it; see "The run's own time").

```sh
%(cmd)s
```
"""


def render_layouts(a, vols):
    """The layouts compared (rflayout.py), alone, into bench:layouts."""
    if a.volumes:
        vols = {v: c for v, c in vols.items() if v in a.volumes}
    lay = rflayout.render(vols, sh("'%s' --help 2>&1" % a.binary))
    sys.stdout.write(lay)
    if a.doc and lay:
        write_doc(a.doc, lay, "layouts")


def cmd_render(a):
    vols = load(a.res)
    p = about(a)
    if a.block == "layouts":
        return render_layouts(a, vols)
    if a.block != "realfsck":
        vols = {v: c for v, c in vols.items() if v in a.volumes}
        p.update(block=a.block, vols=", ".join(vols),
                 cmd=a.cmd or "bench/realfsck")
        out = [PART_INTRO % p] + tables(vols)
    else:
        out = [INTRO % p] + tables(vols) + [COMMANDS]
    text = "\n".join(out).rstrip("\n") + "\n"
    sys.stdout.write(text)
    if a.doc:
        write_doc(a.doc, text, a.block)
    for d in a.headline or []:
        h = headline(vols, a.res, re.search(r"\.[1-9]$", d) is not None)
        if h:
            write_doc(d, h, "headline")
    if a.block != "realfsck":
        return      # the layouts and the advice: the whole matrix's
    lay = rflayout.render(vols, sh("'%s' --help 2>&1" % a.binary))
    if lay:
        sys.stdout.write(lay)
    if a.doc and lay:
        write_doc(a.doc, lay, "layouts")
    adv = advice(vols)
    for d in a.advice or []:
        if adv:
            write_doc(d, adv, "advice")


def tool_predicted(binary, image):
    """The report's .predicted.tool_ms of a dry run on IMAGE (None if the
    run fails or predicts nothing)."""
    r = subprocess.run([binary, "-n", "--json", image], capture_output=True,
                       text=True)
    try:
        return json.loads(r.stdout)["predicted"]["tool_ms"]
    except (ValueError, KeyError, TypeError):
        return None


TOOLPRED_INTRO = """e3metapack's own run on the emulated disk of "The real e2fsck,
measured on an emulated disk" (caches cold, `bench/emuloop`): default
options, on a read-write loop device over a copy of the stock image, the
undo file on the host's disk; that copy is the packed image the e2fsck
tables there check.
Generated on %(date)s, e3metapack %(version)s (src/ at commit
%(commit)s).
"""

TOOLPRED_PRED = """The report's prediction of that time (`e3metapack -n --json IMAGE`,
`.predicted.tool_ms`, on the stock image: the scan's reads, all reads,
the writes, in seconds) against the disk's busy time (the reads, the
writes).  The model replays the run's requests, whatever
`read_ahead_kb`, through a page cache of the volume's blocks: the undo
manager's reads, the write-out at each barrier and at each kick the
copies give the kernel's writeback (their writes ~%(lag)s ms late), and
no kernel read-ahead.  *Re-reads*: the busy time of the reads whose
every page the run had read or written before (from the case's request
log; "-": no log), which a page cache that kept what it was given would
have served (`bench/emuloop` pauses DAMON's proactive reclaim for each
case where the host runs it: it drops pages idle for seconds, which a
long run then reads again).
"""


def case_rereads(res, vol, name, r):
    """A case's re-reads (rereads()): from its JSON, else from its
    request log beside it, else None."""
    if "reread_s" in r:
        return r["reread_s"]
    path = os.path.join(res, vol, name[:-len(".json")] + ".requests.gz")
    if not os.path.exists(path):
        return None
    with gzip.open(path, "rt") as f:
        reqs = [(t[0], int(t[1]), int(t[2]), float(t[4]))
                for t in (line.split() for line in f)
                if len(t) == 5 and t[0] in ("R", "W")]
    return rereads(reqs)[0]


def cmd_toolpred(a):
    cases = {}
    for res in a.res:
        for vol, c in load(res).items():
            for name, r in c.items():
                m = re.match(r"tool-ra(\d+)-s(\d+)\.json$", name)
                if m:
                    r = dict(r, reread=case_rereads(res, vol, name, r))
                    cases.setdefault(vol, {})[
                        (int(m.group(1)), int(m.group(2)))] = r
    vols = sorted(cases, key=vol_order)
    stock = dict(x.split("=", 1) for x in a.stock)
    lag = sh("awk '$2 == \"MP_TOOLIO_KICK_LAG_MS\" {print $3}' "
             "'%s/src/model/disk.h'" % a.top)
    out = [TOOLPRED_INTRO % {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "version": sh("'%s' -V 2>&1 | head -1" % a.binary).replace(
            "e3metapack ", "") or "?",
        "commit": sh("git -C '%s' log -1 --format=%%h -- src" % a.top)
        or "?"}] + tool_table(cases, vols) + [
        "", TOOLPRED_PRED % {"lag": lag or "?"},
        "| volume | read_ahead_kb, segments | measured busy s "
        "(reads, writes) | of it re-reads s | predicted s (scan, reads, "
        "writes) | difference | without the re-reads |",
        "|---|---|---:|---:|---:|---:|---:|"]
    for vol in vols:
        p = tool_predicted(a.binary, stock[vol]) if vol in stock else None
        for (ra, segs), r in sorted(cases[vol].items()):
            w = r["by_kind_s"].get("write", 0.0)
            meas = "%.2f (%.2f, %.2f)" % (r["busy_s"], r["busy_s"] - w, w)
            rr = r["reread"]
            pred, diff, diff2 = "-", "-", "-"
            if p:
                t = p["total"] / 1000.0
                pred = "%.2f (%.2f, %.2f, %.2f)" % (
                    t, p["scan"] / 1000.0, p["read"] / 1000.0,
                    p["write"] / 1000.0)
                diff = "%+.0f %%" % (100.0 * (t - r["busy_s"]) /
                                     r["busy_s"])
                if rr is not None:
                    diff2 = "%+.0f %%" % (100.0 * (t - r["busy_s"] + rr) /
                                          (r["busy_s"] - rr))
            out.append("| %s | %d, %d | %s | %s | %s | %s | %s |" % (
                vol, ra, segs, meas, "-" if rr is None else "%.2f" % rr,
                pred, diff, diff2))
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if a.doc:
        write_doc(a.doc, text, "toolpred")


def write_doc(path, text, name="realfsck"):
    """TEXT into PATH between its bench:NAME markers, through bench/render,
    the one renderer (PATH must hold them)."""
    r = subprocess.run([sys.executable,
                        os.path.join(os.path.dirname(__file__), "render"),
                        path, name, "-"], input=text, text=True)
    if r.returncode:
        sys.exit(r.returncode)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="sub", required=True)
    c = sub.add_parser("case")
    c.add_argument("--log", required=True)
    c.add_argument("--lines", type=int, nargs=2, required=True)
    c.add_argument("--kinds", required=True)
    c.add_argument("--bs", type=int, required=True)
    c.add_argument("--stats", default="")
    c.add_argument("--wall-ns", type=int, required=True)
    c.add_argument("--rc", type=int, default=0)
    c.add_argument("--ra", type=int, default=0)
    c.add_argument("--segs", type=int, default=0)
    c.add_argument("--cmd", default="")
    c.add_argument("--out-tail", required=True)
    o = sub.add_parser("origins")
    o.add_argument("requests")
    o.add_argument("--kinds", required=True)
    o.add_argument("--bs", type=int, default=4096)
    m = sub.add_parser("median")
    m.add_argument("runs", nargs="+")
    t = sub.add_parser("toolpred")
    t.add_argument("res", nargs="+")
    t.add_argument("--binary", required=True)
    t.add_argument("--top", required=True)
    t.add_argument("--stock", nargs="*", default=[])
    t.add_argument("--doc")
    r = sub.add_parser("render")
    r.add_argument("res")
    r.add_argument("--doc")
    r.add_argument("--binary", required=True)
    r.add_argument("--top", required=True)
    r.add_argument("--headline", nargs="*")
    r.add_argument("--advice", nargs="*")
    r.add_argument("--block", default="realfsck")
    r.add_argument("--volumes", nargs="*", default=[])
    r.add_argument("--cmd", default="")
    a = p.parse_args()
    if a.sub == "case":
        cmd_case(a)
    elif a.sub == "origins":
        cmd_origins(a)
    elif a.sub == "median":
        cmd_median(a)
    elif a.sub == "toolpred":
        cmd_toolpred(a)
    else:
        cmd_render(a)


if __name__ == "__main__":
    main()
