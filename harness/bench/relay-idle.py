#!/usr/bin/env python3
"""relay-idle.py DELAYS.csv... -- rtpengine's relay delay per direction split by how long the relay had been idle
when the packet arrived (docs/benchmarks.md "The to-IMS p99 tail").

Reads the per-packet CSV that delaymeter writes for a `./lab bench gateway` run (out/bench/gateway-<profile>/
{raw,gateway-mo,gateway-mt}/delays.csv: `t_in,direction,ssrc,seq,delay_us`, one row per packet delaymeter paired,
docs/delaymeter.md), so the pairing is delaymeter's own. A packet's out copy is t_in + delay; for every in copy the
"idle gap" is the time since the relay's previous out copy of any call. Prints per direction: n, p50/p95/p99/max in
microseconds, `by_idle` {bucket: [packets, p50 us, p99 us]} and `echo_turn_us` (the far end's echo: to-IMS out copy
-> the same packet's to-browser in copy). Percentiles are nearest-rank."""
import bisect
import csv
import json
import math
import sys


def pct(v, p):
    if not v:
        return float('nan')
    s = sorted(v)
    return s[max(1, math.ceil(p / 100 * len(s))) - 1]


def ns(stamp):
    """'1795440630.457638765' -> integer ns (a float would lose the ns digits)."""
    sec, _, frac = stamp.partition('.')
    return int(sec) * 1_000_000_000 + int((frac + '000000000')[:9])


def rows_of(fn):
    """(direction, t_in ns, t_out ns, delay us, ssrc, seq) per paired packet."""
    out = []
    with open(fn, newline='') as f:
        for r in csv.DictReader(f):
            t_in, d_us = ns(r['t_in']), float(r['delay_us'])
            out.append((r['direction'], t_in, t_in + round(d_us * 1000), d_us, r['ssrc'], int(r['seq'])))
    return out


def bucket(gap_us):
    return '<100us' if gap_us < 100 else '100us-1ms' if gap_us < 1000 else '1-5ms' if gap_us < 5000 else '>=5ms'


def analyze(fn):
    rows = rows_of(fn)
    outs = sorted(r[2] for r in rows)
    res = {}
    for d in ('to_ims', 'to_browser'):
        rs = [r for r in rows if r[0] == d]
        dl = [r[3] for r in rs]
        res[d] = dict(n=len(dl), p50=pct(dl, 50), p95=pct(dl, 95), p99=pct(dl, 99), max=max(dl) if dl else 0)
        buckets = {}
        for r in rs:
            i = bisect.bisect_left(outs, r[1])
            gap = (r[1] - outs[i - 1]) / 1000 if i > 0 else 1e9
            buckets.setdefault(bucket(gap), []).append(r[3])
        res[d]['by_idle'] = {b: (len(v), round(pct(v, 50), 1), round(pct(v, 99), 1)) for b, v in sorted(buckets.items())}
    imsout = {(r[4], r[5]): r[2] for r in rows if r[0] == 'to_ims'}
    turn = [(r[1] - imsout[(r[4], r[5])]) / 1000 for r in rows if r[0] == 'to_browser' and (r[4], r[5]) in imsout]
    res['echo_turn_us'] = dict(p50=pct(turn, 50), p99=pct(turn, 99))
    return res


if __name__ == '__main__':
    for fn in sys.argv[1:]:
        print(fn)
        print(json.dumps(analyze(fn), indent=1, default=lambda x: round(x, 1)))
