#!/usr/bin/env python3
"""Drive real RTP through rtpengine for delaymeter: one plain RTP/AVP call, both directions.

Creates a call over the ng protocol (offer from "A" = browser side, answer from "B" = IMS side),
then A and B each send --count RTP packets at --pps to the relay ports from the SDP rtpengine
returned, plus an RTCP SR every --rtcp-every packets on the RTCP ports (delaymeter must skip those),
counts what arrives at the other end, deletes the call and prints a JSON summary on stdout.
Capture meanwhile with:  tcpdump -i lo --time-stamp-precision=nano -w x.pcap udp portrange 30000-30999
and analyse with:        delaymeter --ims-ports 6000-6299 x.pcap   (B's port must be in --ims-ports)

Exit: 0 every packet arrived, 1 some did not, 2 usage/ng error. Stdlib only.
"""
import argparse
import json
import os
import re
import select
import socket
import struct
import sys
import time


class ProbeError(Exception):
    pass


def bencode(v):
    if isinstance(v, int):
        return b"i%de" % v
    if isinstance(v, str):
        v = v.encode()
    if isinstance(v, bytes):
        return b"%d:%s" % (len(v), v)
    if isinstance(v, list):
        return b"l" + b"".join(bencode(x) for x in v) + b"e"
    if isinstance(v, dict):
        return b"d" + b"".join(bencode(k) + bencode(v[k]) for k in sorted(v)) + b"e"
    raise TypeError(type(v))


def bdecode(data, i=0):
    """Returns (value, next_index); byte strings are decoded as latin-1 text."""
    c = data[i:i + 1]
    if c == b"i":
        end = data.index(b"e", i)
        return int(data[i + 1:end]), end + 1
    if c in (b"l", b"d"):
        items, i = [], i + 1
        while data[i:i + 1] != b"e":
            item, i = bdecode(data, i)
            items.append(item)
        return (items if c == b"l" else dict(zip(items[::2], items[1::2]))), i + 1
    colon = data.index(b":", i)
    n = int(data[i:colon])
    return data[colon + 1:colon + 1 + n].decode("latin-1"), colon + 1 + n


def ng_request(addr, cmd, timeout=1.0, tries=3):
    cookie = "probe%d_%d" % (os.getpid(), time.monotonic_ns())
    packet = cookie.encode() + b" " + bencode(cmd)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        for _ in range(tries):  # ng over UDP: retransmit with the same cookie
            try:
                s.sendto(packet, addr)
                data, _ = s.recvfrom(65535)
            except (socket.timeout, ConnectionRefusedError):
                continue
            if data.startswith(cookie.encode() + b" "):
                reply, _ = bdecode(data, len(cookie) + 1)
                if reply.get("result") != "ok":
                    raise ProbeError("rtpengine %s failed: %s" % (cmd["command"], reply.get("error-reason", reply)))
                return reply
    raise ProbeError("no ng reply from %s:%d to %s" % (addr[0], addr[1], cmd["command"]))


def sdp(port, session_id):
    return ("v=0\r\no=- %d 1 IN IP4 127.0.0.1\r\ns=probe\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            "m=audio %d RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\n" % (session_id, port))


def media_target(sdp_text):
    port = re.search(r"^m=audio (\d+) ", sdp_text, re.M)
    addr = re.search(r"^c=IN IP4 ([0-9.]+)", sdp_text, re.M)
    if not port or not addr:
        raise ProbeError("no audio port/address in rtpengine SDP")
    return addr.group(1), int(port.group(1))


def rtp_packet(ssrc, seq, ts):
    return struct.pack("!BBHII", 0x80, 0, seq & 0xffff, ts & 0xffffffff, ssrc) + b"\xd5" * 160


def rtcp_sr(ssrc, ts):
    # 28-byte sender report, no report blocks; PT 200 makes delaymeter treat it as RTCP.
    return struct.pack("!BBHIIIIII", 0x80, 200, 6, ssrc, 0, 0, ts & 0xffffffff, 0, 0)


def udp_socket(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    s.setblocking(False)
    return s


def run(args):
    ng = (args.ng.rsplit(":", 1)[0], int(args.ng.rsplit(":", 1)[1]))
    call_id = args.call_id or "relay-probe-%d-%d" % (os.getpid(), int(time.time()))
    flags = {"ICE": "remove", "transport-protocol": "RTP/AVP", "flags": ["trust-address"],
             "replace": ["origin", "session-connection"]}
    offer = ng_request(ng, dict(flags, command="offer", **{"call-id": call_id, "from-tag": "probeA",
                                                          "sdp": sdp(args.a_port, 1)}))
    relay_for_a_to_b = media_target(offer["sdp"])  # where B is told to send = relay port of B's leg
    answer = ng_request(ng, dict(flags, command="answer", **{"call-id": call_id, "from-tag": "probeA",
                                                            "to-tag": "probeB", "sdp": sdp(args.b_port, 2)}))
    relay_for_b_to_a = media_target(answer["sdp"])  # where A sends
    socks = {name: udp_socket(port) for name, port in
             (("a", args.a_port), ("a_rtcp", args.a_port + 1), ("b", args.b_port), ("b_rtcp", args.b_port + 1))}
    ssrc = {"a": 0xA1A1A1A1, "b": 0xB2B2B2B2}
    target = {"a": relay_for_b_to_a, "b": relay_for_a_to_b}
    received = {"a": 0, "b": 0}
    sent = {"a": 0, "b": 0}

    def drain(until):
        while True:
            wait = until - time.perf_counter()
            ready, _, _ = select.select([socks["a"], socks["b"]], [], [], max(0.0, wait))
            if not ready:
                return
            for s in ready:
                who = "a" if s is socks["a"] else "b"
                try:
                    while True:
                        data = s.recv(2048)
                        if len(data) >= 12 and data[0] >> 6 == 2:
                            received[who] += 1
                except BlockingIOError:
                    pass

    try:
        start = time.perf_counter()
        for i in range(args.count):
            seq_ts = (args.start_seq + i, i * 160)
            for who, seq_offset in (("a", 0), ("b", 1000)):
                socks[who].sendto(rtp_packet(ssrc[who], seq_ts[0] + seq_offset, seq_ts[1]), target[who])
                sent[who] += 1
                if args.rtcp_every and i % args.rtcp_every == 0:
                    host, port = target[who]
                    socks[who + "_rtcp"].sendto(rtcp_sr(ssrc[who], seq_ts[1]), (host, port + 1))
            drain(start + (i + 1) / args.pps)
        drain(time.perf_counter() + 0.3)  # last packets in flight
    finally:
        for s in socks.values():
            s.close()
        try:
            ng_request(ng, {"command": "delete", "call-id": call_id, "from-tag": "probeA", "delete-delay": 0})
        except ProbeError:
            pass
    return {"call_id": call_id, "relay_port_for_a": target["a"][1], "relay_port_for_b": target["b"][1],
            "a_port": args.a_port, "b_port": args.b_port, "ssrc_a": "0x%08x" % ssrc["a"],
            "ssrc_b": "0x%08x" % ssrc["b"], "sent_a_to_b": sent["a"], "received_by_b": received["b"],
            "sent_b_to_a": sent["b"], "received_by_a": received["a"]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ng", default="127.0.0.1:2223", help="rtpengine ng address (default %(default)s)")
    p.add_argument("--count", type=int, default=200, help="RTP packets per direction (default %(default)s)")
    p.add_argument("--pps", type=float, default=50.0, help="packets per second per direction (default %(default)s)")
    p.add_argument("--a-port", type=int, default=7000, help="A (browser side) RTP port (default %(default)s)")
    p.add_argument("--b-port", type=int, default=6000, help="B (IMS side) RTP port (default %(default)s)")
    p.add_argument("--start-seq", type=int, default=65450,
                   help="A's first sequence number, B uses +1000 (default %(default)s: A wraps past 65535)")
    p.add_argument("--rtcp-every", type=int, default=50, help="RTCP SR every N packets, 0 = none (default %(default)s)")
    p.add_argument("--call-id", default=None)
    args = p.parse_args()
    if args.count <= 0 or args.pps <= 0:
        print("relay_probe: --count and --pps must be positive", file=sys.stderr)
        return 2
    try:
        summary = run(args)
    except (ProbeError, OSError, ValueError) as exc:
        print("relay_probe: %s" % exc, file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    ok = summary["received_by_b"] == summary["sent_a_to_b"] and summary["received_by_a"] == summary["sent_b_to_a"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
