#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""report.py --- helpers of bench/run: sum an strace log, render the tables.

  report.py strace TRACE IMAGE [UNDO]
      Sum the bytes that the traced process read and wrote, per file,
      from an 'strace -f -y' log, and count its fsync calls.  Prints JSON:
      image_read, image_written, undo_written, other_read, other_written,
      fsyncs.
  report.py render RESDIR
      Print the benchmark tables (markdown) from RESDIR/<image>/*.json.
  report.py doc RESDIR DOC
      Write the tables into DOC between the lines
          <!-- bench:run begin -->
          <!-- bench:run end -->
      keeping the rest of DOC (bench/render does it; DOC must hold them).
"""

import json
import os
import re
import statistics
import subprocess
import sys


# Targets of the issue (ratio: modelled fsck time stock / after e3metapack).
FSCK_TARGETS = {"mixed": 5.0, "aged": 2.4, "tind1k": 3.0}
# The -n report's prediction against the replay (%), and the tool's
# modelled I/O against one stock e2fsck -fn's (issue 15).
PRED_TOL = 15.0
TOOL_MODEL_MAX = 1.2
TOOL_VS_FSCK_MAX = 2.0         # e3metapack (with undo) / e2fsck -fn, wall

IMAGE_ORDER = ["mixed", "aged", "tind1k", "ext2"]

SYSCALL_RE = re.compile(
    r"^(?:\d+\s+)?(pread64|pwrite64|read|write|preadv2?|pwritev2?|"
    r"fsync|fdatasync)\((\d+)<([^>]*)>.*\)\s+=\s+(-?\d+)"
    r"(?:.*<(\d+\.\d+)>)?")


def cmd_strace(trace, image, undo=None):
    image = os.path.realpath(image)
    undo = os.path.realpath(undo) if undo else None
    r = {"image_read": 0, "image_written": 0, "undo_read": 0,
         "undo_written": 0, "other_read": 0, "other_written": 0,
         "fsyncs": 0, "image_fsyncs": 0, "undo_fsyncs": 0,
         "fsync_ms": 0.0}
    with open(trace, errors="replace") as f:
        for line in f:
            m = SYSCALL_RE.match(line)
            if not m:
                continue
            call, _, path, ret, secs = m.groups()
            ret = int(ret)
            who = ("image" if path == image else
                   "undo" if undo and path == undo else "other")
            if call in ("fsync", "fdatasync"):
                r["fsyncs"] += 1
                if secs:
                    r["fsync_ms"] += 1000.0 * float(secs)
                if who != "other":
                    r[who + "_fsyncs"] += 1
                continue
            if ret <= 0:
                continue
            kind = "read" if call.startswith(("pread", "read")) else \
                "written"
            r["%s_%s" % (who, kind)] += ret
    json.dump(r, sys.stdout)
    print()


# ---- rendering -------------------------------------------------------------

def load(resdir):
    data = {}
    for name in sorted(os.listdir(resdir)):
        d = os.path.join(resdir, name)
        if not os.path.isdir(d):
            continue
        img = {}
        for fn in os.listdir(d):
            if fn.endswith(".json"):
                with open(os.path.join(d, fn)) as f:
                    txt = f.read().strip()
                try:
                    img[fn[:-5]] = json.loads(txt) if txt else None
                except ValueError:
                    img[fn[:-5]] = None
        data[name] = img
    order = [n for n in IMAGE_ORDER if n in data] + \
        [n for n in data if n not in IMAGE_ORDER]
    return order, data


def ms(v):
    if v is None:
        return "n/a"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fx(v, unit="x"):
    return "n/a" if v is None else "%.2f%s" % (v, unit)


def pct(v):
    return "n/a" if v is None else "%+.1f %%" % v


def mib(v):
    return "n/a" if v is None else "%.1f" % (v / 1048576.0)


def med(xs):
    xs = [x for x in (xs or []) if x is not None]
    return statistics.median(xs) if xs else None


def mn(xs):
    xs = [x for x in (xs or []) if x is not None]
    return min(xs) if xs else None


def mm(xs):
    """'min / median' of a list of times."""
    return "%s / %s" % (ms(mn(xs)), ms(med(xs)))


def pred_error(d, when, replay):
    """The report's prediction of e2fsck -fn's own reads (own_reads_ms:
    the model without a kernel) against the replay of its read log, %."""
    p = g(d.get("e3mp"), "predicted", "own_reads_ms", when)
    if p is None or not replay:
        return None, None
    return p, 100.0 * (p - replay) / replay


def pred_cell(d, when, replay):
    p, err = pred_error(d, when, replay)
    return "-" if p is None else "%s (%+.1f %%)" % (ms(p), err)


def g(d, *keys):
    for k in keys:
        if d is None:
            return None
        d = d.get(k) if isinstance(d, dict) else None
    return d


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join(["---"] * len(head)) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def render(resdir):
    order, data = load(resdir)
    meta = {}
    mp = os.path.join(resdir, "meta.json")
    if os.path.exists(mp):
        with open(mp) as f:
            meta = json.load(f)
    out = []
    P = out.append

    P("Generated by `bench/run` on %s, host `%s`." %
      (meta.get("date", "?"), meta.get("host", "?")))
    P("")
    P("- machine: %s" % meta.get("machine", "?"))
    P("- kernel: %s; e2fsprogs %s; e3metapack %s" %
      (meta.get("kernel", "?"), meta.get("e2fsprogs", "?"),
       meta.get("e3metapack", "?")))
    P("- scratch: `%s` (%s); bench/run took %s s (%s)" %
      (meta.get("bench_dir", "?"), meta.get("bench_fs", "?"),
       meta.get("runtime_s", "?"), meta.get("settings", "")))
    P("- HDD model: %s" % meta.get("model", "?"))
    P("")

    # --- images ---
    P("### Images")
    P("")
    rows = []
    for n in order:
        d = data[n]
        st = d.get("image") or {}
        rep = d.get("e3mp") or {}
        rows.append([
            n, st.get("desc", ""), "%d MiB" % (st.get("size", 0) >> 20),
            st.get("block_size", "?"), st.get("files", "?"),
            "%s %%" % st.get("used_pct", "?"),
            st.get("noncontig", "?"),
            "%s/%s/%s" % (st.get("ind", "?"), st.get("dind", "?"),
                          st.get("tind", "?")),
            st.get("dir_blocks", "?"),
            "%s / %s" % (g(rep, "moves", "indirect"),
                         g(rep, "moves", "data_evacuated")),
        ])
    P(table(["image", "how it is made", "size", "block", "inodes used",
             "blocks used",
             "non-contiguous", "IND/DIND/TIND", "dir blocks",
             "moved: indirect / data evacuated"], rows))
    P("")

    # --- fsck model ---
    P("### 1. e2fsck -fn: modelled read time (HDD model, ms)")
    P("")
    rows = []
    for n in order:
        d = data[n]
        s, a, b = d.get("fsck-stock"), d.get("fsck-mp"), d.get("fsck-b2e")
        st, at, bt = g(s, "time_ms"), g(a, "time_ms"), g(b, "time_ms")
        tgt = FSCK_TARGETS.get(n)
        sp = ratio(st, at)
        met = "" if tgt is None or sp is None else (
            "%s (>= %.1fx)" % ("met" if sp >= tgt else "NOT met", tgt))
        if n == "mixed" and sp is not None and at is not None and bt:
            met += "; %s than bmap2extent" % ("better" if at < bt
                                              else "NOT better")
        rows.append([n, ms(st), ms(at), ms(bt), ms(g(s, "floor_ms")),
                     ms(g(b, "floor_ms")),
                     "%s / %s / %s" % (g(s, "seeks"), g(a, "seeks"),
                                       g(b, "seeks")),
                     "%s / %s" % (pred_cell(d, "before", st),
                                  pred_cell(d, "after", at)),
                     fx(sp), fx(ratio(st, bt)), met])
    P(table(["image", "stock", "after e3metapack", "after bmap2extent",
             "floor (stock, e3mp)", "floor (bmap2extent)",
             "seeks stock / e3mp / b2e", "predicted stock / e3mp (error)",
             "speed-up e3mp", "speed-up b2e", "target"], rows))
    P("")
    P("Where the modelled time goes, by what the read was for "
      "(ms, and seeks in brackets); stock -> after e3metapack "
      "[-> after bmap2extent]:")
    P("")
    kinds = ["ind", "extent", "itable", "bbitmap", "ibitmap", "dir",
             "journal", "resize", "sb", "data"]
    rows = []
    for n in order:
        d = data[n]
        row = [n]
        for k in kinds:
            cells = []
            for v in ("fsck-stock", "fsck-mp", "fsck-b2e"):
                kk = g(d.get(v), "by_kind", k)
                cells.append("%s (%s)" % (ms(kk["ms"]), kk["seeks"])
                             if kk else "-")
            row.append(" -> ".join(cells))
        rows.append(row)
    P(table(["image"] + kinds, rows))
    P("")

    # --- wall time of e2fsck ---
    P("### e2fsck -fn: measured wall time on this machine (ms, warm cache, "
      "min / median)")
    P("")
    rows = []
    for n in order:
        d = data[n]
        w = d.get("walls") or {}
        rows.append([n, mm(w.get("fsck_stock_warm")),
                     mm(w.get("fsck_mp_warm")),
                     mm(w.get("fsck_b2e_warm"))])
    P(table(["image", "stock", "after e3metapack", "after bmap2extent"],
            rows))
    P("")

    # --- tool cost ---
    P("### 2. Tool cost (measured on this machine)")
    P("")
    rows = []
    for n in order:
        d = data[n]
        w = d.get("walls") or {}
        io = d.get("io") or {}
        fw, fc = med(w.get("fsck_stock_warm")), med(w.get("fsck_stock_cold"))
        ew, ec = med(w.get("e3mp_undo_warm")), med(w.get("e3mp_undo_cold"))
        r = ratio(ew, fw)
        rmin = ratio(mn(w.get("e3mp_undo_warm")), mn(w.get("fsck_stock_warm")))
        rows.append([
            n, mm(w.get("fsck_stock_warm")), mm(w.get("fsck_stock_cold")),
            mm(w.get("e3mp_undo_warm")), mm(w.get("e3mp_undo_cold")),
            mm(w.get("e3mp_noundo_warm")),
            "%s (min: %s)" % (fx(r), fx(rmin)), fx(ratio(ec, fc)),
            "" if r is None else ("met" if r <= TOOL_VS_FSCK_MAX
                                  else "NOT met") +
            " (<= %.0fx)" % TOOL_VS_FSCK_MAX,
            "%s / %s" % (mib(io.get("image_read")),
                         mib(io.get("image_written"))),
            mib(io.get("undo_written")), mib(w.get("undo_size")),
            "%s (%s + %s), %s ms" % (io.get("fsyncs"),
                                     io.get("image_fsyncs"),
                                     io.get("undo_fsyncs"),
                                     ms(io.get("fsync_ms"))),
            "%s / %s" % (w.get("rss_e3mp_kib"), w.get("rss_fsck_kib")),
        ])
    P(table(["image", "e2fsck -fn warm", "e2fsck -fn cold",
             "e3metapack warm", "e3metapack cold", "e3metapack -z none warm",
             "ratio warm", "ratio cold", "target",
             "image MiB read / written", "undo MiB written",
             "undo file MiB", "fsyncs (image + undo), their time",
             "peak RSS KiB e3mp / e2fsck"], rows))
    P("")
    P("The same comparison on the model disk (section 1's HDD model): "
      "e3metapack's own reads and writes of the image, taken from the "
      "strace log of a run with an undo file and replayed with its "
      "writes buffered until the next fsync, then written in block order "
      "(the undo file taken to be on another disk), against "
      "e2fsck -fn's reads of the stock image:")
    P("")
    rows = []
    for n in order:
        d = data[n]
        t = d.get("tool-model")
        f = g(d.get("fsck-stock"), "time_ms")
        rows.append([n, ms(g(t, "time_ms")),
                     "%s / %s" % (ms(g(t, "by_kind", "read", "ms")),
                                  ms(g(t, "by_kind", "write", "ms"))),
                     "%s / %s" % (g(t, "by_kind", "read", "seeks"),
                                  g(t, "by_kind", "write", "seeks")),
                     ms(f), fx(ratio(g(t, "time_ms"), f))])
    P(table(["image", "e3metapack modelled I/O (ms)", "reads / writes (ms)",
             "seeks reads / writes", "e2fsck -fn modelled (ms)", "ratio"],
            rows))
    P("")
    P("Times in ms, min / median of the runs (ratios: of the medians); "
      "e3metapack with an undo file "
      "(`-z FILE`) unless said otherwise; each run on a fresh copy of the "
      "stock image whose pages were flushed first (and, for *warm*, read "
      "into the page cache; for *cold*, dropped from it with "
      "POSIX_FADV_DONTNEED).")
    P("")

    # --- targets ---
    P("### Targets")
    P("")
    rows = []
    for n, t in FSCK_TARGETS.items():
        if n not in data:
            continue
        d = data[n]
        sp = ratio(g(d.get("fsck-stock"), "time_ms"),
                   g(d.get("fsck-mp"), "time_ms"))
        rows.append(["modelled fsck, %s: after >= %.1fx better" % (n, t),
                     fx(sp), "met" if sp and sp >= t else "NOT met"])
    if "mixed" in data:
        d = data["mixed"]
        a, b = g(d.get("fsck-mp"), "time_ms"), g(d.get("fsck-b2e"),
                                                  "time_ms")
        rows.append(["modelled fsck, mixed: better than bmap2extent",
                     "%s vs %s ms" % (ms(a), ms(b)),
                     "met" if a and b and a < b else "NOT met"])
    for n in order:
        w = data[n].get("walls") or {}
        r = ratio(med(w.get("e3mp_undo_warm")), med(w.get("fsck_stock_warm")))
        rc = ratio(med(w.get("e3mp_undo_cold")),
                   med(w.get("fsck_stock_cold")))
        if r is not None:
            rows.append(["e3metapack with undo <= %.0fx e2fsck -fn, %s" %
                         (TOOL_VS_FSCK_MAX, n),
                         "%s warm, %s cold" % (fx(r), fx(rc)),
                         "met" if r <= TOOL_VS_FSCK_MAX and
                         (rc is None or rc <= TOOL_VS_FSCK_MAX)
                         else "NOT met"])
    for n in order:
        d = data[n]
        errs = [pred_error(d, w, g(d.get(v), "time_ms"))[1]
                for w, v in (("before", "fsck-stock"),
                             ("after", "fsck-mp"))]
        if None in errs:
            continue
        worst = max(errs, key=abs)
        rows.append(["the report's e2fsck prediction within +-%.0f %% of "
                     "the replay, before and after, %s" % (PRED_TOL, n),
                     "%+.1f %% / %+.1f %%" % tuple(errs),
                     "met" if abs(worst) <= PRED_TOL else "NOT met"])
    for n in order:
        d = data[n]
        r = ratio(g(d.get("tool-model"), "time_ms"),
                  g(d.get("fsck-stock"), "time_ms"))
        if r is not None:
            rows.append(["e3metapack's I/O on the model disk <= %.1fx "
                         "e2fsck -fn's, %s" % (TOOL_MODEL_MAX, n), fx(r),
                         "met" if r <= TOOL_MODEL_MAX else "NOT met"])
    P(table(["target", "measured", ""], rows))
    P("")

    cmds = os.path.join(resdir, "commands.txt")
    if os.path.exists(cmds):
        P("### Commands")
        P("")
        P("As run for the images above (`$W` is the scratch directory, "
          "`$B` its `bin/`):")
        P("")
        P("```sh")
        with open(cmds) as f:
            P(f.read().rstrip())
        P("```")
        P("")
    return "\n".join(out)


def cmd_doc(resdir, doc):
    """The tables into DOC, through bench/render (DOC must hold the
    <!-- bench:run begin/end --> pair)."""
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, os.path.join(here, "render"), doc,
                        "run", "-"], input=render(resdir), text=True)
    if r.returncode:
        sys.exit(r.returncode)


def main():
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "strace":
        cmd_strace(a[1], a[2], a[3] if len(a) > 3 else None)
    elif len(a) == 2 and a[0] == "render":
        print(render(a[1]))
    elif len(a) == 3 and a[0] == "doc":
        cmd_doc(a[1], a[2])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
