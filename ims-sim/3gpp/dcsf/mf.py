#!/usr/bin/env python3
"""The lab's MF (media function) for the bootstrap data channel (issue #25; TS 23.228 Annex AC, TS 24.186,
TS 26.114 §6.2.10; docs/datachannel.md "Bootstrap").

The S-CSCF's DCSF route (kamailio/dcsf.cfg, the IMS AS + DCSF roles kept as small as they can be) hands this
process each originating INVITE's SDP over HTTP, as the IMS AS asks the MF for media resources
(Nmf_MRM_Create, TS 29.176) -- here one small HTTP interface on the loopback address:

  POST /mrm/<key>/offer        (<key>: the call's Call-ID in hex) body: the INVITE's SDP. When its first `m=application … UDP/DTLS/SCTP
                               webrtc-datachannel` section maps a bootstrap stream (a=dcmap with a stream id of
                               BOOTSTRAP_IDS and subprotocol "http"), the MF anchors that section: it answers it
                               on a real WebRTC stack (aiortc: ICE, DTLS, SCTP) and returns 200 with the offer to
                               send on, where the section has port 0 (the far UE gets no data channel from this
                               caller in this slice). Anything else: 204, nothing kept.
  POST /mrm/<key>/answer       body: the far end's SDP answer; 200 with the answer for the caller, the MF's
                               section at the data-channel section's index (RFC 3264 §6). 204 when the call has no
                               session here.
  POST /mrm/<key>/delete       ends the session (BYE, CANCEL, a failed INVITE).
  GET  /mrm                    JSON: the sessions and, per session, the HTTP requests served on its bootstrap
                               channels (method, path, status, bytes).

On each bootstrap channel the MF is an HTTP/1.1 server (one HTTP message per data-channel message, parsed by
Python's http.server): `GET /` returns the data-channel application list (JSON, from apps/*/manifest.json), and
`GET /apps/<name>/<file>` the application's files. Errors are plain HTTP statuses (400, 404, 405, 505) with the
standard phrase, never a trace; an empty message gets no answer.

usage: mf.py [--listen ADDR:PORT] [--apps DIR] [--media-addr ADDR]
"""
import argparse
import asyncio
import io
import json
import mimetypes
import os
import random
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "harness", "lib"))
from lab_addresses import LAB  # noqa: E402  the lab's address table (harness/addresses.env)

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

# TS 26.114 §6.2.10.1: the bootstrap data channels' SCTP stream ids (below 1000), subprotocol "http"
BOOTSTRAP_IDS = (0, 10, 100, 110)
MEDIA_ADDR = "127.0.0.1"


def log(msg):
    print("mf: " + msg, file=sys.stderr, flush=True)


# ---- SDP ----

def sections(sdp):
    """(session lines, [media section lines...])"""
    sess, media = [], []
    for line in sdp.replace("\r\n", "\n").split("\n"):
        if not line:
            continue
        if line.startswith("m="):
            media.append([line])
        elif media:
            media[-1].append(line)
        else:
            sess.append(line)
    return sess, media


def join(sess, media):
    return "\r\n".join(sess + [line for m in media for line in m]) + "\r\n"


def is_dc(sec):
    f = sec[0][2:].split()
    return len(f) >= 4 and f[0] == "application" and f[2] == "UDP/DTLS/SCTP" and f[3] == "webrtc-datachannel"


def dcmaps(sec):
    """{stream id: {"label", "subprotocol", "line"}} of a section's a=dcmap lines (RFC 8864 §5.1.1)."""
    out = {}
    for line in sec:
        m = re.match(r"a=dcmap:(\d+)(?: (.*))?$", line)
        if not m:
            continue
        opts = {}
        for opt in (m.group(2) or "").split(";"):
            k, _, v = opt.strip().partition("=")
            if k:
                opts[k] = v.strip().strip('"')
        out[int(m.group(1))] = {"label": opts.get("label", ""), "subprotocol": opts.get("subprotocol", ""), "line": line}
    return out


def bootstrap_streams(sec):
    return {i: c for i, c in dcmaps(sec).items() if i in BOOTSTRAP_IDS and c["subprotocol"] == "http"}


def port_zero(sec):
    f = sec[0].split()
    return [" ".join([f[0], "0"] + f[2:])] + [l for l in sec[1:] if l.startswith("c=")]


# ---- HTTP on a bootstrap channel ----

class Apps:
    """The application list and the applications' files, from DIR/<name>/manifest.json and its files."""

    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.list = []
        for name in sorted(os.listdir(self.root)):
            manifest = os.path.join(self.root, name, "manifest.json")
            if os.path.isfile(manifest):
                with open(manifest, encoding="utf-8") as f:
                    m = json.load(f)
                m["url"] = "/apps/%s/%s" % (name, m["entry"])
                self.list.append(m)
        if not self.list:
            raise SystemExit("mf: no application in %s (each needs <name>/manifest.json)" % self.root)

    def get(self, path):
        """(status, content type, body bytes)"""
        if path == "/":
            body = json.dumps({"applications": self.list}, indent=1).encode()
            return 200, "application/json", body
        if not path.startswith("/apps/"):
            return 404, "text/plain", b"not found\n"
        full = os.path.realpath(os.path.join(self.root, path[len("/apps/"):]))
        if not full.startswith(self.root + os.sep) or not os.path.isfile(full):
            return 404, "text/plain", b"not found\n"
        with open(full, "rb") as f:
            body = f.read()
        ctype = mimetypes.guess_type(full)[0] or "application/octet-stream"
        return 200, ctype + ("; charset=utf-8" if ctype.startswith(("text/", "application/javascript")) else ""), body


class ChannelRequest(BaseHTTPRequestHandler):
    """One HTTP/1.1 request read from a data-channel message and answered into a buffer (http.server's parser;
    no socket)."""
    protocol_version = "HTTP/1.1"
    server_version = "lab-mf"

    def version_string(self):
        return self.server_version

    def __init__(self, raw, apps):  # pylint: disable=super-init-not-called
        self.rfile = io.BytesIO(raw)
        self.wfile = io.BytesIO()
        self.apps = apps
        self.client_address = ("datachannel", 0)
        self.served = None
        self.close_connection = True
        self.handle_one_request()

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        pass

    def reply(self, status, ctype, body, head=False):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head:
            self.wfile.write(body)
        self.served = {"method": self.command, "path": self.path, "status": status, "bytes": len(body)}

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.reply(*self.apps.get(self.path.split("?")[0]))

    def do_HEAD(self):  # noqa: N802
        self.reply(*self.apps.get(self.path.split("?")[0]), head=True)

    def send_error(self, code, message=None, explain=None):
        # http.server's parser refused the message: a status line in any case (it leaves request_version at
        # HTTP/0.9 for a bad request line, which has none), the standard phrase only (nothing of the input echoed)
        self.request_version = "HTTP/1.1"
        self.command = self.command or "?"
        self.path = getattr(self, "path", "?")
        self.reply(int(code), "text/plain", ("%d %s\n" % (code, self.responses.get(code, ("error",))[0])).encode())

    def do_POST(self):  # noqa: N802
        self.reply(405, "text/plain", b"only GET and HEAD\n")

    do_PUT = do_DELETE = do_POST


# ---- sessions ----

class Session:
    def __init__(self, call_id):
        self.call_id = call_id
        self.pc = None
        self.index = None          # the data-channel section's index in the offer
        self.section = None        # the MF's answer section
        self.streams = {}
        self.open = []
        self.served = []
        self.created = time.time()


class MF:
    def __init__(self, loop, apps):
        self.loop = loop
        self.apps = apps
        self.sessions = {}

    async def offer(self, call_id, sdp):
        sess, media = sections(sdp)
        idx = next((i for i, m in enumerate(media) if is_dc(m) and m[0].split()[1] != "0"), None)
        if idx is None:
            return None
        streams = bootstrap_streams(media[idx])
        if not streams:
            return None
        old = self.sessions.pop(call_id, None)
        if old and old.pc:
            await old.pc.close()
        s = Session(call_id)
        s.index, s.streams = idx, streams
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        pc._sctpLegacySdp = False  # RFC 8841 "UDP/DTLS/SCTP webrtc-datachannel" + a=sctp-port
        for sid, c in streams.items():
            ch = pc.createDataChannel(c["label"] or "bootstrap", negotiated=True, id=sid, protocol="http")
            self.serve(s, ch, sid)
        s.pc = pc
        keep = [l for l in sess if l.startswith(("a=ice-lite", "a=fingerprint:", "a=ice-ufrag:", "a=ice-pwd:", "a=setup:"))]
        head = ["v=0", "o=- %d 1 IN IP4 %s" % (random.getrandbits(31), MEDIA_ADDR), "s=-", "t=0 0"]
        await pc.setRemoteDescription(RTCSessionDescription("\r\n".join(head + keep + media[idx]) + "\r\n", "offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        a_sess, a_media = sections(pc.localDescription.sdp)
        sec = next(m for m in a_media if is_dc(m))
        inherit = [l for l in a_sess if l.startswith(("a=fingerprint:", "a=ice-ufrag:", "a=ice-pwd:", "a=setup:"))]
        have = {l.split(":")[0] for l in sec}
        sec = [sec[0], "c=IN IP4 " + MEDIA_ADDR] + [l for l in sec[1:] if not l.startswith("c=")]
        sec += [l for l in inherit if l.split(":")[0] not in have]
        sec = [l for l in sec if not l.startswith(("a=dcmap:", "a=dcsa:"))] + [c["line"] for c in streams.values()]
        s.section = sec
        self.sessions[call_id] = s
        media[idx] = port_zero(media[idx])
        log("%s: anchored the bootstrap channel(s) %s" % (call_id, sorted(streams)))
        return join(sess, media)

    def answer(self, call_id, sdp):
        s = self.sessions.get(call_id)
        if s is None:
            return None
        sess, media = sections(sdp)
        while len(media) < s.index:
            media.append(["m=application 0 UDP/DTLS/SCTP webrtc-datachannel"])
        if len(media) == s.index:
            media.append(s.section)
        else:
            media[s.index] = s.section
        return join(sess, media)

    async def delete(self, call_id):
        s = self.sessions.pop(call_id, None)
        if s and s.pc:
            await s.pc.close()
            log("%s: ended, %d request(s) served" % (call_id, len(s.served)))
        return s is not None

    def serve(self, s, ch, sid):
        @ch.on("open")
        def on_open():
            s.open.append(sid)

        @ch.on("message")
        def on_message(msg):
            raw = msg.encode() if isinstance(msg, str) else bytes(msg)
            req = ChannelRequest(raw, self.apps)
            if req.served is None:
                return
            ch.send(req.wfile.getvalue())
            s.served.append(dict(req.served, stream=sid, at=time.time()))
            log("%s: stream %d %s %s -> %d (%d bytes)" % (s.call_id, sid, req.served["method"], req.served["path"],
                                                          req.served["status"], req.served["bytes"]))

    def state(self):
        return {"sessions": [{"call-id": s.call_id, "streams": sorted(s.streams), "open": sorted(s.open),
                              "served": s.served} for s in self.sessions.values()]}


# ---- the control interface (the IMS AS's side) ----

def call_id_of(key):
    """The DCSF names a call by its Call-ID in hex (Kamailio's {s.encode.hexa}); another key is taken as it is."""
    try:
        return bytes.fromhex(key).decode("utf-8")
    except ValueError:
        return key


def control_handler(mf, loop):
    class Control(BaseHTTPRequestHandler):
        def version_string(self):
            return "lab-mf"

        def log_message(self, format, *args):  # pylint: disable=redefined-builtin
            pass

        def respond(self, status, body=b"", ctype="application/sdp"):
            self.send_response(status)
            if body:
                self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def run(self, coro):
            return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=10)

        def on_loop(self, f, *args):
            async def call():
                return f(*args)
            return self.run(call())

        def do_GET(self):  # noqa: N802
            if self.path != "/mrm":
                return self.respond(404, b"no such resource\n", "text/plain")
            state = self.on_loop(mf.state)
            return self.respond(200, json.dumps(state).encode(), "application/json")

        def do_POST(self):  # noqa: N802
            m = re.fullmatch(r"/mrm/([^/]+)/(offer|answer|delete)", self.path)
            if not m:
                return self.respond(404, b"no such resource\n", "text/plain")
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
            call_id, op = call_id_of(m.group(1)), m.group(2)
            try:
                if op == "offer":
                    out = self.run(mf.offer(call_id, body))
                elif op == "answer":
                    out = self.on_loop(mf.answer, call_id, body)
                else:
                    out = None
                    self.run(mf.delete(call_id))
            except Exception as e:  # noqa: BLE001 -- reported as a sentence, the request fails cleanly
                log("%s: %s failed: %s" % (call_id, op, e))
                return self.respond(500, b"media resource request failed\n", "text/plain")
            return self.respond(200, out.encode()) if out else self.respond(204)

    return Control


def main():
    global MEDIA_ADDR
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--listen", default="%s:%s" % (LAB["LAB_LOOPBACK"], LAB["LAB_IMS3_MF_PORT"]), help="the control interface, ADDR:PORT")
    ap.add_argument("--apps", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "apps"))
    ap.add_argument("--media-addr", default="127.0.0.1", help="the address of the MF's data-channel media")
    a = ap.parse_args()
    MEDIA_ADDR = a.media_addr
    # aioice leaves loopback out of its host candidates; the lab's IMS side is on the loopback address
    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: [MEDIA_ADDR] if use_ipv4 else []
    host, _, port = a.listen.rpartition(":")
    apps = Apps(a.apps)
    loop = asyncio.new_event_loop()
    mf = MF(loop, apps)
    server = ThreadingHTTPServer((host, int(port)), control_handler(mf, loop))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    log("ready on %s, %d application(s): %s" % (a.listen, len(apps.list), ", ".join(x["id"] for x in apps.list)))
    try:
        loop.run_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
