#!/usr/bin/env python3
"""The load of `./lab bench datachannel` (harness/bench/datachannel.mjs, docs/benchmarks.md "Data channels").

N calls through the data-channel endpoint (media-relay/datachannel), each between two real WebRTC peers
(aiortc: ICE, DTLS, SCTP), set up over the endpoint's control protocol the way the gateway does it
(offer with the browser's SDP and the application channels, the IMS side's answer): the "browser" peer on
the browser leg and the "IMS UE" peer on the IMS leg. Each call carries C application channels negotiated in
SDP (a=dcmap stream ids 1000.., a=3gpp-req-app on the IMS leg, TS 24.186), and each channel carries R binary
messages a second of B bytes in each direction for D seconds, paced on an absolute clock. Every message holds
its channel, sequence number and send time (CLOCK_MONOTONIC of this one process, so the one-way delay through
the endpoint is exact): the result gives per direction the delay p50/p95/p99/max, messages sent, received,
lost, duplicated and out of order, the set-up time per call, the endpoint's own relay time (its `delete`
reply) and this driver's CPU.

With --text each call also carries real-time text the way the gateway bridges it (docs/datachannel.md
"Real-time text"): the browser peer opens a T.140 channel (RFC 8865, DCEP) that the endpoint bridges to RFC 4103
RTP text (text-offer / text-answer) toward the lab's RFC 4103 UE (harness/tests/rfc4103_ue.py); both type at
--cps characters a second for the whole load, and the result gives per direction the characters typed and
shown, whether the text arrived intact, and the delay from a key typed to its character shown at the far end
(RFC 4103's 300 ms buffering included).

usage: dc-load.py --control ADDR:PORT [--calls N] [--channels C] [--rate R] [--size B] [--duration S]
                  [--text [--cps N]]
stdout: one JSON object per line: {"event": "setup"|"load"|"progress"|"drain"|"result", ...}; the last line
is the result. Exit 1 (with {"event": "result", "ok": false, "error": ...}) when a call could not be set up.
"""
import argparse
import asyncio
import json
import os
import resource
import struct
import sys
import time

import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "dcpeers", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "datachannel-peers.py"))
dcpeers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dcpeers)  # the control client, the dcmap answer, aioice's loopback candidates

from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from rfc4103_ue import Ue  # noqa: E402  the lab's RFC 4103 UE (RTP text with RFC 2198 redundancy)

FIRST_ID = 1000  # TS 24.186: application data channels from stream id 1000
REQ_APP = "org.lab.bench"
HEADER = struct.Struct("!HQQ")  # channel index, sequence number, send time (ns, CLOCK_MONOTONIC)


def emit(**kv):
    print(json.dumps(kv), flush=True)


class Failed(Exception):
    pass


def control(addr, cmd):
    """dcpeers.control, but a failure is an exception of this run, not an exit of the process."""
    try:
        return dcpeers.control(addr, cmd)
    except SystemExit:
        raise Failed("control %s for %s failed (see the line above)" % (cmd["command"], cmd.get("call-id")))


class Direction:
    """What one direction of all calls' channels carried."""

    def __init__(self):
        self.sent = 0
        self.received = 0
        self.delays_ms = []
        self.seen = {}      # (call, channel) -> set of sequence numbers
        self.last = {}      # (call, channel) -> highest sequence number so far
        self.duplicates = 0
        self.out_of_order = 0

    def on_message(self, call, msg):
        now = time.monotonic_ns()
        ch, seq, t = HEADER.unpack_from(msg)
        key = (call, ch)
        seen = self.seen.setdefault(key, set())
        if seq in seen:
            self.duplicates += 1
            return
        seen.add(seq)
        if seq < self.last.get(key, -1):
            self.out_of_order += 1
        self.last[key] = max(seq, self.last.get(key, -1))
        self.received += 1
        self.delays_ms.append((now - t) / 1e6)

    def summary(self):
        v = sorted(self.delays_ms)
        pick = lambda q: round(v[min(len(v) - 1, int(len(v) * q))], 3) if v else None
        unique = sum(len(s) for s in self.seen.values())
        return {"sent": self.sent, "received": unique, "lost": self.sent - unique, "duplicates": self.duplicates,
                "out_of_order": self.out_of_order,
                "delay_ms": {"n": len(v), "p50": pick(0.5), "p95": pick(0.95), "p99": pick(0.99),
                             "max": round(v[-1], 3) if v else None,
                             "mean": round(sum(v) / len(v), 3) if v else None},
                "delay_hist_ms": histogram(v)}


TYPED = "the quick brown fox jumps over the lazy dog 0123456789 "


class TextDirection:
    """Real-time text one way, all calls: when each character was typed and when it was shown at the far end
    (characters arrive in order, so the n-th shown is the n-th typed unless text was lost)."""

    def __init__(self):
        self.typed = {}   # call -> [monotonic ns per character typed]
        self.shown = {}   # call -> text shown so far
        self.delays_ms = []

    def type(self, call, ch):
        self.typed.setdefault(call, []).append(time.monotonic_ns())

    def show(self, call, text):
        now = time.monotonic_ns()
        before = self.shown.get(call, "")
        typed = self.typed.get(call, [])
        for k in range(len(text)):
            n = len(before) + k
            if n < len(typed):
                self.delays_ms.append((now - typed[n]) / 1e6)
        self.shown[call] = before + text

    def summary(self):
        v = sorted(self.delays_ms)
        pick = lambda q: round(v[min(len(v) - 1, int(len(v) * q))], 1) if v else None
        typed = sum(len(t) for t in self.typed.values())
        shown = sum(len(t) for t in self.shown.values())
        want = lambda c: "".join(TYPED[i % len(TYPED)] for i in range(len(self.typed.get(c, []))))
        intact = sum(1 for c in self.typed if self.shown.get(c, "") == want(c))
        return {"typed": typed, "shown": shown, "calls_intact": intact, "calls": len(self.typed),
                "missing_marks": sum(t.count("\ufffd") for t in self.shown.values()),
                "delay_ms": {"n": len(v), "p50": pick(0.5), "p95": pick(0.95), "p99": pick(0.99),
                             "max": round(v[-1], 1) if v else None}}


def histogram(sorted_ms):
    """Counts per 0.25 ms bin up to 20 ms, the rest in the last bin: for the report's plot."""
    bins = [0] * 81
    for d in sorted_ms:
        bins[min(80, int(d / 0.25))] += 1
    while len(bins) > 1 and bins[-1] == 0:
        bins.pop()
    return bins


class Call:
    def __init__(self, index, ctl, channels, tag, text=None):
        self.index, self.ctl, self.n, self.text = index, ctl, channels, text
        self.call_id = "dc-bench-%s-%d" % (tag, index)
        self.ids = [FIRST_ID + k for k in range(channels)]
        cfg = RTCConfiguration(iceServers=[])
        self.browser, self.ims = RTCPeerConnection(cfg), RTCPeerConnection(cfg)
        self.browser._sctpLegacySdp = False  # RFC 8841 "UDP/DTLS/SCTP webrtc-datachannel", as browsers offer
        self.b = [self.browser.createDataChannel("app%d" % k, negotiated=True, id=i) for k, i in enumerate(self.ids)]
        self.i = [self.ims.createDataChannel("app%d" % k, negotiated=True, id=i) for k, i in enumerate(self.ids)]
        self.setup_ms = None
        self.endpoint = None
        self.t140 = self.browser.createDataChannel("t140", protocol="t140") if text else None  # RFC 8865, DCEP
        self.ue = None
        if self.t140:
            self.t140.on("message", lambda m: text[1].show(self.index, m))

    async def setup(self, timeout_s):
        t0 = time.monotonic()
        await self.browser.setLocalDescription(await self.browser.createOffer())
        r = control(self.ctl, {"command": "offer", "call-id": self.call_id, "sdp": self.browser.localDescription.sdp,
                               "channels": [{"id": i, "label": "app%d" % k, "3gpp-req-app": REQ_APP}
                                            for k, i in enumerate(self.ids)]})
        ims_offer = r["ims-sdp"].decode()
        if self.t140:
            # the INVITE toward IMS would carry the data-channel section and this m=text: the aiortc peer answers
            # the first, the RFC 4103 UE the second (text-answer), as the gateway sends each its part
            self.ue = await Ue(on_text=lambda t: self.text[0].show(self.index, t)).start()
            to = control(self.ctl, {"command": "text-offer", "call-id": self.call_id})
            text_offer = to["sdp"].decode()
            control(self.ctl, {"command": "text-answer", "call-id": self.call_id, "sdp": self.ue.answer(text_offer)})
        await self.ims.setRemoteDescription(RTCSessionDescription(ims_offer, "offer"))
        await self.ims.setLocalDescription(await self.ims.createAnswer())
        r2 = control(self.ctl, {"command": "answer", "call-id": self.call_id,
                                "sdp": dcpeers.add_dcmap_to_answer(self.ims.localDescription.sdp, ims_offer, self.ids)})
        if sorted(r2.get("channels") or []) != self.ids:
            raise Failed("call %d: the endpoint accepted channels %r from the IMS answer, not %r"
                         % (self.index, r2.get("channels"), self.ids))
        await self.browser.setRemoteDescription(RTCSessionDescription(r["sdp"].decode(), "answer"))
        deadline = time.monotonic() + timeout_s
        while not all(c.readyState == "open" for c in self.b + self.i + ([self.t140] if self.t140 else [])):
            if time.monotonic() > deadline:
                states = [c.readyState for c in self.b + self.i + ([self.t140] if self.t140 else [])]
                raise Failed("call %d: its %d channels were not open on both peers within %d s (states %s)"
                             % (self.index, self.n, timeout_s, states))
            await asyncio.sleep(0.005)
        self.setup_ms = (time.monotonic() - t0) * 1000

    def listen(self, up, down):
        for k in range(self.n):
            self.i[k].on("message", lambda m, c=self.index: up.on_message(c, m))
            self.b[k].on("message", lambda m, c=self.index: down.on_message(c, m))

    def finish(self):
        d = control(self.ctl, {"command": "delete", "call-id": self.call_id})
        self.endpoint = {k: {kk: (vv.decode() if isinstance(vv, bytes) else vv) for kk, vv in d.get(k, {}).items()}
                         for k in ("browser-to-ims", "ims-to-browser")}

    async def close(self):
        if self.ue:
            self.ue.close()
        await self.browser.close()
        await self.ims.close()


async def sender(channel, index, direction, rate, size, until_ns, stop):
    """R messages a second on one channel, on an absolute schedule (a late send does not shift the next)."""
    period = 1e9 / rate
    pad = b"\x5a" * max(0, size - HEADER.size)
    nxt = time.monotonic_ns()
    seq = 0
    while not stop.is_set():
        now = time.monotonic_ns()
        if now >= until_ns:
            return
        if now < nxt:
            await asyncio.sleep((nxt - now) / 1e9)
            continue
        channel.send(HEADER.pack(index, seq, time.monotonic_ns()) + pad)
        direction.sent += 1
        seq += 1
        nxt += period


async def typist(send, direction, call, cps, until_ns, stop):
    """One key a 1/cps seconds, each its own T.140 message (as an RTT page sends keystrokes)."""
    n = 0
    nxt = time.monotonic_ns()
    while not stop.is_set() and time.monotonic_ns() < until_ns:
        now = time.monotonic_ns()
        if now < nxt:
            await asyncio.sleep((nxt - now) / 1e9)
            continue
        ch = TYPED[n % len(TYPED)]
        direction.type(call, ch)
        send(ch)
        n += 1
        nxt += 1e9 / cps


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--control", required=True)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--channels", type=int, default=2)
    ap.add_argument("--rate", type=float, default=10.0)
    ap.add_argument("--size", type=int, default=200)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--setup-timeout", type=int, default=15)
    ap.add_argument("--text", action="store_true")
    ap.add_argument("--cps", type=float, default=5.0)
    a = ap.parse_args()
    if a.size < HEADER.size:
        emit(event="result", ok=False, error="--size must be at least %d bytes (channel, sequence, time)" % HEADER.size)
        return 1
    tag = "%d-%d" % (os.getpid(), int(time.time()))
    up, down = Direction(), Direction()
    text = (TextDirection(), TextDirection()) if a.text else None  # browser -> IMS UE, IMS UE -> browser
    calls = [Call(n, a.control, a.channels, tag, text) for n in range(a.calls)]
    error = None
    set_up = []
    try:
        for c in calls:  # one after the other: the set-up time is the endpoint's and the peers', not a queue's
            await c.setup(a.setup_timeout)
            c.listen(up, down)
            set_up.append(c)
            emit(event="setup", call=c.index, setup_ms=round(c.setup_ms, 1))
    except Failed as e:
        error = str(e)
    except Exception as e:  # aiortc or the network: said in one line, the run goes on to its cleanup
        error = "call %d: %s: %s" % (len(set_up), type(e).__name__, e)
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    load_start = time.time()
    if not error:
        emit(event="load", t_ms=int(load_start * 1000), calls=len(set_up), channels=len(set_up) * a.channels)
        stop = asyncio.Event()
        until = time.monotonic_ns() + int(a.duration * 1e9)
        tasks = []
        for c in set_up:
            for k in range(a.channels):
                tasks.append(asyncio.create_task(sender(c.b[k], k, up, a.rate, a.size, until, stop)))
                tasks.append(asyncio.create_task(sender(c.i[k], k, down, a.rate, a.size, until, stop)))
            if text:
                tasks.append(asyncio.create_task(typist(c.t140.send, text[0], c.index, a.cps, until, stop)))
                tasks.append(asyncio.create_task(typist(c.ue.sender.type, text[1], c.index, a.cps, until, stop)))
        t_next = time.monotonic() + 5
        while time.monotonic_ns() < until:
            await asyncio.sleep(0.2)
            if time.monotonic() >= t_next:
                t_next += 5
                emit(event="progress", s=round(time.time() - load_start), sent_up=up.sent, received_up=up.received,
                     sent_down=down.sent, received_down=down.received)
        await asyncio.gather(*tasks)
        emit(event="drain", t_ms=int(time.time() * 1000))
        deadline = time.monotonic() + 3  # the reliable channels deliver what is in flight
        while (up.received < up.sent or down.received < down.sent) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if text:  # RFC 4103: the last characters leave within the 300 ms buffer, then their redundancy
            typed = lambda d: sum(len(t) for t in d.typed.values())
            shown = lambda d: sum(len(t) for t in d.shown.values())
            deadline = time.monotonic() + 3
            while any(shown(d) < typed(d) for d in text) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.7)  # a doubled character would show now
    load_end = time.time()
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    for c in set_up:
        try:
            c.finish()
        except Failed as e:
            error = error or str(e)
    for c in calls:
        await c.close()
    setup = sorted(c.setup_ms for c in set_up)
    cpu_s = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    wall = max(1e-6, load_end - load_start)
    emit(event="result", ok=error is None, error=error, calls=a.calls, calls_set_up=len(set_up), channels=a.channels,
         rate_per_channel=a.rate, size=a.size, duration_s=a.duration,
         window_ms=[int(load_start * 1000), int(load_end * 1000)],
         setup_ms={"n": len(setup), "p50": round(setup[len(setup) // 2], 1) if setup else None,
                   "max": round(setup[-1], 1) if setup else None},
         browser_to_ims=up.summary(), ims_to_browser=down.summary(),
         text=None if not text else {"cps": a.cps, "browser_to_ims": text[0].summary(), "ims_to_browser": text[1].summary()},
         endpoint=[{"call": c.index, **(c.endpoint or {})} for c in set_up],
         driver_cpu_pct=round(cpu_s / wall * 100, 2))
    return 0 if error is None else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
