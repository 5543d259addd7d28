#!/usr/bin/env python3
"""An RFC 4103 real-time-text UE for the lab: T.140 text in RTP with RFC 2198 redundancy.

Its own implementation (Python standard library only), written from RFC 4103/2198 and not from the
endpoint's C++ (media-relay/datachannel/src/t140_rtp.cpp), so each checks the other on the wire.
Debian has no RFC 4103 client usable headless: linphone (liblinphone/mediastreamer2) implements
RFC 4103 but linphonec and linphone-daemon have no real-time-text command, and baresip 1.0 has none.

What it does (docs/datachannel.md "Real-time text"):
- answers an SDP offer's m=text section (red + t140, the offer's payload types, the offered number of
  redundant generations, RFC 4103 §6) with its own m=text on 127.0.0.1;
- sends typed text every 300 ms in RED packets with the previous 2 packets' text as redundancy, then
  2 packets with an empty primary after the last text, marker bit on the first packet after idle;
- receives in sequence-number order, fills gaps from the redundant blocks, marks text no redundancy
  covers with U+FFFD, drops duplicates and late packets;
- a loss knob (--loss P --seed S): each packet it sends and each it receives is dropped with probability P
  (two random streams from the seed, decided per packet index, so a seed gives the same drop pattern run
  after run), at most --max-burst in a row (default 2: what 2 generations of redundancy cover).

As a process (JSON lines on stdin and stdout):
  in:  {"offer": SDP}  -> out: {"answer": SDP}
  in:  {"type": TEXT, "cps": N}  types TEXT one character at a time at N characters per second
  in:  {"stats": true} -> out: {"stats": {...}}
  out: {"rx": TEXT} for each piece of text received; at end of stdin: {"stats": ...} and exit.
usage: rfc4103_ue.py [--loss P] [--seed S] [--max-burst N]
"""
import argparse
import asyncio
import json
import os
import random
import re
import socket
import struct
import sys
import time

MISSING = "\ufffd"


def parse_text_section(sdp):
    """The first m=text of an SDP: address, port, t140 and red payload types, red generations."""
    conn, port, fmts, rtpmap, fmtp, in_text, seen = None, None, [], {}, {}, False, False
    sess_conn = None
    for line in sdp.replace("\r\n", "\n").split("\n"):
        if line.startswith("m="):
            if seen:
                break
            parts = line[2:].split()
            in_text = parts[0] == "text"
            if in_text:
                seen = True
                port, fmts = int(parts[1]), parts[3:]
            continue
        if line.startswith("c=IN IP4 "):
            if in_text:
                conn = line[9:].split("/")[0]
            elif not seen:
                sess_conn = line[9:].split("/")[0]
        if in_text and line.startswith("a=rtpmap:"):
            pt, enc = line[9:].split(None, 1)
            rtpmap[enc.strip().lower()] = int(pt)
        if in_text and line.startswith("a=fmtp:"):
            pt, val = line[7:].split(None, 1)
            fmtp[int(pt)] = val.strip()
    if not seen:
        raise ValueError("no m=text section in the offer")
    t140 = rtpmap.get("t140/1000")
    red = rtpmap.get("red/1000")
    if t140 is None or str(t140) not in fmts:
        raise ValueError("the m=text section has no t140/1000")
    gens = 0
    if red is not None and str(red) in fmts:
        gens = fmtp.get(red, "").count("/") or 2
    else:
        red = None
    return {"addr": conn or sess_conn, "port": port, "t140": t140, "red": red, "generations": gens}


class Sender:
    """RFC 4103 §4-5: text buffered 300 ms, RED with `generations` previous blocks, then empty-primary
    packets until the last text went out generations + 1 times."""

    def __init__(self, t140, red, generations, interval=0.3):
        self.t140, self.red, self.gens, self.interval = t140, red, generations if red is not None else 0, interval
        self.ssrc = random.getrandbits(32)
        self.seq = random.getrandbits(16)
        self.ts0 = random.getrandbits(32)
        self.t0 = None
        self.buffer = b""
        self.history = []  # [(ts, bytes)] of the last gens packets' primaries
        self.owed = 0
        self.last = None
        self.after_idle = True
        self.packets = 0

    def type(self, text):
        self.buffer += text.encode("utf-8")

    def idle(self):
        return not self.buffer and self.owed == 0

    def poll(self, now):
        if self.idle() or (self.last is not None and now < self.last + self.interval):
            return None
        if self.t0 is None:
            self.t0 = now
        ts = (self.ts0 + int((now - self.t0) * 1000)) & 0xFFFFFFFF
        n = min(len(self.buffer), 1023)
        while n < len(self.buffer) and (self.buffer[n] & 0xC0) == 0x80:
            n -= 1
        primary, self.buffer = self.buffer[:n], self.buffer[n:]
        marker = self.after_idle
        if marker:
            self.history = []
        hdr = struct.pack("!BBHII", 0x80, (0x80 if marker else 0) | (self.red if self.red is not None else self.t140),
                          self.seq, ts, self.ssrc)
        if self.red is not None:
            blocks = [(ts, b"")] * (self.gens - len(self.history)) + self.history
            heads = b"".join(struct.pack("!BBBB", 0x80 | self.t140, (min((ts - bts) & 0xFFFFFFFF, 0x3FFF) >> 6) & 0xFF,
                                         ((min((ts - bts) & 0xFFFFFFFF, 0x3FFF) & 0x3F) << 2) | (len(d) >> 8), len(d) & 0xFF)
                             for bts, d in blocks)
            payload = heads + bytes([self.t140]) + b"".join(d for _, d in blocks) + primary
            self.history = (self.history + [(ts, primary)])[-self.gens:] if self.gens else []
        else:
            payload = primary
        if primary:
            self.owed = self.gens
        elif self.owed:
            self.owed -= 1
        self.seq = (self.seq + 1) & 0xFFFF
        self.last = now
        self.after_idle = self.idle()
        self.packets += 1
        return hdr + payload


class Receiver:
    """Sequence-ordered text; gaps filled from the RED blocks (block n-k is packet seq-k)."""

    def __init__(self, t140, red):
        self.t140, self.red = t140, red
        self.expected = None
        self.ssrc = None
        self.carry = b""
        self.packets = self.recovered = self.lost = self.stale = self.refused = 0
        self.red_packets = self.red_blocks_max = 0  # what the wire showed: RED packets, most redundant blocks in one

    def _text(self, block):
        d = self.carry + block
        self.carry = b""
        # keep back an unfinished UTF-8 character
        j = len(d)
        while j > 0 and len(d) - j < 4 and (d[j - 1] & 0xC0) == 0x80:
            j -= 1
        if j > 0:
            lead = d[j - 1]
            need = 4 if lead >= 0xF0 else 3 if lead >= 0xE0 else 2 if lead >= 0xC0 else 1
            if len(d) - (j - 1) < need:
                self.carry, d = d[j - 1:], d[:j - 1]
        return d.decode("utf-8", errors="replace")

    def push(self, pkt):
        if len(pkt) < 12 or pkt[0] >> 6 != 2:
            self.refused += 1
            return ""
        cc, marker, pt = pkt[0] & 0x0F, bool(pkt[1] & 0x80), pkt[1] & 0x7F
        seq, _, ssrc = struct.unpack("!HII", pkt[2:12])
        body = pkt[12 + 4 * cc:]
        redundant, primary = [], b""
        if self.red is not None and pt == self.red:
            i, lens = 0, []
            while body[i] & 0x80:
                lens.append((body[i] & 0x7F, ((body[i + 2] & 0x03) << 8) | body[i + 3]))
                i += 4
            self.red_packets += 1
            self.red_blocks_max = max(self.red_blocks_max, len(lens))
            primary_pt = body[i] & 0x7F
            i += 1
            for bpt, n in lens:
                redundant.append(body[i:i + n] if bpt == self.t140 else b"")
                i += n
            primary = body[i:] if primary_pt == self.t140 else b""
        elif pt == self.t140:
            primary = body
        else:
            self.refused += 1
            return ""
        out = ""
        if self.ssrc != ssrc:
            self.ssrc, self.expected, self.carry = ssrc, None, b""
        if self.expected is None:
            if not marker:
                for r in redundant:
                    if r:
                        out += self._text(r)
                        self.recovered += 1
        else:
            gap = ((seq - self.expected + 0x8000) & 0xFFFF) - 0x8000
            if gap < 0:
                self.stale += 1
                return ""
            if gap > len(redundant):
                self.lost += gap - len(redundant)
                self.carry = b""
                out += MISSING
            for k in range(min(gap, len(redundant)), 0, -1):
                out += self._text(redundant[len(redundant) - k])
                self.recovered += 1
        self.packets += 1
        self.expected = (seq + 1) & 0xFFFF
        return out + self._text(primary)


class Loss:
    """Per-packet-index drops with probability p from a seeded stream, at most max_burst in a row."""

    def __init__(self, p, seed, max_burst):
        self.p, self.rng, self.max_burst, self.run, self.dropped, self.index, self.dropped_at = p, random.Random(seed), max_burst, 0, 0, 0, []

    def drop(self):
        self.index += 1
        if self.p <= 0:
            return False
        d = self.rng.random() < self.p and self.run < self.max_burst
        self.run = self.run + 1 if d else 0
        if d:
            self.dropped += 1
            self.dropped_at.append(self.index)
        return d


class _RtcpCounter(asyncio.DatagramProtocol):
    """The UE's RTCP port: counts the peer's well-formed reports (SR 200 / RR 201 first, RFC 3550 §6.1)."""

    def __init__(self, ue):
        self.ue = ue

    def datagram_received(self, data, addr):
        if len(data) >= 8 and data[0] >> 6 == 2 and data[1] in (200, 201) and addr[0] == (self.ue.peer or ("",))[0]:
            self.ue.rtcp_received += 1
            self.ue.rtcp_kinds.add("SR" if data[1] == 200 else "RR")


class Ue(asyncio.DatagramProtocol):
    def __init__(self, loss=0.0, seed=4103, max_burst=2, on_text=None):
        self.send_loss = Loss(loss, seed * 2 + 1, max_burst)
        self.recv_loss = Loss(loss, seed * 2 + 2, max_burst)
        self.on_text = on_text
        self.received = ""
        self.transport = None
        self.sender = self.receiver = None
        self.peer = None
        self.task = None
        self.refused_from = 0
        self.rtcp = None
        self.rtcp_received = 0
        self.rtcp_kinds = set()

    async def start(self, host="127.0.0.1"):
        loop = asyncio.get_running_loop()
        # an even RTP port with its RTCP port free above it (RFC 3550 §11)
        for _ in range(100):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind((host, 0))
            port = s.getsockname()[1]
            if port % 2 == 0:
                r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                try:
                    r.bind((host, port + 1))
                    break
                except OSError:
                    r.close()
            s.close()
        else:
            raise OSError("no free RTP/RTCP port pair on %s" % host)
        self.transport, _ = await loop.create_datagram_endpoint(lambda: self, sock=s)
        self.rtcp, _ = await loop.create_datagram_endpoint(lambda: _RtcpCounter(self), sock=r)
        self.port = port
        return self

    def _begin(self, o):
        self.peer = (o["addr"], o["port"])
        self.sender = Sender(o["t140"], o["red"], o["generations"])
        self.receiver = Receiver(o["t140"], o["red"])
        self.task = asyncio.get_running_loop().create_task(self._tick())

    def offer(self, t140=98, red=100, generations=2):
        """Our m=text offer (a whole SDP): red + t140 (RFC 4103 §6); accept() takes the answer."""
        self.offered = (t140, red, generations)
        lines = ["v=0", "o=rtt-ue %d 1 IN IP4 127.0.0.1" % os.getpid(), "s=-", "t=0 0",
                 "m=text %d RTP/AVP %d %d" % (self.port, red, t140), "c=IN IP4 127.0.0.1",
                 "a=rtpmap:%d red/1000" % red, "a=fmtp:%d %s" % (red, "/".join([str(t140)] * (generations + 1))),
                 "a=rtpmap:%d t140/1000" % t140, "a=fmtp:%d cps=30" % t140, "a=sendrecv"]
        return "\r\n".join(lines) + "\r\n"

    def accept(self, answer_sdp):
        """The answer to offer(): its m=text's address, port and payload types (red only when it kept it)."""
        self._begin(parse_text_section(answer_sdp))

    def answer(self, offer_sdp):
        o = parse_text_section(offer_sdp)
        self._begin(o)
        fmts = ([str(o["red"])] if o["red"] is not None else []) + [str(o["t140"])]
        lines = ["v=0", "o=rtt-ue %d 1 IN IP4 127.0.0.1" % os.getpid(), "s=-", "t=0 0",
                 "m=text %d RTP/AVP %s" % (self.port, " ".join(fmts)), "c=IN IP4 127.0.0.1"]
        if o["red"] is not None:
            lines += ["a=rtpmap:%d red/1000" % o["red"], "a=fmtp:%d %s" % (o["red"], "/".join([str(o["t140"])] * (o["generations"] + 1)))]
        lines += ["a=rtpmap:%d t140/1000" % o["t140"], "a=fmtp:%d cps=30" % o["t140"], "a=sendrecv"]
        return "\r\n".join(lines) + "\r\n"

    def datagram_received(self, data, addr):
        if self.receiver is None or addr[0] != self.peer[0]:
            self.refused_from += 1
            return
        if self.recv_loss.drop():
            return
        text = self.receiver.push(data)
        if text:
            self.received += text
            if self.on_text:
                self.on_text(text)

    async def _tick(self):
        while True:
            pkt = self.sender.poll(time.monotonic())
            if pkt is not None:
                if not self.send_loss.drop():
                    self.transport.sendto(pkt, self.peer)
                continue
            await asyncio.sleep(0.01)

    async def type(self, text, cps=20):
        for ch in text:
            self.sender.type(ch)
            await asyncio.sleep(1 / cps)

    def idle(self):
        return self.sender is None or self.sender.idle()

    def stats(self):
        r = self.receiver
        return {"sent_packets": self.sender.packets if self.sender else 0, "send_dropped": self.send_loss.dropped,
                "send_dropped_at": self.send_loss.dropped_at, "received_packets": r.packets if r else 0,
                "recv_dropped": self.recv_loss.dropped, "recv_dropped_at": self.recv_loss.dropped_at,
                "recovered": r.recovered if r else 0, "lost": r.lost if r else 0, "stale": r.stale if r else 0,
                "refused": (r.refused if r else 0) + self.refused_from,
                "generations": self.sender.gens if self.sender else 0,
                "red_packets": r.red_packets if r else 0, "red_blocks_max": r.red_blocks_max if r else 0,
                "rtcp_received": self.rtcp_received, "rtcp_kinds": sorted(self.rtcp_kinds)}

    def close(self):
        if self.task:
            self.task.cancel()
        if self.transport:
            self.transport.close()
        if self.rtcp:
            self.rtcp.close()


async def serve(args):
    """The JSON-lines process (for tests that drive a real browser from Node)."""
    out = lambda obj: print(json.dumps(obj), flush=True)
    ue = await Ue(args.loss, args.seed, args.max_burst, on_text=lambda t: out({"rx": t})).start()
    loop = asyncio.get_running_loop()
    typing = []
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        try:
            msg = json.loads(line)
        except ValueError:
            out({"error": "not JSON: %r" % line[:80]})
            continue
        try:
            if "offer" in msg:
                out({"answer": ue.answer(msg["offer"])})
            elif "type" in msg:
                typing.append(loop.create_task(ue.type(msg["type"], msg.get("cps", 20))))
            elif "stats" in msg:
                out({"stats": ue.stats(), "received": ue.received})
        except ValueError as e:
            out({"error": str(e)})
    for t in typing:
        await t
    deadline = time.monotonic() + 2
    while not ue.idle() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    out({"stats": ue.stats(), "received": ue.received})
    ue.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loss", type=float, default=0.0, help="drop probability for each packet sent and received")
    ap.add_argument("--seed", type=int, default=4103)
    ap.add_argument("--max-burst", type=int, default=2)
    asyncio.run(serve(ap.parse_args()))
