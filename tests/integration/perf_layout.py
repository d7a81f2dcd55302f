#!/usr/bin/env python3
"""perf stat's output beside emon-perf's, field by field.

  perf_layout.py text|csv EMON_FILE PERF_FILE [--sep S] [--outer] [--values]

Each file becomes a list of lines, each a shape and its numbers: the
shape is what must be the same (blank lines, the header, the event, its
unit, key or cgroup, the metric's unit, the footer's words, the number
of CSV fields and every field that is not a number; a rate's K/, M/ or
G/sec is the value's, not the layout's), the numbers are
printed for the caller's own checks. Lines of -I are grouped by their
time stamp: the intervals both print in full (all but the last) must
have the same shapes; a count of intervals one apart is allowed (the two
tools' timers are not one; --outer: any more in the first, whose run
holds the second's). Exits 1 when the shapes differ, and says
where. With --values, prints "event key value" for each count line
(text: msec for time events; values summed over intervals) on stdout.
"""
import re
import sys

NUM = re.compile(r"^-?[0-9][0-9,]*(\.[0-9]+)?%?$")


def text_line(line):
    """(shape, value) of one line of perf's text"""
    s = line.rstrip()
    if not s:
        return ("blank",), None
    if s.startswith("# started on "):
        return ("started",), None
    if s.startswith("#") and "time" in s:
        return ("ihead", " ".join(s.split())), None
    if "Performance counter stats for" in s:
        return ("header", s.strip()), None
    m = re.match(r"^\s*([0-9.]+)( \+- [0-9.]+)? (seconds .*?)(  \( \+-.*\))?$", s)
    if m:
        return ("foot", m.group(3), bool(m.group(2))), (None, float(m.group(1)))
    left, _, metric = s.partition("#")
    f = left.split()
    ts = None
    if f and re.match(r"^[0-9]+\.[0-9]{9}$", f[0]) and len(f) > 2:
        ts, f = f[0], f[1:]
    agg = ()
    if f and re.match(r"^(S[0-9]+(-D[0-9]+(-C[0-9]+)?)?|N[0-9]+|CPU[0-9]+)$", f[0]):
        agg = (f[0], f[1]) if len(f) > 1 and f[1].isdigit() and f[0][0] != "C" else (f[0],)
        f = f[len(agg):]
    if f and f[0].startswith("<"):
        value, f = " ".join(f[:2]), f[2:]
    elif f:
        value, f = f[0], f[1:]
    else:
        return ("other", s.strip()), None
    unit = ""
    if f and f[0] == "msec":
        unit, f = "msec", f[1:]
    event = f[0] if f else ""
    key = " ".join(f[1:])
    metric = re.sub(r"\(.*?\)", "", metric).split()
    munit = re.sub(r"^[KMG]/sec$", "/sec", " ".join(metric[1:]))
    try:
        v = float(value.replace(",", ""))
    except ValueError:
        v = value
    return ("count", agg, unit, event, key, munit, "," in value, ts is not None), (ts, v)


def csv_line(line, sep):
    """(shape, value) of one line of perf -x"""
    s = line.rstrip("\n")
    if not s:
        return ("blank",), None
    if s.startswith("# started on "):
        return ("started",), None
    f = s.split(sep)
    ts = None
    if re.match(r"^\s*[0-9]+\.[0-9]{9}$", f[0]):
        ts, f = f[0].strip(), f[1:]
    shape = ["csv", len(f), ts is not None]
    value = None
    for x in f:
        if NUM.match(x.strip()) and x.strip():
            shape.append("N")
            if value is None:
                value = float(x.rstrip("%"))
        elif re.match(r"^[KMG]/sec$", x):	# the rate's scale is the value's
            shape.append("/sec")
        else:
            shape.append(x.strip())
    return tuple(shape), (ts, value)


def parse(path, kind, sep):
    out = []
    for line in open(path, errors="replace"):
        shape, val = text_line(line) if kind == "text" else csv_line(line, sep)
        out.append((shape, val))
    return out


def intervals(lines):
    """[(ts or None, [shapes])] in order, each time stamp a group"""
    groups = []
    for shape, val in lines:
        ts = val[0] if val else None
        if groups and groups[-1][0] == ts:
            groups[-1][1].append(shape)
        else:
            groups.append((ts, [shape]))
    return groups


def main():
    kind, emon, perf = sys.argv[1:4]
    sep = sys.argv[sys.argv.index("--sep") + 1] if "--sep" in sys.argv else ","
    e, p = parse(emon, kind, sep), parse(perf, kind, sep)
    ge, gp = intervals(e), intervals(p)
    timed = any(g[0] for g in ge) or any(g[0] for g in gp)
    bad = 0
    if timed:
        te = [g for g in ge if g[0]]
        tp = [g for g in gp if g[0]]
        # --outer: the first run holds the second (perf as emon-perf's
        # command): it may have more intervals, perf's start and end
        fewer = len(tp) - len(te) if "--outer" in sys.argv else abs(len(te) - len(tp))
        if fewer > 1 or not te:
            print(f"      {len(te)} intervals from emon-perf, {len(tp)} from perf")
            bad += 1
        # each of perf's intervals but its last against emon-perf's at
        # the same place; with --outer, perf's middle ones against
        # emon-perf's at any one offset (on a busy machine perf's start
        # took some of emon-perf's first intervals, where the work had
        # begun: their metrics differ from perf's partial first one)
        if "--outer" in sys.argv and len(te) > len(tp):
            mid = range(1, len(tp) - 1)
            offs = range(0, len(te) - len(tp) + 2)
        else:
            mid, offs = range(min(len(te), len(tp)) - 1), range(1)
        def diff(off):
            return [k for k in mid if k + off >= len(te) or sorted(te[k + off][1]) != sorted(tp[k][1])]
        best = min(offs, key=lambda o: len(diff(o)))
        for k in diff(best):
            if k + best < len(te):
                print(f"      interval {k}: emon-perf's {k + best} {te[k + best][1]}\n      perf      {tp[k][1]}")
            bad += 1
        # what is not an interval's (headers, summary, footer) in order
        ue = [s for g in ge if not g[0] for s in g[1]]
        up = [s for g in gp if not g[0] for s in g[1]]
    else:
        ue, up = [s for s, _ in e], [s for s, _ in p]
    if ue != up:
        bad += 1
        print("      the lines differ:")
        for k in range(max(len(ue), len(up))):
            a = ue[k] if k < len(ue) else None
            b = up[k] if k < len(up) else None
            print(f"      {'  ' if a == b else '! '}{a}\n      {'  ' if a == b else '! '}{b}")
    if "--values" in sys.argv:
        for name, lines in (("emon", e), ("perf", p)):
            tot = {}
            for shape, val in lines:
                if shape[0] == "count" and isinstance(val[1], float):
                    k = (shape[3], shape[4] or "-", " ".join(shape[1]) or "-")
                    tot[k] = tot.get(k, 0) + val[1]
                elif shape[0] == "foot":
                    tot[(shape[1].replace(" ", "_"), "-", "-")] = val[1]
            for k, v in tot.items():
                print(name, *k, v)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
