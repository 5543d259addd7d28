#!/usr/bin/env python3
"""Issue #17 prototype: send one ng `offer` (the MO browser->IMS flags of media/RtpEngineClient) with a
saved browser SDP and variations, print the SDP rtpengine would send toward IMS (c=, m=, a=rtcp, direction).
Usage: ng-try.py NG_HOST:PORT SDP_FILE VARIANT...   (variants: see VARIANTS)"""
import json, random, re, socket, sys

def benc(x):
    if isinstance(x, bool): x = int(x)
    if isinstance(x, int): return b"i%de" % x
    if isinstance(x, str): x = x.encode()
    if isinstance(x, bytes): return b"%d:%s" % (len(x), x)
    if isinstance(x, list): return b"l" + b"".join(benc(i) for i in x) + b"e"
    if isinstance(x, dict): return b"d" + b"".join(benc(k) + benc(v) for k, v in x.items()) + b"e"
    raise TypeError(type(x))

def bdec(b, i=0):
    c = b[i:i+1]
    if c == b"i": j = b.index(b"e", i); return int(b[i+1:j]), j+1
    if c in (b"l", b"d"):
        i += 1; out = [] 
        while b[i:i+1] != b"e": v, i = bdec(b, i); out.append(v)
        return (out if c == b"l" else {out[k]: out[k+1] for k in range(0, len(out), 2)}), i+1
    j = b.index(b":", i); n = int(b[i:j]); return b[j+1:j+1+n].decode(errors="replace"), j+1+n

def ng(addr, cmd):
    host, port = addr.rsplit(":", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)
    cookie = b"%d" % random.randrange(1 << 30)
    s.sendto(cookie + b" " + benc(cmd), (host, int(port)))
    data = s.recv(65535)
    return bdec(data.split(b" ", 1)[1])[0]

def no_mdns_rtcp(sdp): return re.sub(r"a=rtcp:\d+ IN IP[46] [^\s]*\.local\r?\n", "", sdp)
def c_to(ip): return lambda sdp: sdp.replace("c=IN IP4 0.0.0.0", "c=IN IP4 " + ip)

VARIANTS = {
    "asis": (lambda s: s, {}),
    "no-mdns-rtcp": (no_mdns_rtcp, {}),
    "media-address": (no_mdns_rtcp, {"media address": "198.18.0.2"}),
    "original-sendrecv": (no_mdns_rtcp, {"flags+": ["original-sendrecv"]}),
    "c-ip": (lambda s: c_to("198.18.0.2")(no_mdns_rtcp(s)), {}),
    "received-from": (no_mdns_rtcp, {"flags-": ["trust-address"], "received-from": ["IP4", "198.18.0.2"]}),
}

def main():
    addr, sdp_file, *names = sys.argv[1:]
    sdp = open(sdp_file).read().replace("\r\n", "\n").replace("\n", "\r\n")
    for name in names:
        fix, extra = VARIANTS[name]
        flags = ["trust-address", "strip-extmap"] + extra.get("flags+", [])
        flags = [f for f in flags if f not in extra.get("flags-", [])]
        call = "try-%s-%d" % (name, random.randrange(1 << 30))
        cmd = {"command": "offer", "call-id": call, "from-tag": "browser", "sdp": fix(sdp),
               "transport-protocol": "RTP/AVP", "ICE": "remove", "rtcp-mux": ["demux"], "flags": flags,
               "replace": ["origin", "session-connection"]}
        for k, v in extra.items():
            if k not in ("flags+", "flags-"): cmd[k] = v
        r = ng(addr, cmd)
        lines = [l for l in r.get("sdp", "").splitlines() if re.match(r"^(c=|m=|a=rtcp:|a=(send|recv)(only|recv)|a=inactive|a=candidate)", l)]
        print(json.dumps({"variant": name, "result": r.get("result"), "error": r.get("error-reason"), "ims": lines}))
        ng(addr, {"command": "delete", "call-id": call, "delete-delay": 0})

if __name__ == "__main__":
    main()
