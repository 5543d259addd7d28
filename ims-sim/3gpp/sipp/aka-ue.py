#!/usr/bin/env python3
"""aka-ue.py — a minimal IMS-AKA UE over UDP for the cases SIPp cannot play (SIPp never sends
AUTS and has no way to send a wrong RES with the right key).

The USIM side is Milenage (TS 35.206) on AES-128 from the `cryptography` package, independent of
the HSS's libosmocore. The UE checks every challenge like a USIM: MAC-A must verify, and the SQN
it carries is printed.

  aka-ue.py --impi ue1@ims.lab --user ue1 --k HEX --op HEX|--opc HEX --port 5085 [--pcscf HOST:PORT]
            [--domain D] [--messages FILE] MODE
  (--pcscf defaults to the lab's P-CSCF, LAB_PCSCF of harness/addresses.env; --domain, of the IMPU
  sip:<user>@D and the Request-URI, to the IMPI's realm; --opc: the operator variant as a credentials file
  holds it, which SIPp cannot take; --messages: every message sent and received appended to FILE)
  MODE  ok         register (401 → 200)
        wrong-res  answer the challenge with a wrong RES: expects 403
        resync     refuse the first challenge with AUTS for SQN_MS = SQN + 100 (TS 33.102 6.3.5):
                   expects a new challenge whose SQN is SQN_MS + 1, then registers (200)
        bad-auts   an AUTS with a wrong MAC-S: the HSS must refuse the resync (no new
                   challenge; the registration fails with a 4xx/5xx final response)
        publish    register (401 -> 200), send a presence PUBLISH (UDP, no Content-Length) to the own
                   IMPU: expects 489 (the core has no presence server), then de-register (200)
        deregister remove this UE's binding (--addr:--port): REGISTER Expires 0 (401 -> 200); a far-end UE of
                   `./lab compliance --ims external` leaves nothing registered at an outside core
--addr and --pcscf may be IPv6 (--pcscf [ADDR]:PORT): the UE then speaks SIP over IPv6, bracketed in Via and Contact.
Exit 0 when the expected outcome happened; the SIP ladder goes to stdout.
"""
import argparse
import base64
import hashlib
import os
import re
import socket
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

# the default P-CSCF and own address from the lab's one address table (harness/addresses.env)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "harness", "lib"))
from lab_addresses import LAB  # noqa: E402


def aes(k, block):
    e = Cipher(algorithms.AES(k), modes.ECB()).encryptor()
    return e.update(block) + e.finalize()


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def rot(x, nbytes):
    return x[nbytes:] + x[:nbytes]


class Usim:
    """Milenage with the TS 35.206 default constants (r1..r5 = 64, 0, 32, 64, 96; c1..c5 = 0, 1, 2, 4, 8)."""

    def __init__(self, k, op=None, opc=None):
        self.k = k
        self.opc = opc if opc is not None else xor(aes(k, op), op)

    def _out(self, rand, r, c):
        temp = aes(self.k, xor(rand, self.opc))
        x = bytearray(rot(xor(temp, self.opc), r))
        x[15] ^= c
        return xor(aes(self.k, bytes(x)), self.opc)

    def f1(self, rand, sqn, amf):  # -> MAC-A, MAC-S
        temp = aes(self.k, xor(rand, self.opc))
        in1 = sqn + amf + sqn + amf
        out = xor(aes(self.k, xor(temp, rot(xor(in1, self.opc), 8))), self.opc)
        return out[:8], out[8:]

    def f2345(self, rand):  # -> RES, CK, IK, AK
        o2 = self._out(rand, 0, 1)
        return o2[8:], self._out(rand, 4, 2), self._out(rand, 8, 4), o2[:6]

    def f5star(self, rand):
        return self._out(rand, 12, 8)[:6]


class Ue:
    def __init__(self, a):
        self.a = a
        self.host, port = a.pcscf.rsplit(":", 1)
        self.host = self.host.strip("[]")  # [IPv6]:PORT
        self.dest = (self.host, int(port))
        v6 = ":" in a.addr
        self.sock = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((a.addr, a.port))
        self.me = f"[{a.addr}]:{a.port}" if v6 else f"{a.addr}:{a.port}"  # sent-by and Contact host:port
        self.sock.settimeout(1.0)
        self.usim = Usim(bytes.fromhex(a.k), op=bytes.fromhex(a.op) if a.op else None,
                         opc=bytes.fromhex(a.opc) if a.opc else None)
        self.call_id = os.urandom(8).hex() + "@aka-ue"
        self.cseq = 0
        self.domain = a.domain or a.impi.split("@", 1)[1]

    def trace(self, what, text):
        if self.a.messages:
            with open(self.a.messages, "a") as f:
                f.write(f"----------------------------------------------- {what}\n{text}\n")

    def register(self, authorization, expires=600):
        self.cseq += 1
        a = self.a
        msg = (f"REGISTER sip:{self.domain} SIP/2.0\r\n"
               f"Via: SIP/2.0/UDP {self.me};rport;branch=z9hG4bK{os.urandom(6).hex()}\r\n"
               f"From: <sip:{a.user}@{self.domain}>;tag=akaue{a.port}\r\n"
               f"To: <sip:{a.user}@{self.domain}>\r\n"
               f"Call-ID: {self.call_id}\r\nCSeq: {self.cseq} REGISTER\r\n"
               f"Contact: <sip:{a.user}@{self.me}>;expires={expires}\r\n"
               f"{authorization}\r\nSupported: path\r\nMax-Forwards: 70\r\nExpires: {expires}\r\n"
               f"User-Agent: aka-ue.py\r\nContent-Length: 0\r\n\r\n")
        print(f"sent REGISTER (CSeq {self.cseq}) {authorization}")
        return self.transaction(msg, "REGISTER")

    def transaction(self, msg, method):
        self.trace(f"message sent to {self.a.pcscf}", msg)
        for _ in range(4):  # send, retransmit on timeout
            self.sock.sendto(msg.encode(), self.dest)
            try:
                while True:
                    data, _ = self.sock.recvfrom(65535)
                    text = data.decode(errors="replace")
                    status = text.split("\r\n", 1)[0]
                    if f"CSeq: {self.cseq} {method}" not in text or not status.startswith("SIP/2.0 "):
                        continue
                    code = int(status.split()[1])
                    if code < 200:
                        continue
                    self.trace(f"message received from {self.a.pcscf}", text)
                    print(f"recv {status}")
                    return code, text
            except socket.timeout:
                continue
        raise SystemExit(f"no final response to {method}")

    def publish(self):
        # RFC 3903 presence PUBLISH to the own IMPU, over UDP without Content-Length (RFC 3261 18.3)
        self.cseq += 1
        a = self.a
        msg = (f"PUBLISH sip:{a.user}@{self.domain} SIP/2.0\r\n"
               f"Via: SIP/2.0/UDP {self.me};rport;branch=z9hG4bK{os.urandom(6).hex()}\r\n"
               f"From: <sip:{a.user}@{self.domain}>;tag=akaue{a.port}\r\n"
               f"To: <sip:{a.user}@{self.domain}>\r\n"
               f"Call-ID: {os.urandom(8).hex()}@aka-ue\r\nCSeq: {self.cseq} PUBLISH\r\n"
               f"Contact: <sip:{a.user}@{self.me}>\r\nMax-Forwards: 70\r\n"
               f"Event: presence\r\nExpires: 600\r\nUser-Agent: aka-ue.py\r\n\r\n")
        print(f"sent PUBLISH (CSeq {self.cseq}, Event: presence, no Content-Length)")
        return self.transaction(msg, "PUBLISH")

    def challenge(self, text):
        m = re.search(r"^WWW-Authenticate:\s*Digest\s+(.*)$", text, re.M | re.I)
        if not m:
            raise SystemExit("401 without WWW-Authenticate")
        params = dict(re.findall(r'(\w+)="?([^",]*)"?', m.group(1)))
        nonce = base64.b64decode(params["nonce"])
        rand, autn = nonce[:16], nonce[16:32]
        res, ck, ik, ak = self.usim.f2345(rand)
        sqn = xor(autn[:6], ak)
        amf = autn[6:8]
        mac_a, _ = self.usim.f1(rand, sqn, amf)
        if mac_a != autn[8:16]:
            raise SystemExit("AUTN does not verify (MAC-A): the network does not know our key")
        print(f"challenge: algorithm={params.get('algorithm')} SQN={sqn.hex()} MAC-A verified")
        return params, rand, sqn, res

    def authorization(self, params, res, auts=None):
        a = self.a
        realm, nonce, uri = params["realm"], params["nonce"], f"sip:{self.domain}"
        # RFC 3310 3.4: with AUTS, the response is computed with an empty password
        password = b"" if auts is not None else res
        cnonce, nc = os.urandom(4).hex(), "00000001"
        ha1 = hashlib.md5(f"{a.impi}:{realm}:".encode() + password).hexdigest()
        ha2 = hashlib.md5(f"REGISTER:{uri}".encode()).hexdigest()
        resp = hashlib.md5(f"{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}".encode()).hexdigest()
        extra = f', auts="{base64.b64encode(auts).decode()}"' if auts is not None else ""
        return (f'Authorization: Digest username="{a.impi}", realm="{realm}", nonce="{nonce}", uri="{uri}", '
                f'response="{resp}", algorithm=AKAv1-MD5, cnonce="{cnonce}", nc={nc}, qop=auth{extra}')


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impi", required=True)
    p.add_argument("--user", required=True, help="user part of the IMPU sip:<user>@<domain>")
    p.add_argument("--k", required=True)
    key = p.add_mutually_exclusive_group(required=True)
    key.add_argument("--op")
    key.add_argument("--opc")
    p.add_argument("--domain")
    p.add_argument("--messages")
    p.add_argument("--addr", default=LAB["LAB_LOOPBACK"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pcscf", default=LAB["LAB_PCSCF"])
    p.add_argument("mode", choices=["ok", "wrong-res", "resync", "bad-auts", "publish", "deregister"])
    a = p.parse_args()
    ue = Ue(a)
    empty = (f'Authorization: Digest username="{a.impi}", realm="{ue.domain}", nonce="", '
             f'uri="sip:{ue.domain}", response=""')
    if a.mode == "deregister":
        code, text = ue.register(empty, expires=0)
        if code == 401:
            params, rand, sqn, res = ue.challenge(text)
            code, text = ue.register(ue.authorization(params, res), expires=0)
        if code != 200:
            raise SystemExit(f"de-REGISTER: expected 200, got {code}")
        print("deregister: de-registered (200)")
        return 0
    code, text = ue.register(empty)
    if code != 401:
        raise SystemExit(f"expected 401, got {code}")
    params, rand, sqn, res = ue.challenge(text)
    if a.mode in ("resync", "bad-auts"):
        sqn_ms = (int.from_bytes(sqn, "big") + 100).to_bytes(6, "big")
        _, mac_s = ue.usim.f1(rand, sqn_ms, b"\0\0")
        if a.mode == "bad-auts":
            mac_s = bytes([mac_s[0] ^ 0x01]) + mac_s[1:]
        auts = xor(sqn_ms, ue.usim.f5star(rand)) + mac_s
        print(f"refusing SQN {sqn.hex()}: AUTS for SQN_MS={sqn_ms.hex()}"
              + (" with a corrupted MAC-S" if a.mode == "bad-auts" else ""))
        code, text = ue.register(ue.authorization(params, res, auts=auts))
        if a.mode == "bad-auts":
            if code in (200, 401):
                raise SystemExit(f"a bad AUTS was accepted: {code}")
            print(f"bad-auts: refused with {code} as expected")
            return 0
        if code != 401:
            raise SystemExit(f"expected a new 401 after AUTS, got {code}")
        params, rand, sqn, res = ue.challenge(text)
        want = int.from_bytes(sqn_ms, "big") + 1
        if int.from_bytes(sqn, "big") != want:
            raise SystemExit(f"new challenge has SQN {sqn.hex()}, want SQN_MS+1 = {want:012x}")
        print(f"new challenge after resync: SQN {sqn.hex()} = SQN_MS + 1")
    if a.mode == "wrong-res":
        res = bytes(b ^ 0x55 for b in res)
    code, text = ue.register(ue.authorization(params, res))
    want = 403 if a.mode == "wrong-res" else 200
    if code != want:
        raise SystemExit(f"expected {want}, got {code}")
    print(f"{a.mode}: got {code} as expected")
    if a.mode == "publish":
        code, _ = ue.publish()
        if code != 489:
            raise SystemExit(f"PUBLISH: expected 489, got {code}")
        code, text = ue.register(empty, expires=0)
        if code == 401:
            params, rand, sqn, res = ue.challenge(text)
            code, text = ue.register(ue.authorization(params, res), expires=0)
        if code != 200:
            raise SystemExit(f"de-REGISTER: expected 200, got {code}")
        print("publish: PUBLISH refused 489, de-registered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
