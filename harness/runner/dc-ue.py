#!/usr/bin/env python3
"""An IMS UE with data channels (issue #25; docs/datachannel.md "The IMS UE"): SIP over UDP through the lab's
P-CSCF (digest REGISTER with its users.txt password), audio as an RTP echo (as the lab's SIPp UEs do) and the
TS 26.114 data-channel media (m=application UDP/DTLS/SCTP webrtc-datachannel, a=dcmap/a=dcsa) on a real WebRTC
stack: aiortc (PyPI; ICE, DTLS, SCTP). aiortc knows neither a=dcmap nor SDPs with RTP/AVP audio, so it gets only the
data-channel section and the UE writes the a=dcmap/a=dcsa lines itself (RFC 8864).

It answers calls (MO from the browser's side) and makes one when told on stdin (MT). On each call it opens the
application channels the SDP negotiates (negotiated: true, same stream ids), sends --messages chat messages on
the first one once the browser's first message arrived on it (both legs of the endpoint are then up),
{"seq", "t" (epoch ms), "text"} (the page's format, webclient/public/data-channels.js),
and records what arrives (messages, bytes, one-way delay = now - t: same host, same clock).

stdout: one JSON object a line: {"event": "registered"}, {"event": "incoming"|"calling", "callId"},
{"event": "answered", "callId"}, {"event": "open", "label", "id"}, {"event": "message", "label", "text", "size"} (each
received), {"event": "received", "count"} (every --messages received), {"event": "ended", "callId", "by": "peer"|"us", "channels": {label: {...}}},
{"event": "error", "error"}. stdin: {"cmd": "call", "to": USER[, "text": true[, "chat": true] | "media": "audio"]} | {"cmd": "send", "text": T} (one chat
message on each call's first open channel; event {"event": "sent", "count"}) | {"cmd": "bye"} | {"cmd": "quit"}.

Real-time text (RFC 4103, harness/tests/rfc4103_ue.py): an INVITE's m=text (t140 + red) is answered with the UE's
own m=text; a call with "text": true offers audio + m=text (red/1000 + t140/1000, 2 generations) and no data channel; text that arrives is an event {"event": "text", "callId", "text"}; {"cmd": "type", "text": T, "cps": N}
types T on every call's text at N characters per second; "ended" then has "text": {"received", "sent", "stats"}.
--text-loss P (--text-seed S): each text packet sent and received is dropped with probability P.

Mid-call (issue #25): {"cmd": "add"|"remove", "what": "application"|"text"} re-INVITEs every call with the chat
channel's data-channel section or RFC 4103 m=text added (as new m-lines), or ours at port 0; a re-INVITE from the other
side that adds either is answered as on a new call, one at port 0 closes ours. Events: {"event": "reinvited", "what",
"add", "status", "sdp"}, {"event": "added", "what", ...}, {"event": "removed", "what"[, "text"]}.

usage: dc-ue.py USER [--messages N] [--interval-ms MS]
environment: LAB_PCSCF (host:port, default the table's LAB_PCSCF), IMS_USERS (users.txt; the password is read there,
never from the command line), IMS_SUBSCRIBERS (the 3GPP core's subscribers.txt: when set, the password is the user's
digest subscription's there and the digest username the IMPI user@domain), LAB_IMS_DOMAIN (ims.lab), UE_IP (127.0.0.1)
"""
import argparse
import asyncio
import hashlib
import json
import os
import random
import re
import socket
import sys
import time

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import rfc4103_ue  # noqa: E402  the lab's RFC 4103 UE (harness/tests), one implementation for both uses
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from lab_addresses import LAB  # noqa: E402  the lab's address table (harness/addresses.env)

UE_IP = os.environ.get("UE_IP", "127.0.0.1")
# aioice leaves loopback out of its host candidates; the lab's IMS side is on the loopback address.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: [UE_IP] if use_ipv4 else []

APP = "org.lab.chat"
OFFERED_CHANNELS = [{"id": 1000, "label": "chat", "app": APP}]


def out(**kv):
    print(json.dumps(kv), flush=True)


def now_ms():
    return time.time() * 1000.0


def rnd(n=8):
    return "%0*x" % (n, random.getrandbits(4 * n))


def md5(s):
    return hashlib.md5(s.encode()).hexdigest()


# ---- SIP messages ----

COMPACT = {"v": "via", "f": "from", "t": "to", "i": "call-id", "m": "contact", "l": "content-length", "c": "content-type"}


class Msg:
    def __init__(self, raw):
        head, _, body = raw.partition("\r\n\r\n")
        lines = head.split("\r\n")
        self.first = lines[0]
        self.headers = []  # (lower name, value), in order
        for l in lines[1:]:
            if not l:
                continue
            if l[0] in " \t" and self.headers:
                n, v = self.headers[-1]
                self.headers[-1] = (n, v + " " + l.strip())
                continue
            n, _, v = l.partition(":")
            n = n.strip().lower()
            self.headers.append((COMPACT.get(n, n), v.strip()))
        self.body = body
        p = self.first.split(" ", 2)
        self.is_response = p[0].startswith("SIP/")
        self.status = int(p[1]) if self.is_response else None
        self.method = None if self.is_response else p[0]
        self.uri = None if self.is_response else p[1]

    def all(self, name):
        return [v for n, v in self.headers if n == name]

    def get(self, name):
        v = self.all(name)
        return v[0] if v else None

    def list(self, name):
        """Every value of a header that may be comma-separated (Via, Record-Route)."""
        vals = []
        for v in self.all(name):
            vals.extend(x.strip() for x in re.split(r",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)(?![^<]*>)", v) if x.strip())
        return vals

    def cseq(self):
        n, m = self.get("cseq").split()
        return int(n), m

    def tag(self, name):
        m = re.search(r";\s*tag=([^;>\s]+)", self.get(name) or "")
        return m.group(1) if m else None


def uri_of(nameaddr):
    m = re.search(r"<([^>]+)>", nameaddr)
    return m.group(1) if m else nameaddr.split(";")[0].strip()


def hostport(uri):
    m = re.match(r"sips?:(?:[^@]+@)?([^;:>]+)(?::(\d+))?", uri)
    return m.group(1), int(m.group(2) or 5060)


# ---- SDP ----

def sections(sdp):
    """(session lines, [media section lines...])"""
    sess, media = [], []
    for l in sdp.replace("\r\n", "\n").split("\n"):
        if not l:
            continue
        if l.startswith("m="):
            media.append([l])
        elif media:
            media[-1].append(l)
        else:
            sess.append(l)
    return sess, media


def is_dc(sec):
    f = sec[0][2:].split()
    return f[0] == "application" and len(f) >= 4 and f[2] == "UDP/DTLS/SCTP" and f[3] == "webrtc-datachannel"


def dc_only(sdp):
    """The SDP aiortc gets: the session lines that matter to it (ICE-lite, fingerprint, ICE credentials) and the
    data-channel section only."""
    sess, media = sections(sdp)
    # a section with port 0 (refused, or kept by the network's MF: docs/datachannel.md "Bootstrap") is no data channel
    dc = next((m for m in media if is_dc(m) and m[0].split()[1] != "0"), None)
    if dc is None:
        return None
    keep = [l for l in sess if l.startswith(("a=ice-lite", "a=fingerprint:", "a=ice-ufrag:", "a=ice-pwd:", "a=setup:"))]
    head = ["v=0", "o=- %d 1 IN IP4 %s" % (random.getrandbits(31), UE_IP), "s=-", "t=0 0"]
    return "\r\n".join(head + keep + dc) + "\r\n"


def dc_section(aiortc_sdp, dcmap_lines):
    """aiortc's m=application section with the a=dcmap/a=dcsa lines added (and its own session-level
    fingerprint/ICE lines moved into the section, since the SIP SDP has other media)."""
    sess, media = sections(aiortc_sdp)
    sec = next(m for m in media if is_dc(m))
    inherit = [l for l in sess if l.startswith(("a=fingerprint:", "a=ice-ufrag:", "a=ice-pwd:", "a=setup:"))]
    have = {l.split(":")[0] for l in sec}
    sec = sec + [l for l in inherit if l.split(":")[0] not in have]
    return [l for l in sec if not l.startswith(("a=dcmap:", "a=dcsa:"))] + dcmap_lines


def dcmap_lines_of(sec_lines):
    return [l for l in sec_lines if l.startswith(("a=dcmap:", "a=dcsa:"))]


def channels_of(sec_lines):
    chans = []
    for l in sec_lines:
        m = re.match(r"a=dcmap:(\d+)(?: (.*))?$", l)
        if not m:
            continue
        ch = {"id": int(m.group(1)), "label": "", "ordered": True}
        for opt in (m.group(2) or "").split(";"):
            k, _, v = opt.strip().partition("=")
            if k == "label":
                ch["label"] = v.strip('"')
            elif k == "ordered":
                ch["ordered"] = v != "false"
            elif k == "max-retr":
                ch["maxRetransmits"] = int(v)
            elif k == "max-time":
                ch["maxPacketLifeTime"] = int(v)
        chans.append(ch)
    return chans


def dcmap_for(chans):
    lines = []
    for c in chans:
        lines.append('a=dcmap:%d label="%s"' % (c["id"], c["label"]))
        if c.get("app"):
            lines.append("a=dcsa:%d 3gpp-req-app:%s" % (c["id"], c["app"]))
    return lines


def reanswer(local_sdp, offer):
    """Our SDP again as the answer to a re-offer: the audio's direction answers the offered one."""
    _, media = sections(offer)
    audio = next((m for m in media if m[0].startswith("m=audio ")), [])
    offered = next((l[2:] for l in audio if l in ("a=sendonly", "a=recvonly", "a=inactive", "a=sendrecv")), "sendrecv")
    want = {"sendonly": "recvonly", "recvonly": "sendonly", "inactive": "inactive"}.get(offered, "sendrecv")
    sess, ours = sections(local_sdp)
    for m in ours:
        if m[0].startswith("m=audio "):
            m[:] = [l for l in m if l not in ("a=sendonly", "a=recvonly", "a=inactive", "a=sendrecv")] + ["a=" + want]
    o = [("o=%s %d" % (" ".join(l.split()[:2])[2:], int(l.split()[2]) + 1) + " " + " ".join(l.split()[3:])) if l.startswith("o=") else l
         for l in sess]
    return "\r\n".join(o + [l for m in ours for l in m]) + "\r\n"


# ---- RTP echo (audio) ----

class RtpEcho(asyncio.DatagramProtocol):
    """Sends every RTP/RTCP datagram back where it came from, as the lab's SIPp UEs (-rtp_echo)."""

    def connection_made(self, transport):
        self.t = transport

    def datagram_received(self, data, addr):
        self.t.sendto(data, addr)


# ---- the UE ----

class Call:
    def __init__(self, call_id, direction):
        self.id = call_id
        self.direction = direction
        self.local_tag = rnd()
        self.remote_tag = None
        self.remote_target = None
        self.route = []
        self.cseq = 1
        self.pc = None
        self.channels = {}  # label -> record
        self.ended = asyncio.get_running_loop().create_future()
        self.from_hdr = self.to_hdr = None
        self.tasks = []
        self.text = None  # rfc4103_ue.Ue when the call has m=text
        self.typed = ""


class Ue(asyncio.DatagramProtocol):
    def __init__(self, user, password, domain, pcscf, messages, interval_ms, text_loss=0.0, text_seed=4103):
        self.text_loss, self.text_seed = text_loss, text_seed
        self.user, self.password, self.domain = user, password, domain
        # the digest username: the IMPI (user@domain) on the 3GPP core (IMS_SUBSCRIBERS set), the user on the light one
        self.auth_user = "%s@%s" % (user, domain) if os.environ.get("IMS_SUBSCRIBERS") else user
        self.pcscf = pcscf
        self.messages, self.interval = messages, interval_ms / 1000.0
        self.pending = {}  # branch -> Future of the final response
        self.provisional = set()  # branches that got a provisional response
        self.calls = {}
        self.loop = asyncio.get_running_loop()
        self.rtp_port = None

    def connection_made(self, transport):
        self.t = transport
        self.port = transport.get_extra_info("sockname")[1]

    def contact(self):
        return "<sip:%s@%s:%d>" % (self.user, UE_IP, self.port)

    def send(self, text, dest=None):
        self.t.sendto(text.encode(), dest or self.pcscf)

    def datagram_received(self, data, addr):
        try:
            m = Msg(data.decode(errors="replace"))
        except Exception as e:  # a datagram that is no SIP: noted, not fatal
            out(event="warning", warning="unparsable datagram from %s: %s" % (addr, e))
            return
        if m.is_response:
            via = m.get("via") or ""
            b = re.search(r"branch=([^;,\s]+)", via)
            f = self.pending.get(b.group(1)) if b else None
            if f and not f.done():
                if m.status >= 200:
                    f.set_result(m)
                else:
                    self.provisional.add(b.group(1))
            elif m.status >= 200 and m.cseq()[1] == "INVITE":
                # a retransmitted 2xx of an INVITE: ACK it again
                c = self.calls.get(m.get("call-id"))
                if c:
                    self.ack(c, m.cseq()[0])
            return
        self.loop.create_task(self.on_request(m, addr))

    # -- client transactions --

    def request_text(self, method, uri, headers, body=""):
        branch = "z9hG4bK" + rnd(12)
        lines = ["%s %s SIP/2.0" % (method, uri), "Via: SIP/2.0/UDP %s:%d;branch=%s;rport" % (UE_IP, self.port, branch),
                 "Max-Forwards: 70"] + headers
        if body:
            lines.append("Content-Type: application/sdp")
        lines.append("Content-Length: %d" % len(body.encode()))
        return branch, "\r\n".join(lines) + "\r\n\r\n" + body

    async def transact(self, method, uri, headers, body="", dest=None, timeout=8.0):
        """Sends a request and returns its final response: retransmitted at 0.5, 1, 2, 4 s (RFC 3261 17.1) until a
        provisional response (then only waited for) or the final one."""
        branch, text = self.request_text(method, uri, headers, body)
        f = self.loop.create_future()
        self.pending[branch] = f
        try:
            wait, deadline = 0.5, time.monotonic() + timeout
            while time.monotonic() < deadline:
                if branch not in self.provisional:
                    self.send(text, dest)
                try:
                    return await asyncio.wait_for(asyncio.shield(f), max(0.01, min(wait, deadline - time.monotonic())))
                except asyncio.TimeoutError:
                    wait = min(wait * 2, 4.0)
            raise RuntimeError("no final response to %s %s within %.0f s" % (method, uri, timeout))
        finally:
            self.pending.pop(branch, None)
            self.provisional.discard(branch)

    async def register(self, expires=600):
        call_id, ftag = rnd(16), rnd()
        uri = "sip:" + self.domain
        base = ["From: <sip:%s@%s>;tag=%s" % (self.user, self.domain, ftag), "To: <sip:%s@%s>" % (self.user, self.domain),
                "Call-ID: " + call_id, "Contact: " + self.contact(), "Expires: %d" % expires]
        r = await self.transact("REGISTER", uri, base + ["CSeq: 1 REGISTER"])
        if r.status == 401:
            ch = r.get("www-authenticate")
            p = lambda k: (re.search(k + r'="?([^",]+)"?', ch) or [None, None])[1]
            ha1 = md5("%s:%s:%s" % (self.auth_user, p("realm"), self.password))
            ha2 = md5("REGISTER:" + uri)
            auth = 'Digest username="%s", realm="%s", nonce="%s", uri="%s", algorithm=MD5' % (self.auth_user, p("realm"), p("nonce"), uri)
            if p("qop"):
                cn = rnd()
                auth += ', qop=auth, nc=00000001, cnonce="%s", response="%s"' % (cn, md5("%s:%s:00000001:%s:auth:%s" % (ha1, p("nonce"), cn, ha2)))
            else:
                auth += ', response="%s"' % md5("%s:%s:%s" % (ha1, p("nonce"), ha2))
            r = await self.transact("REGISTER", uri, base + ["CSeq: 2 REGISTER", "Authorization: " + auth])
        if r.status != 200:
            raise RuntimeError("REGISTER of %s answered %s" % (self.user, r.first))

    # -- SDP and media --

    def audio_answer(self, offer_sec):
        f = offer_sec[0][2:].split()
        fmts = f[3:]
        rtpmap = {}
        for l in offer_sec:
            m = re.match(r"a=rtpmap:(\d+) (\S+)", l)
            if m:
                rtpmap[m.group(1)] = m.group(2)
        names = {pt: rtpmap.get(pt, {"0": "PCMU/8000", "8": "PCMA/8000"}.get(pt, "")) for pt in fmts}
        pick = next((pt for pt in fmts if names[pt].lower().startswith(("opus/", "pcma/", "pcmu/"))), fmts[0])
        chosen = [pick] + [pt for pt in fmts if names[pt].lower().startswith("telephone-event/")][:1]
        lines = ["m=audio %d RTP/AVP %s" % (self.rtp_port, " ".join(chosen))]
        for pt in chosen:
            if names[pt]:
                lines.append("a=rtpmap:%s %s" % (pt, names[pt]))
        lines.append("a=sendrecv")
        return lines

    def sdp_head(self):
        return ["v=0", "o=%s %d 1 IN IP4 %s" % (self.user, random.getrandbits(31), UE_IP), "s=-", "c=IN IP4 " + UE_IP, "t=0 0"]

    def new_pc(self, call, chans):
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        pc._sctpLegacySdp = False  # RFC 8841 "UDP/DTLS/SCTP webrtc-datachannel" + a=sctp-port
        for c in chans:
            opts = {"negotiated": True, "id": c["id"], "ordered": c.get("ordered", True)}
            if c.get("maxRetransmits") is not None:
                opts["maxRetransmits"] = c["maxRetransmits"]
            elif c.get("maxPacketLifeTime") is not None:
                opts["maxPacketLifeTime"] = c["maxPacketLifeTime"]
            ch = pc.createDataChannel(c["label"], **opts)
            rec = {"id": c["id"], "sent": 0, "received": 0, "bytesSent": 0, "bytesReceived": 0, "delays": [], "seqs": [], "ch": ch}
            call.channels[c["label"]] = rec
            self.watch(call, ch, c, rec)
        call.pc = pc
        return pc

    def watch(self, call, ch, c, rec):
        def on_open():
            out(event="open", callId=call.id, label=c["label"], id=c["id"])

        first = next(iter(call.channels)) == c["label"]

        def on_message(msg):
            size = len(msg.encode()) if isinstance(msg, str) else len(msg)
            rec["received"] += 1
            # the chat starts with the browser's first message: then both legs of the endpoint are up, and the
            # delays are the relay's, not the wait of messages queued while the browser's leg was coming up
            if first and rec["received"] == 1:
                call.tasks.append(self.loop.create_task(self.chat(call, ch, rec)))
            rec["bytesReceived"] += size
            text = None
            if isinstance(msg, str):
                try:
                    j = json.loads(msg)
                    if isinstance(j.get("t"), (int, float)):
                        rec["delays"].append(now_ms() - j["t"])
                    if isinstance(j.get("seq"), int):
                        rec["seqs"].append(j["seq"])
                    text = j.get("text")
                except ValueError:
                    text = msg
            out(event="message", callId=call.id, label=c["label"], text=text, size=size)
            if self.messages and rec["received"] % self.messages == 0:
                out(event="received", callId=call.id, label=c["label"], count=rec["received"])

        ch.on("open", on_open)
        ch.on("message", on_message)

    async def chat(self, call, ch, rec):
        for i in range(self.messages):
            if ch.readyState != "open":
                return
            data = json.dumps({"seq": i, "t": now_ms(), "text": "hello from %s #%d" % (self.user, i)})
            ch.send(data)
            rec["sent"] += 1
            rec["bytesSent"] += len(data.encode())
            await asyncio.sleep(self.interval)

    # -- server side --

    def respond(self, req, status, reason, extra=(), body="", to_tag=None):
        lines = ["SIP/2.0 %d %s" % (status, reason)]
        lines += ["Via: " + v for v in req.list("via")]
        lines += ["Record-Route: " + r for r in req.list("record-route")] if req.method == "INVITE" else []
        to = req.get("to")
        if to_tag and ";tag=" not in to:
            to += ";tag=" + to_tag
        lines += ["From: " + req.get("from"), "To: " + to, "Call-ID: " + req.get("call-id"), "CSeq: " + req.get("cseq")]
        lines += list(extra)
        if body:
            lines.append("Content-Type: application/sdp")
        lines.append("Content-Length: %d" % len(body.encode()))
        return "\r\n".join(lines) + "\r\n\r\n" + body

    async def on_request(self, req, addr):
        cid = req.get("call-id")
        c = self.calls.get(cid)
        if req.method == "INVITE" and c is None:
            await self.answer(req, addr)
        elif req.method == "INVITE" and getattr(c, "reinvite", None) and c.reinvite[0] == req.cseq()[0]:
            # a retransmission of the re-INVITE being answered (or answered: its 200 again)
            if c.reinvite[1]:
                self.send(c.reinvite[1], addr)
        elif req.method == "INVITE":
            c.reinvite = (req.cseq()[0], None)
            self.send(self.respond(req, 100, "Trying"), addr)
            # a re-INVITE (hold, resume, session refresh): the same SDP again, the audio's direction answering
            # the offer's (RFC 3264 §6.1: sendonly -> recvonly, inactive -> inactive); a data-channel section or an
            # m=text the call does not have yet is answered as on a new call, one at port 0 closes ours (RFC 8841 §10)
            if req.body:
                try:
                    c.local_sdp = reanswer(c.local_sdp, req.body)
                    c.local_sdp = await self.mid_call_changes(c, req.body, c.local_sdp)
                except Exception as e:
                    out(event="error", error="answering the re-INVITE of %s: %s" % (c.id, e))
                    c.reinvite = (req.cseq()[0], self.respond(req, 488, "Not Acceptable Here", to_tag=c.local_tag))
                    self.send(c.reinvite[1], addr)
                    return
            c.reinvite = (req.cseq()[0], self.respond(req, 200, "OK", ["Contact: " + self.contact()], c.local_sdp, c.local_tag))
            self.send(c.reinvite[1], addr)
        elif req.method == "ACK":
            if c and hasattr(c, "acked") and not c.acked.done():
                c.acked.set_result(True)
        elif req.method == "BYE":
            self.send(self.respond(req, 200, "OK"), addr)
            if c:
                await self.end(c, "peer")
        elif req.method in ("OPTIONS", "UPDATE", "PRACK", "NOTIFY", "CANCEL"):
            self.send(self.respond(req, 200, "OK", ["Contact: " + self.contact()] if req.method != "CANCEL" else []), addr)
        else:
            self.send(self.respond(req, 405, "Method Not Allowed", ["Allow: INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE"]), addr)

    async def answer(self, req, addr):
        c = Call(req.get("call-id"), "mt-at-ue")
        self.calls[c.id] = c
        c.remote_tag = req.tag("from")
        c.remote_target = uri_of(req.get("contact"))
        c.route = [uri_of(r) for r in req.list("record-route")]
        c.from_hdr = req.get("to") + ";tag=" + c.local_tag  # our side, for in-dialog requests
        c.to_hdr = req.get("from")
        c.acked = self.loop.create_future()
        sess, media = sections(req.body)
        dc_lines = next((dcmap_lines_of(m) for m in media if is_dc(m)), [])
        text_lines = next((m for m in media if m[0].startswith("m=text ")), [])
        out(event="incoming", callId=c.id, frm=uri_of(req.get("from")), pai=req.list("p-asserted-identity"), dcmap=dc_lines, iceLite="a=ice-lite" in sess,
            audio=any(m[0].startswith("m=audio ") for m in media), application=any(is_dc(m) for m in media), text=text_lines)
        self.send(self.respond(req, 100, "Trying"), addr)
        try:
            sess, media = sections(req.body)
            answer = self.sdp_head()
            dc_offer = dc_only(req.body)
            pc = None
            if dc_offer:
                dc_sec = next(m for m in media if is_dc(m) and m[0].split()[1] != "0")
                chans = channels_of(dc_sec)
                pc = self.new_pc(c, chans)
                await pc.setRemoteDescription(RTCSessionDescription(dc_offer, "offer"))
                await pc.setLocalDescription(await pc.createAnswer())
            for m in media:
                kind = m[0][2:].split()[0]
                if kind == "audio" and not m[0].split()[1] == "0":
                    answer += self.audio_answer(m)
                elif is_dc(m) and pc is not None and m[0].split()[1] != "0":
                    answer += dc_section(pc.localDescription.sdp, dcmap_lines_of(m))
                elif kind == "text" and m[0].split()[1] != "0" and c.text is None:
                    answer += await self.text_answer(c, req.body)
                else:
                    f = m[0].split()
                    answer += [" ".join([f[0], "0"] + f[2:])]
            c.local_sdp = "\r\n".join(answer) + "\r\n"
        except Exception as e:
            out(event="error", error="answering %s: %s" % (c.id, e))
            self.send(self.respond(req, 488, "Not Acceptable Here", to_tag=c.local_tag), addr)
            self.calls.pop(c.id, None)
            return
        ok = self.respond(req, 200, "OK", ["Contact: " + self.contact()], c.local_sdp, c.local_tag)
        for wait in (0.5, 1, 2, 4):
            self.send(ok, addr)
            try:
                await asyncio.wait_for(asyncio.shield(c.acked), wait)
                break
            except asyncio.TimeoutError:
                continue
        out(event="answered", callId=c.id)

    async def mid_call_changes(self, c, offer, local_sdp):
        """A re-offer's data-channel section and m=text against what the call has (issue #25): added ones answered as
        on a new call (event "added"), ones at port 0 closed (event "removed") and answered at port 0; the m-lines of
        our answer follow the offer's (RFC 3264 §8: an offer may add m-lines at the end)."""
        sess, ours = sections(local_sdp)
        _, media = sections(offer)
        out_media = []
        for i, m in enumerate(media):
            port0 = m[0].split()[1] == "0"
            mine = ours[i] if i < len(ours) else None
            if is_dc(m) and port0:
                if c.pc is not None:
                    await c.pc.close()
                    c.pc = None
                    out(event="removed", callId=c.id, what="application")
                out_media.append([" ".join([m[0].split()[0], "0"] + m[0].split()[2:])])
            elif is_dc(m) and (c.pc is None or mine is None or not is_dc(mine)):
                chans = channels_of(m)
                pc = self.new_pc(c, chans)
                await pc.setRemoteDescription(RTCSessionDescription(dc_only(offer), "offer"))
                await pc.setLocalDescription(await pc.createAnswer())
                out_media.append(dc_section(pc.localDescription.sdp, dcmap_lines_of(m)))
                out(event="added", callId=c.id, what="application", dcmap=dcmap_lines_of(m), iceLite="a=ice-lite" in offer)
            elif m[0].startswith("m=text ") and port0:
                if c.text is not None:
                    c.text_done = {"received": c.text.received, "sent": c.typed, "stats": c.text.stats()}
                    c.text.close()
                    c.text = None
                    out(event="removed", callId=c.id, what="text", text=c.text_done)
                out_media.append([" ".join([m[0].split()[0], "0"] + m[0].split()[2:])])
            elif m[0].startswith("m=text ") and (c.text is None or mine is None or not mine[0].startswith("m=text ")):
                out_media.append(await self.text_answer(c, offer))
                out(event="added", callId=c.id, what="text", text=m)
            elif mine is not None:
                out_media.append(mine)
            else:
                out_media.append([" ".join([m[0].split()[0], "0"] + m[0].split()[2:])])
        return "\r\n".join(sess + [l for m in out_media for l in m]) + "\r\n"

    async def reinvite(self, c, what, add):
        """A re-INVITE from the UE (issue #25): add the chat channel ("application") or RFC 4103 text ("text") to the
        call as new m-lines, or remove ours (port 0). Events: "reinvited" {what, add, status}, "added"/"removed"."""
        sess, ours = sections(c.local_sdp)
        pc = None
        if add and what == "application":
            pc = self.new_pc(c, OFFERED_CHANNELS)
            await pc.setLocalDescription(await pc.createOffer())
            ours.append(dc_section(pc.localDescription.sdp, dcmap_for(OFFERED_CHANNELS)))
        elif add and what == "text":
            c.text = await rfc4103_ue.Ue(self.text_loss, self.text_seed, on_text=lambda t: out(event="text", callId=c.id, text=t)).start(UE_IP)
            sdp = c.text.offer()
            ours.append(sdp[sdp.index("m=text"):].strip().split("\r\n"))
        else:
            hit = [m for m in ours if (is_dc(m) if what == "application" else m[0].startswith("m=text ")) and m[0].split()[1] != "0"]
            if not hit:
                raise RuntimeError("remove %s: the call has none" % what)
            hit[0][:] = [" ".join([hit[0][0].split()[0], "0"] + hit[0][0].split()[2:])]
        sess = [("o=%s %d" % (" ".join(l.split()[:2])[2:], int(l.split()[2]) + 1) + " " + " ".join(l.split()[3:])) if l.startswith("o=") else l
                for l in sess]
        c.local_sdp = "\r\n".join(sess + [l for m in ours for l in m]) + "\r\n"
        c.cseq += 1
        r = await self.transact("INVITE", c.remote_target, self.in_dialog(c, "INVITE", c.cseq), c.local_sdp, timeout=15)
        self.ack(c, c.cseq)
        out(event="reinvited", callId=c.id, what=what, add=add, status=r.status, sdp=r.body)
        if r.status != 200:
            return
        _, media = sections(r.body)
        if add and what == "application":
            sec = next((m for m in media if is_dc(m)), None)
            if sec is None or sec[0].split()[1] == "0":
                out(event="warning", callId=c.id, warning="the re-INVITE's answer rejects the data-channel section")
            else:
                await pc.setRemoteDescription(RTCSessionDescription(dc_only(r.body), "answer"))
                out(event="added", callId=c.id, what="application", dcmap=dcmap_lines_of(sec))
        elif add:
            sec = next((m for m in media if m[0].startswith("m=text ")), None)
            if sec is None or sec[0].split()[1] == "0":
                out(event="warning", callId=c.id, warning="the re-INVITE's answer rejects m=text")
            else:
                c.text.accept(r.body)
                out(event="added", callId=c.id, what="text", text=sec)
        elif what == "application" and c.pc is not None:
            await c.pc.close()
            c.pc = None
            out(event="removed", callId=c.id, what="application")
        elif what == "text" and c.text is not None:
            c.text_done = {"received": c.text.received, "sent": c.typed, "stats": c.text.stats()}
            c.text.close()
            c.text = None
            out(event="removed", callId=c.id, what="text", text=c.text_done)

    async def text_answer(self, c, offer_sdp):
        """The call's RFC 4103 text: our m=text section answering the offer's (its payload types, red kept)."""
        c.text = await rfc4103_ue.Ue(self.text_loss, self.text_seed, on_text=lambda t: out(event="text", callId=c.id, text=t)).start(UE_IP)
        sdp = c.text.answer(offer_sdp)
        return sdp[sdp.index("m=text"):].strip().split("\r\n")

    async def type(self, c, text, cps):
        c.typed += text
        await c.text.type(text, cps)
        out(event="typed", callId=c.id, chars=len(c.typed))

    # -- client side: a call from the UE (MT at the browser) --

    async def call(self, to, text=False, audio_only=False, chat=False):
        """A call to `to`: audio + the chat data channel, or with text=True audio + RFC 4103 m=text (no data channel;
        with chat=True too, m=text then the data-channel section), or with audio_only=True audio alone (data channels or
        text may be added later, `add`)."""
        c = Call(rnd(16) + "@" + UE_IP, "mo-at-ue")
        self.calls[c.id] = c
        c.from_hdr = "<sip:%s@%s>;tag=%s" % (self.user, self.domain, c.local_tag)
        target = "sip:%s@%s" % (to, self.domain)
        out(event="calling", callId=c.id, to=target, text=text)
        offer = self.sdp_head() + ["m=audio %d RTP/AVP 111 8 101" % self.rtp_port, "a=rtpmap:111 opus/48000/2",
                                   "a=rtpmap:8 PCMA/8000", "a=rtpmap:101 telephone-event/8000", "a=sendrecv"]
        pc = None
        if text:
            c.text = await rfc4103_ue.Ue(self.text_loss, self.text_seed, on_text=lambda t: out(event="text", callId=c.id, text=t)).start(UE_IP)
            sdp = c.text.offer()
            offer += sdp[sdp.index("m=text"):].strip().split("\r\n")
        if (chat or not text) and not audio_only:
            pc = self.new_pc(c, OFFERED_CHANNELS)
            await pc.setLocalDescription(await pc.createOffer())
            offer += dc_section(pc.localDescription.sdp, dcmap_for(OFFERED_CHANNELS))
        c.local_sdp = "\r\n".join(offer) + "\r\n"
        r = await self.transact("INVITE", target, [c.from_hdr and "From: " + c.from_hdr, "To: <%s>" % target, "Call-ID: " + c.id,
                                                   "CSeq: 1 INVITE", "Contact: " + self.contact()], c.local_sdp, timeout=30)
        if r.status != 200:
            self.calls.pop(c.id, None)
            raise RuntimeError("the call to %s was answered %s" % (target, r.first))
        c.to_hdr = r.get("to")
        c.remote_tag = r.tag("to")
        c.remote_target = uri_of(r.get("contact"))
        c.route = [uri_of(x) for x in reversed(r.list("record-route"))]
        self.ack(c)
        if c.text:
            _, media = sections(r.body)
            sec = next((m for m in media if m[0].startswith("m=text ")), None)
            if sec is None or sec[0].split()[1] == "0":
                out(event="warning", callId=c.id, warning="the answer has no m=text or rejects it (port 0)")
            else:
                c.text.accept(r.body)
                out(event="text-answer", callId=c.id, text=sec)
        dc_answer = dc_only(r.body)
        if pc is None:
            pass
        elif dc_answer is None:
            out(event="warning", callId=c.id, warning="the answer has no data-channel section")
        else:
            _, media = sections(r.body)
            sec = next(m for m in media if is_dc(m))
            if sec[0].split()[1] == "0":
                out(event="warning", callId=c.id, warning="the answer rejected the data-channel section (port 0)")
            else:
                await pc.setRemoteDescription(RTCSessionDescription(dc_answer, "answer"))
        out(event="answered", callId=c.id)

    def in_dialog(self, c, method, cseq):
        hdrs = ["Route: <%s>" % r for r in c.route] + ["From: " + c.from_hdr, "To: " + c.to_hdr, "Call-ID: " + c.id,
                                                         "CSeq: %d %s" % (cseq, method), "Contact: " + self.contact()]
        return hdrs

    def ack(self, c, cseq=1):
        _, text = self.request_text("ACK", c.remote_target, self.in_dialog(c, "ACK", cseq))
        self.send(text)

    async def bye(self, c):
        c.cseq += 1
        try:
            await self.transact("BYE", c.remote_target, self.in_dialog(c, "BYE", c.cseq))
        finally:
            await self.end(c, "us")

    async def end(self, c, by):
        if c.ended.done():
            return
        c.ended.set_result(True)
        for t in c.tasks:
            t.cancel()
        summary = {}
        for label, r in c.channels.items():
            d = sorted(r["delays"])
            summary[label] = {k: r[k] for k in ("id", "sent", "received", "bytesSent", "bytesReceived")}
            summary[label]["inOrder"] = r["seqs"] == sorted(r["seqs"])
            summary[label]["delayMs"] = {"n": len(d), "p50": round(d[len(d) // 2], 2), "p95": round(d[min(len(d) - 1, len(d) * 95 // 100)], 2),
                                         "max": round(d[-1], 2)} if d else None
        if c.pc:
            await c.pc.close()
        text = getattr(c, "text_done", None)  # the text's figures when it was removed mid-call
        if c.text:
            text = {"received": c.text.received, "sent": c.typed, "stats": c.text.stats()}
            c.text.close()
        self.calls.pop(c.id, None)
        out(event="ended", callId=c.id, by=by, channels=summary, text=text)


def password_of(user):
    subscribers = os.environ.get("IMS_SUBSCRIBERS")
    if subscribers:
        # the 3GPP core's HSS table (ims-sim/3gpp/subscribers.txt): IMPI IMPUs K OPc AMF SQN digest PASSWORD
        impi = "%s@%s" % (user, os.environ.get("LAB_IMS_DOMAIN", "ims.lab"))
        with open(subscribers) as f:
            for line in f:
                col = line.split("#", 1)[0].split()
                if len(col) >= 8 and col[0] == impi and col[6] == "digest":
                    return col[7]
        raise SystemExit("dc-ue: %s has no digest subscription in %s" % (impi, subscribers))
    path = os.environ.get("IMS_USERS") or os.path.join(os.path.dirname(__file__), "..", "..", "ims-sim", "users.txt")
    with open(path) as f:
        for line in f:
            if line.startswith("#") or ":" not in line:
                continue
            u, _, p = line.strip().partition(":")
            if u == user:
                return p
    raise SystemExit("dc-ue: %s is not a user of %s" % (user, path))


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("user")
    ap.add_argument("--messages", type=int, default=20)
    ap.add_argument("--interval-ms", type=float, default=20)
    ap.add_argument("--text-loss", type=float, default=0.0, help="drop probability of each RFC 4103 packet sent and received")
    ap.add_argument("--text-seed", type=int, default=4103)
    a = ap.parse_args()
    host, port = os.environ.get("LAB_PCSCF", LAB["LAB_PCSCF"]).rsplit(":", 1)
    loop = asyncio.get_running_loop()
    ue = Ue(a.user, password_of(a.user), os.environ.get("LAB_IMS_DOMAIN", "ims.lab"), (host, int(port)), a.messages, a.interval_ms,
            a.text_loss, a.text_seed)
    await loop.create_datagram_endpoint(lambda: ue, local_addr=(UE_IP, 0))
    rtp, _ = await loop.create_datagram_endpoint(RtpEcho, local_addr=(UE_IP, 0))
    ue.rtp_port = rtp.get_extra_info("sockname")[1]
    try:
        await ue.register()
    except Exception as e:
        out(event="error", error=str(e))
        return 1
    out(event="registered", user=a.user, sip="%s:%d" % (UE_IP, ue.port))
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            break
        try:
            cmd = json.loads(line)
        except ValueError:
            out(event="error", error="stdin: not JSON: %r" % line[:80])
            continue
        try:
            if cmd.get("cmd") == "call":
                loop.create_task(report(ue.call(cmd["to"], bool(cmd.get("text")), cmd.get("media") == "audio", bool(cmd.get("chat")))))
            elif cmd.get("cmd") == "type":
                typing = [c for c in ue.calls.values() if c.text]
                if not typing:
                    out(event="error", error="type: no call with real-time text")
                for c in typing:
                    c.tasks.append(loop.create_task(report(ue.type(c, cmd["text"], cmd.get("cps", 20)))))
            elif cmd.get("cmd") == "send":
                sent = 0
                for c in list(ue.calls.values()):
                    for rec in c.channels.values():
                        if rec["ch"].readyState == "open":
                            data = json.dumps({"seq": rec["sent"], "t": now_ms(), "text": str(cmd.get("text", ""))})
                            rec["ch"].send(data)
                            rec["sent"] += 1
                            rec["bytesSent"] += len(data.encode())
                            sent += 1
                            break
                out(event="sent", count=sent)
            elif cmd.get("cmd") in ("add", "remove"):
                what = cmd.get("what")
                if what not in ("application", "text"):
                    out(event="error", error="%s: \"what\" is application or text, not %r" % (cmd["cmd"], what))
                    continue
                for c in list(ue.calls.values()):
                    loop.create_task(report(ue.reinvite(c, what, cmd["cmd"] == "add")))
            elif cmd.get("cmd") == "bye":
                for c in list(ue.calls.values()):
                    await ue.bye(c)
            elif cmd.get("cmd") == "quit":
                break
        except Exception as e:
            out(event="error", error=str(e))
    for c in list(ue.calls.values()):
        await ue.end(c, "us")
    try:
        await ue.register(expires=0)
    except Exception:
        pass
    return 0


async def report(coro):
    try:
        await coro
    except Exception as e:
        out(event="error", error=str(e))


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
