# SPDX-License-Identifier: GPL-2.0-only
"""rflayout.py --- bench/realfsck's layouts compared, and their floor.

Imported by realfsck.py's render: the cases of the copies packed with
other options (E3MP_RF_VARIANTS=packed+OPT+...; results named
"packed+dirs=roots-fn-ra2560-s16.json") against the default layout
("packed-..."), the busy time split by what was read, and the floor
arithmetic for issue 31's targets: what the real e2fsck must read where
no in-group layout moves it, plus the indirect and directory blocks'
transfer without a single positioning.
"""

import re

import hddmodel

LAYOUT_RE = re.compile(r"^(packed(?:\+[a-z0-9=+-]+?)?)-(f[np])-ra(\d+)"
                       r"-s(\d+)\.json$")
# Issue 31's targets for the best layout offered: (volume, read_ahead_kb,
# segments) -> busy seconds, and the packed figure they were set against.
TARGETS = {("aged", 2560, 16): (0.85, 0.914), ("mixed", 2560, 16):
           (0.75, 1.018), ("256G", 2560, 16): (45.0, 51.25)}
# The kinds no layout of indirect and directory blocks moves: fixed
# metadata, the journal, and what the kernel reads past each inode table.
FIXED = ("sb+gdt", "bitmaps", "itable", "journal", "other", "data (RA)")
KINDS = ("sb+gdt", "bitmaps", "itable", "ind", "dir", "journal",
         "data (RA)")


def opts(variant):
    """"packed+dirs=roots" -> "--dirs=roots"; "packed" -> "default"."""
    o = variant.split("+")[1:]
    return " ".join("--" + x for x in o) if o else "default"


def cases(vols):
    """{vol: {(variant, ra, segs): case}} of e2fsck -fn on packed copies,
    for the volumes with some layout besides the default measured."""
    out = {}
    for vol, c in vols.items():
        d = {}
        for name, r in c.items():
            m = LAYOUT_RE.match(name)
            if m and m.group(2) == "fn":
                d[(m.group(1), int(m.group(3)), int(m.group(4)))] = r
        if any(k[0] != "packed" for k in d):
            out[vol] = d
    return out


def offered(usage):
    """The option values the binary's usage lists: {"dirs": [...]}."""
    return {m.group(1): m.group(2).split("|")
            for m in re.finditer(r"--([a-z-]+)=([a-z]+(?:\|[a-z]+)+)\]",
                                 usage)}


def is_offered(variant, words):
    for o in variant.split("+")[1:]:
        k, _, v = o.partition("=")
        if k in words and v not in words[k]:
            return False
    return True


def variants(lay):
    vs = sorted({k[0] for d in lay.values() for k in d})
    return sorted(vs, key=lambda v: (v != "packed", v))


def figure(r, base):
    """Busy s (the median run's), its change against @base's, and the
    range of the runs when there were several."""
    t = "%.3f" % r["busy_s"]
    if base:
        t += " (%+.0f %%)" % (100.0 * (r["busy_s"] / base["busy_s"] - 1))
    runs = r.get("runs_busy_s") or []
    if len(runs) > 1:
        t += " [%.2f-%.2f]" % (min(runs), max(runs))
    return t


def busy_table(lay, words):
    vs = variants(lay)
    out = ["| volume | read_ahead_kb | segments | " + " | ".join(
        "`%s`%s" % (opts(v), "" if is_offered(v, words) else " *")
        for v in vs) + " |", "|---|---:|---:|" + "---:|" * len(vs)]
    for vol, d in lay.items():
        for ra, segs in sorted({(k[1], k[2]) for k in d},
                               key=lambda x: (-x[1], x[0])):
            base = d.get(("packed", ra, segs))
            row = []
            for v in vs:
                r = d.get((v, ra, segs))
                if not r:
                    row.append("-")
                else:
                    row.append(figure(r, None if v == "packed" else base))
            out.append("| %s | %d | %d | %s |" % (vol, ra, segs,
                                                  " | ".join(row)))
    return out


def kinds_table(lay, ra, segs):
    out = ["| volume | layout | busy s | " + " | ".join(KINDS) + " |",
           "|---|---|---:|" + "---:|" * len(KINDS)]
    for vol, d in lay.items():
        for v in variants(lay):
            r = d.get((v, ra, segs))
            if r:
                k = r["by_kind_s"]
                out.append("| %s | `%s` | %.3f | %s |" % (
                    vol, opts(v), r["busy_s"],
                    " | ".join("%.3f" % k.get(g, 0) for g in KINDS)))
    return out


def floor_of(r):
    """The fixed kinds' busy time, and the indirect and directory blocks'
    bytes at the disk's rate (no positioning)."""
    fixed = sum(r["by_kind_s"].get(g, 0) for g in FIXED)
    b = r["by_kind_bytes"]
    xfer = (b.get("ind", 0) + b.get("dir", 0)) / hddmodel.RATE
    return fixed, xfer


def floor_table(vols, lay, words):
    out = ["| volume | read_ahead_kb | packed today s | target s | best "
           "offered s (layout) | fixed kinds s | ind + dir transfer s | "
           "floor s | target |", "|---|---:|---:|---:|---|---:|---:|---:|"
           "---|"]
    for (vol, ra, segs), (t, today) in sorted(TARGETS.items()):
        c = vols.get(vol, {})
        r = c.get("packed-fn-ra%d-s%d.json" % (ra, segs))
        if not r:
            continue
        best = ("packed", r)
        for (v, ra2, s2), x in lay.get(vol, {}).items():
            if (ra2, s2) == (ra, segs) and is_offered(v, words) and \
                    x["busy_s"] < best[1]["busy_s"]:
                best = (v, x)
        fixed, xfer = floor_of(r)
        fl = fixed + xfer
        met = best[1]["busy_s"] <= t
        out.append("| %s | %d | %.3f | %.2f | %.3f (`%s`) | %.3f | %.3f | "
                   "%.3f | %s |" % (
                       vol, ra, today, t, best[1]["busy_s"], opts(best[0]),
                       fixed, xfer, fl, "met" if met else
                       "NOT met (floor above target)" if fl > t else
                       "NOT met"))
    return out if len(out) > 2 else []


def render(vols, usage):
    """Markdown for the bench:layouts block, or "" without cases."""
    lay = cases(vols)
    words = offered(usage)
    if not lay:
        return ""
    out = ["## Layouts for the real e2fsck (issue 31)", "",
           "Each layout is a copy of the stock image packed by "
           "`e3metapack -z none OPTIONS` (`E3MP_RF_VARIANTS=packed+OPT+...`"
           "), checked by the unmodified `e2fsck -fn` with its default "
           "options on the emulated disk as above; *default* is the copy "
           "packed with the default options.  The disk's busy time, s, "
           "of the median run (`E3MP_RF_REPEAT`), its change against the "
           "default layout's, and in brackets the range of the runs: the "
           "order in which e2fsck's prefetch, its bitmap threads and its "
           "own reads reach the head varies from run to run, and with it "
           "the positionings (up to a tenth of a second on the bench "
           "images).  Where a layout's range and the default's overlap, "
           "neither wins."]
    if not all(is_offered(v, words) for v in variants(lay)):
        out[-1] += ("  * not offered by this binary (measured with the build "
                    "of commit d3e39a3, which had it; DESIGN.md says why it "
                    "went).")
    out += [""]
    out += busy_table(lay, words) + [""]
    for ra, segs in ((2560, 16), (128, 16)):
        t = kinds_table(lay, ra, segs)
        if len(t) > 2:
            out += ["Busy seconds by what was read, `read_ahead_kb` %d, %d "
                    "drive segments:" % (ra, segs), ""] + t + [""]
    t = floor_table(vols, lay, words)
    if t:
        out += ["### The targets, and their floor", "",
                "The best layout offered against issue 31's targets "
                "(`read_ahead_kb` 2560, 16 segments).  *Fixed kinds*: "
                "what the default layout's e2fsck spent on blocks no "
                "placement of indirect and directory blocks moves "
                "(superblocks and descriptors, bitmaps, inode tables, the "
                "journal, and the data the kernel reads ahead past each "
                "inode table and each metacluster, up to %d KiB past the "
                "last block asked for, whatever lies there); *ind + "
                "dir transfer*: those blocks' bytes at %g MB/s, as if "
                "read without a single positioning; the *floor* is their "
                "sum." % (2560, hddmodel.RATE / 1e6), ""] + t + [""]
    out += ["```sh",
            "E3MP_RF_BLOCK=layouts E3MP_RF_TOOL=0 E3MP_RF_REPEAT=3 "
            "E3MP_RF_VARIANTS='packed packed+mc-span=2 \\",
            "  packed+dirs=pack packed+dirs=pack+mc-span=2 packed+mc-span=4 "
            "packed+dirs=roots packed+dirs=leave \\",
            "  packed+order=delete' bench/realfsck",
            "E3MP_RF_BLOCK=layouts E3MP_RF_TOOL=0 E3MP_RF_IMAGES= "
            "E3MP_RF_SCALE='64G 256G' \\",
            "  E3MP_RF_VARIANTS='packed packed+mc-span=2 packed+dirs=roots "
            "packed+dirs=pack' bench/realfsck",
            "E3MP_RF_BLOCK=layouts E3MP_RF_TOOL=0 E3MP_RF_IMAGES= "
            "E3MP_RF_SCALE=256G \\",
            "  E3MP_RF_VARIANTS='packed+mc-span=4 packed+mc-span=8' "
            "bench/realfsck",
            "E3MP_RF_BLOCK=layouts E3MP_RF_TOOL=0 E3MP_RF_SEGS=1 "
            "E3MP_RF_VARIANTS='packed packed+mc-span=2 \\",
            "  packed+dirs=pack packed+dirs=roots' bench/realfsck",
            "# per layout: cp IMAGE COPY; e3metapack -z none OPTIONS COPY; "
            "then e2fsck -fn on it as above",
            "```"]
    return "\n".join(out) + "\n"
