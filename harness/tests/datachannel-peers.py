#!/usr/bin/env python3
"""Two real WebRTC peers (aiortc) through the data-channel endpoint (docs/datachannel.md).

The "browser" offers data channels; its offer goes to the endpoint's control protocol (offer), whose
answer it takes; the endpoint's offer for the IMS leg goes to the "IMS UE", whose answer goes back
(answer). Then both peers exchange text and binary messages both ways on an application channel
negotiated with a=dcmap (stream 1000, a=3gpp-req-app on the IMS leg, TS 24.186) and on channels the
browser opens with DCEP (unordered + max-retransmits 0, ordered + max-packet-lifetime) and on one the
IMS UE opens with DCEP (ordered, reliable). Prints one
JSON line with what arrived and the per-message delays; exits 1 with a reason on a failed check.

usage: datachannel-peers.py CONTROL_ADDR:PORT [MESSAGES_PER_KIND]
       datachannel-peers.py --ims-echo CONTROL_ADDR:PORT CALL_ID   (the IMS UE alone: ims_echo below)
"""
import asyncio
import json
import os
import random
import re
import socket
import struct
import sys
import time

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

# aioice leaves 127.0.0.1 out of its host candidates; the lab's namespace has only loopback.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"] if use_ipv4 else []

APP_ID = 1000
REQ_APP = "org.lab.chat"


def bencode(v):
    if isinstance(v, int):
        return b"i%de" % v
    if isinstance(v, str):
        v = v.encode()
    if isinstance(v, bytes):
        return b"%d:%s" % (len(v), v)
    if isinstance(v, list):
        return b"l" + b"".join(bencode(x) for x in v) + b"e"
    return b"d" + b"".join(bencode(k) + bencode(v[k]) for k in sorted(v)) + b"e"


def bdecode(b, i=0):
    c = b[i:i + 1]
    if c == b"i":
        e = b.index(b"e", i)
        return int(b[i + 1:e]), e + 1
    if c in (b"l", b"d"):
        i += 1
        items = []
        while b[i:i + 1] != b"e":
            x, i = bdecode(b, i)
            items.append(x)
        if c == b"l":
            return items, i + 1
        return {items[k].decode(): items[k + 1] for k in range(0, len(items), 2)}, i + 1
    colon = b.index(b":", i)
    n = int(b[i:colon])
    return b[colon + 1:colon + 1 + n], colon + 1 + n


def control(addr, cmd):
    """One ng-style command: "<cookie> <bencode>" over UDP, retransmitted with the same cookie."""
    host, port = addr.rsplit(":", 1)
    cookie = "%08x" % random.getrandbits(32)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(1.0)
    try:
        for _ in range(3):
            s.sendto(cookie.encode() + b" " + bencode(cmd), (host, int(port)))
            try:
                data = s.recv(65535)
            except socket.timeout:
                continue
            c, _, body = data.partition(b" ")
            if c.decode() != cookie:
                continue
            reply, _ = bdecode(body)
            if reply.get("result") != b"ok":
                fail("control %s: %s" % (cmd["command"], reply.get("error-reason", reply.get("result", b"?")).decode()))
            return reply
    finally:
        s.close()
    fail("control %s: no reply from the endpoint at %s" % (cmd["command"], addr))


def fail(why):
    print(json.dumps({"ok": False, "error": why}), flush=True)
    sys.exit(1)


def add_dcmap_to_answer(answer_sdp, offer_sdp, ids=(APP_ID,)):
    """The IMS UE accepts the offered application channels: its answer repeats their a=dcmap/a=dcsa
    lines (RFC 8864 §5.1.2). aiortc knows no dcmap, so they are added to its m=application."""
    wanted = tuple("a=dcmap:%d " % i for i in ids) + tuple("a=dcsa:%d " % i for i in ids)
    lines = [l for l in offer_sdp.split("\r\n") if l.startswith(wanted)]
    out = []
    for l in answer_sdp.rstrip("\r\n").split("\r\n"):
        out.append(l)
        if l.startswith("a=sctp-port:"):
            out.extend(lines)
    return "\r\n".join(out) + "\r\n"


def stamp(seq):
    return struct.pack("!QQ", seq, time.monotonic_ns())


class Sink:
    """What one channel end received: sequence numbers per kind and the one-way delays."""

    def __init__(self):
        self.text, self.binary, self.delays_ms = [], [], []

    def on_message(self, msg):
        now = time.monotonic_ns()
        if isinstance(msg, str):
            m = json.loads(msg)
            self.text.append(m["seq"])
            self.delays_ms.append((now - m["t"]) / 1e6)
        else:
            seq, t = struct.unpack("!QQ", msg[:16])
            self.binary.append(seq)
            self.delays_ms.append((now - t) / 1e6)


async def wait_for(cond, timeout, what):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            fail("timed out after %ss waiting for %s" % (timeout, what))
        await asyncio.sleep(0.01)


def stats(values):
    if not values:
        return None
    v = sorted(values)
    return {"n": len(v), "p50": round(v[len(v) // 2], 3), "p95": round(v[min(len(v) - 1, len(v) * 95 // 100)], 3),
            "max": round(v[-1], 3)}


async def main():
    ctl = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    call_id = "dc-test-%d" % os.getpid()
    cfg = RTCConfiguration(iceServers=[])
    browser, ims = RTCPeerConnection(cfg), RTCPeerConnection(cfg)
    # aiortc offers the pre-RFC 8841 "DTLS/SCTP 5000" + a=sctpmap unless told otherwise; browsers and
    # the IMS (RFC 8841/8864) use "UDP/DTLS/SCTP webrtc-datachannel" + a=sctp-port
    browser._sctpLegacySdp = False
    # the application channel, negotiated in SDP on both legs (same stream id)
    b_app = browser.createDataChannel("app", negotiated=True, id=APP_ID)
    i_app = ims.createDataChannel("app", negotiated=True, id=APP_ID)
    # channels the browser opens with DCEP: the endpoint opens their twins on the IMS leg
    b_unrel = browser.createDataChannel("unordered-nortx", ordered=False, maxRetransmits=0)
    b_timed = browser.createDataChannel("ordered-lifetime", ordered=True, maxPacketLifeTime=500)
    ims_opened, browser_opened = {}, {}
    ims.on("datachannel", lambda ch: ims_opened.__setitem__(ch.label, ch))
    browser.on("datachannel", lambda ch: browser_opened.__setitem__(ch.label, ch))

    t0 = time.monotonic()
    await browser.setLocalDescription(await browser.createOffer())
    r = control(ctl, {"command": "offer", "call-id": call_id, "sdp": browser.localDescription.sdp,
                      "channels": [{"id": APP_ID, "label": "app", "3gpp-req-app": REQ_APP}]})
    ims_offer = r["ims-sdp"].decode()
    for want in ("m=application ", "UDP/DTLS/SCTP webrtc-datachannel", "a=sctp-port:", "a=max-message-size:",
                 'a=dcmap:%d label="app"' % APP_ID, "a=dcsa:%d 3gpp-req-app:%s" % (APP_ID, REQ_APP)):
        if want not in ims_offer:
            fail("the endpoint's IMS-leg offer lacks %r:\n%s" % (want, ims_offer))
    await ims.setRemoteDescription(RTCSessionDescription(ims_offer, "offer"))
    await ims.setLocalDescription(await ims.createAnswer())
    r2 = control(ctl, {"command": "answer", "call-id": call_id,
                       "sdp": add_dcmap_to_answer(ims.localDescription.sdp, ims_offer)})
    if r2.get("channels") != [APP_ID]:
        fail("the endpoint did not accept channel %d from the IMS answer: %r" % (APP_ID, r2.get("channels")))
    await browser.setRemoteDescription(RTCSessionDescription(r["sdp"].decode(), "answer"))

    await wait_for(lambda: b_app.readyState == "open" and i_app.readyState == "open", 10, "the app channel to open on both peers")
    await wait_for(lambda: len(ims_opened) == 2, 10, "the DCEP channels to reach the IMS UE (got %s)" % list(ims_opened))
    await wait_for(lambda: b_unrel.readyState == "open" and b_timed.readyState == "open", 10,
                   "the endpoint's DCEP ACKs to the browser (states %s, %s)" % (b_unrel.readyState, b_timed.readyState))
    await wait_for(lambda: all(c.readyState == "open" for c in ims_opened.values()), 10, "the IMS UE's DCEP channels to open")
    # and one the IMS UE opens with DCEP, once the browser's are open: aiortc picks stream ids by its ICE
    # role (odd for both peers here), so opening from both sides at once could collide on an id
    i_dcep = ims.createDataChannel("from-ims", ordered=True)
    await wait_for(lambda: "from-ims" in browser_opened and i_dcep.readyState == "open", 10,
                   "the IMS UE's DCEP channel to reach the browser (got %s)" % list(browser_opened))
    b_dcep = browser_opened["from-ims"]
    if not b_dcep.ordered or b_dcep.maxRetransmits is not None or b_dcep.maxPacketLifeTime is not None:
        fail("the browser got from-ims as ordered=%s maxRetransmits=%s maxPacketLifeTime=%s (want ordered, reliable)"
             % (b_dcep.ordered, b_dcep.maxRetransmits, b_dcep.maxPacketLifeTime))
    setup_ms = (time.monotonic() - t0) * 1000
    u, t = ims_opened["unordered-nortx"], ims_opened["ordered-lifetime"]
    if u.ordered or u.maxRetransmits != 0:
        fail("the IMS side got unordered-nortx as ordered=%s maxRetransmits=%s" % (u.ordered, u.maxRetransmits))
    if not t.ordered or t.maxPacketLifeTime != 500:
        fail("the IMS side got ordered-lifetime as ordered=%s maxPacketLifeTime=%s" % (t.ordered, t.maxPacketLifeTime))

    sinks = {k: Sink() for k in ("app_b2i", "app_i2b", "unrel_b2i", "unrel_i2b", "timed_b2i", "timed_i2b",
                                 "fromims_b2i", "fromims_i2b")}
    b_dcep.on("message", sinks["fromims_i2b"].on_message)
    i_dcep.on("message", sinks["fromims_b2i"].on_message)
    i_app.on("message", sinks["app_b2i"].on_message)
    b_app.on("message", sinks["app_i2b"].on_message)
    u.on("message", sinks["unrel_b2i"].on_message)
    b_unrel.on("message", sinks["unrel_i2b"].on_message)
    t.on("message", sinks["timed_b2i"].on_message)
    b_timed.on("message", sinks["timed_i2b"].on_message)

    pairs = [(b_app, i_app, "app"), (b_unrel, u, "unrel"), (b_timed, t, "timed"), (b_dcep, i_dcep, "fromims")]
    for i in range(n):
        for b, im, _ in pairs:
            b.send(json.dumps({"seq": i, "t": time.monotonic_ns(), "text": "héllo ✓"}))
            im.send(json.dumps({"seq": i, "t": time.monotonic_ns(), "text": "from IMS"}))
            b.send(stamp(i) + bytes(range(256)) * 4)
            im.send(stamp(i) + b"\x00\xff" * 300)
        await asyncio.sleep(0.01)  # paced: 100 rounds/s, the delay is not a queue's
    total = lambda k: len(sinks[k].text) + len(sinks[k].binary)
    await wait_for(lambda: all(total(k) >= 2 * n for k in sinks if k.startswith("app")), 10,
                   "all %d app-channel messages each way" % (2 * n))
    await asyncio.sleep(0.3)  # stragglers on the partially reliable channels
    await wait_for(lambda: all(total(k) >= 2 * n for k in sinks if k.startswith(("timed", "fromims"))), 5,
                   "all %d messages each way on the other reliable channels" % (2 * n))
    for k in ("app_b2i", "app_i2b", "timed_b2i", "timed_i2b", "fromims_b2i", "fromims_i2b"):
        s = sinks[k]
        if s.text != list(range(n)) or s.binary != list(range(n)):
            fail("%s: the ordered channel delivered text %s.. binary %s.. (want 0..%d in order)" % (k, s.text[:10], s.binary[:10], n - 1))
    for k in ("unrel_b2i", "unrel_i2b"):
        s = sinks[k]
        if sorted(set(s.text)) != sorted(s.text) or sorted(set(s.binary)) != sorted(s.binary):
            fail("%s: a message arrived twice" % k)
    # closing a channel on one leg (SCTP stream reset) closes its twin on the other (RFC 8831 §6.7)
    b_timed.close()
    await wait_for(lambda: t.readyState == "closed", 5, "the IMS UE's ordered-lifetime channel to close after the browser closed it")
    q = control(ctl, {"command": "query", "call-id": call_id})
    d = control(ctl, {"command": "delete", "call-id": call_id})
    relay = {}
    for key in ("browser-to-ims", "ims-to-browser"):
        v = d.get(key, {})
        relay[key] = {k: v[k] for k in v}
    out = {
        "ok": True,
        "setup_ms": round(setup_ms, 1),
        "received": {k: {"text": len(s.text), "binary": len(s.binary)} for k, s in sinks.items()},
        "sent_per_kind": n,
        "delay_ms": {k: stats(s.delays_ms) for k, s in sinks.items()},
        "endpoint_relay_us": relay,
        "endpoint_channels": [{k: (v.decode() if isinstance(v, bytes) else v) for k, v in c.items()} for c in q.get("channels", [])],
    }
    await browser.close()
    await ims.close()
    print(json.dumps(out), flush=True)


async def ims_echo():
    """--ims-echo CONTROL CALL_ID: only the IMS UE, for a real browser driven by the test. Reads the
    endpoint's IMS-leg offer (JSON {"sdp": ...}) from stdin, answers it through the control protocol,
    prints {"answered": true}, then sends every message it receives back on the same channel until
    stdin closes (then prints what it echoed)."""
    ctl, call_id = sys.argv[2], sys.argv[3]
    loop = asyncio.get_running_loop()
    offer = json.loads(await loop.run_in_executor(None, sys.stdin.readline))["sdp"]
    ims = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    app = ims.createDataChannel("app", negotiated=True, id=APP_ID)
    echoed = {}

    def echo_on(ch):
        def on_message(msg):
            echoed[ch.label] = echoed.get(ch.label, 0) + 1
            ch.send(msg)
        ch.on("message", on_message)

    echo_on(app)
    ims.on("datachannel", echo_on)
    await ims.setRemoteDescription(RTCSessionDescription(offer, "offer"))
    await ims.setLocalDescription(await ims.createAnswer())
    r = control(ctl, {"command": "answer", "call-id": call_id, "sdp": add_dcmap_to_answer(ims.localDescription.sdp, offer)})
    print(json.dumps({"answered": True, "channels": r.get("channels")}), flush=True)
    await loop.run_in_executor(None, sys.stdin.read)
    print(json.dumps({"echoed": echoed}), flush=True)
    await ims.close()


if __name__ == "__main__":
    asyncio.run(ims_echo() if sys.argv[1:2] == ["--ims-echo"] else main())
