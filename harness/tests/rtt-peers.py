#!/usr/bin/env python3
"""Real-time text through the data-channel endpoint (docs/datachannel.md "Real-time text").

A WebRTC peer (aiortc) plays the browser: it opens a T.140 data channel (RFC 8865: label "t140",
protocol "t140") with DCEP, or negotiated by id with --negotiated. The endpoint bridges it to RFC 4103
RTP text; the IMS side is the lab's RFC 4103 UE (rfc4103_ue.py, its own Python implementation). The
set-up goes through the endpoint's control protocol as the gateway would: offer, text-offer,
text-answer (a text-only call: the IMS leg's m=application is left out). The browser types a sentence
one character per message; once the UE has all of it, the UE types its answer, and the browser must get
exactly that. With --loss P the UE drops each RTP packet it sends and receives with probability P (at
most 2 in a row), and the browser and the UE type at the same time. --redundancy 0 asks the endpoint
for plain t140 (the UE answers alike): the same drops then lose text, which the test expects to see as
U+FFFD. Prints one JSON line; exits 1 with a reason when a set-up step fails (the text itself is judged
by the caller).

usage: rtt-peers.py CONTROL_ADDR:PORT [--loss P] [--seed S] [--negotiated ID] [--redundancy N] [--cps N]
"""
import argparse
import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util

_spec = importlib.util.spec_from_file_location("datachannel_peers", os.path.join(os.path.dirname(os.path.abspath(__file__)), "datachannel-peers.py"))
peers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peers)  # control(), fail(), wait_for(), and aioice limited to 127.0.0.1
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription  # noqa: E402

from rfc4103_ue import Ue  # noqa: E402

# T.140 text of both kinds the bridge must keep intact: ASCII, 2-, 3- and 4-byte UTF-8, T.140's line
# separator U+2028
BROWSER_TEXT = "Hello from the browser: héllo ✓ 😀\u2028second line."
UE_TEXT = "Hi, this is the IMS UE — Grüße 👍 over RFC 4103."


def sdp_without(sdp, kind):
    """The SDP without its m=<kind> sections (the gateway leaves the IMS leg's m=application out of a
    text-only call)."""
    out, skip = [], False
    for line in sdp.rstrip("\r\n").split("\r\n"):
        if line.startswith("m="):
            skip = line.startswith("m=%s " % kind)
        if not skip:
            out.append(line)
    return "\r\n".join(out) + "\r\n"


async def settle(cond, timeout, progress=None, quiet=1.2):
    """Until cond() holds, timeout passes, or progress() (e.g. the text received so far) has not changed
    for `quiet` seconds: lost text without redundancy never comes, so waiting longer shows nothing new."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while not cond() and time.monotonic() < deadline:
        if progress is not None:
            now = progress()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since > quiet:
                return
        await asyncio.sleep(0.02)


async def type_on(channel, text, cps):
    for ch in text:
        channel.send(ch)  # one T.140 message per character, as an RTT page sends keystrokes
        await asyncio.sleep(1 / cps)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ctl")
    ap.add_argument("--loss", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=4103)
    ap.add_argument("--negotiated", type=int, default=-1)
    ap.add_argument("--cps", type=float, default=30)
    ap.add_argument("--redundancy", type=int, default=2)
    a = ap.parse_args()
    call_id = "rtt-test-%d-%d" % (os.getpid(), int(a.loss * 100))
    browser = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    browser._sctpLegacySdp = False
    if a.negotiated >= 0:
        t140 = browser.createDataChannel("t140", protocol="t140", negotiated=True, id=a.negotiated)
    else:
        t140 = browser.createDataChannel("t140", protocol="t140")
    got = []
    t140.on("message", lambda m: got.append(m))
    ue = await Ue(a.loss, a.seed, 2).start()
    t0 = time.monotonic()
    try:
        await browser.setLocalDescription(await browser.createOffer())
        r = peers.control(a.ctl, {"command": "offer", "call-id": call_id, "sdp": browser.localDescription.sdp})
        text_cmd = {"command": "text-offer", "call-id": call_id}
        if a.negotiated >= 0:
            text_cmd["channel"] = a.negotiated
        if a.redundancy != 2:
            text_cmd["redundancy"] = a.redundancy
        to = peers.control(a.ctl, text_cmd)
        text_offer = to["sdp"].decode()
        wants = ("m=text ", " RTP/AVP 100 98", "a=rtpmap:100 red/1000", "a=fmtp:100 98/98/98", "a=rtpmap:98 t140/1000")
        if a.redundancy == 0:
            wants = ("m=text ", " RTP/AVP 98\r\n", "a=rtpmap:98 t140/1000")
        for want in wants:
            if want not in text_offer:
                peers.fail("the endpoint's m=text offer lacks %r (RFC 4103 §6 with 2 redundant generations):\n%s" % (want, text_offer))
        # the INVITE toward IMS would carry rtpengine's sections + this m=text; the UE answers it
        invite_sdp = sdp_without(r["ims-sdp"].decode(), "application") + text_offer[text_offer.index("m=text"):]
        answer = ue.answer(invite_sdp)
        ta = peers.control(a.ctl, {"command": "text-answer", "call-id": call_id, "sdp": answer})
        if ta.get("redundancy") != a.redundancy:
            peers.fail("the endpoint did not take %d redundant generations from the UE's answer: %r" % (a.redundancy, ta))
        await browser.setRemoteDescription(RTCSessionDescription(r["sdp"].decode(), "answer"))
        await peers.wait_for(lambda: t140.readyState == "open", 10, "the T.140 channel to open (the endpoint's DCEP ACK)")
        setup_ms = (time.monotonic() - t0) * 1000
        want_browser = BROWSER_TEXT
        want_ue = UE_TEXT
        t1 = time.monotonic()
        if a.loss > 0:
            # both type at once, as in a real RTT conversation; more packets each way for the loss to hit
            await asyncio.gather(type_on(t140, BROWSER_TEXT, a.cps), ue.type(UE_TEXT, a.cps))
        else:
            await type_on(t140, BROWSER_TEXT, a.cps)
        # without redundancy lost text never comes: wait for the text or for the streams to go quiet
        await settle(lambda: len(ue.received) >= len(want_browser), 5, lambda: ue.received)
        b2u_ms = (time.monotonic() - t1) * 1000
        if a.loss == 0:
            await ue.type(UE_TEXT, a.cps)
        await settle(lambda: len("".join(got)) >= len(want_ue), 5, lambda: len(got))
        await peers.wait_for(ue.idle, 3, "the UE to send its last redundancy")
        await asyncio.sleep(0.9)  # the endpoint's last redundancy packets; a doubled character would show now
        await settle(lambda: ue.rtcp_received >= 1, 4)  # the endpoint's first RTCP report (1.25-3.75 s after the answer)
        q = peers.control(a.ctl, {"command": "query", "call-id": call_id})
        d = peers.control(a.ctl, {"command": "delete", "call-id": call_id})
        text = d.get("text", {})
        dec = lambda v: {k: (dec(x) if isinstance(x, dict) else x.decode() if isinstance(x, bytes) else x) for k, x in v.items()}
        out = {
            "ok": True,
            "setup_ms": round(setup_ms, 1),
            "browser_to_ue_ms": round(b2u_ms, 1),
            "at_ue": ue.received,
            "at_browser": "".join(got),
            "want_at_ue": want_browser,
            "want_at_browser": want_ue,
            "browser_messages": len(got),
            "ue": ue.stats(),
            "endpoint_text": dec(text),
            "endpoint_legs": dec(q.get("legs", {})),
        }
        print(json.dumps(out), flush=True)
    finally:
        ue.close()
        await browser.close()


if __name__ == "__main__":
    asyncio.run(main())
