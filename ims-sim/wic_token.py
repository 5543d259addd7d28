# The eP-CSCF's check of the WAF's access token (TS 24.371 §7.2, RFC 8898): Kamailio's app_python3 runs
# check_bearer() for every request a WIC sends over the WebSocket (kamailio.cfg.tmpl route[WIC_TOKEN]).
# The token is a JWT the gateway (the WAF) signed HS256 with the key in $KAMAILIO_WIC_KEY_FILE; PyJWT
# (Debian's python3-jwt) checks its signature, algorithm, issuer, audience (the IMS domain) and expiry.
# Results for the config: $var(wic_sub) = the token's subject (the IMPU) and $var(wic_user) its user part
# when the token is valid; else $var(wic_err) = why not, for the log and the 401's error_description.
import os
import re
import sys

import KSR

try:
    import jwt
except ImportError:
    # Kamailio embeds Debian's libpython; its sys.path can lack Debian's dist-packages, where python3-jwt is
    # (seen under ./lab on a host whose PATH has another python3 (pyenv) first)
    DEBIAN_DIST = "/usr/lib/python3/dist-packages"
    if DEBIAN_DIST in sys.path or not os.path.isdir(DEBIAN_DIST):
        raise ImportError("wic_token: PyJWT not found (apt-get install python3-jwt); sys.path=%s" % sys.path)
    sys.path.append(DEBIAN_DIST)
    import jwt

ISSUER = "webrtc-ims-gw"
BEARER = re.compile(r"^\s*Bearer\s+([A-Za-z0-9_.~+/=-]+)\s*$", re.IGNORECASE)
SUB = re.compile(r"^sips?:([^@;>\s]+)@([^;>\s]+)$")


def mod_init():
    return WicToken()


class WicToken:
    def __init__(self):
        path = os.environ.get("KAMAILIO_WIC_KEY_FILE", "")
        self.audience = os.environ.get("KAMAILIO_WIC_AUDIENCE", "")
        with open(path, "rb") as f:
            self.key = f.read()
        if len(self.key) < 32 or not self.audience:
            raise ValueError("wic_token: the HS256 key must have 32 bytes or more, and the audience must be set")

    def child_init(self, rank):
        return 0

    def _fail(self, why):
        KSR.pv.sets("$var(wic_err)", why)
        return -1

    def check_bearer(self, msg):
        KSR.pv.sets("$var(wic_sub)", "")
        KSR.pv.sets("$var(wic_user)", "")
        KSR.pv.sets("$var(wic_err)", "")
        token = None
        i = 0
        while True:
            h = KSR.pv.get("$(hdr(Authorization)[%d])" % i)
            if h is None:
                break
            m = BEARER.match(h)
            if m:
                token = m.group(1)
                break
            i += 1
        if token is None:
            return self._fail("no bearer token")
        try:
            claims = jwt.decode(token, self.key, algorithms=["HS256"], audience=self.audience, issuer=ISSUER,
                                options={"require": ["exp", "iat", "sub", "iss", "aud"]})
        except jwt.ExpiredSignatureError:
            return self._fail("token expired")
        except jwt.InvalidSignatureError:
            return self._fail("bad token signature")
        except jwt.InvalidAudienceError:
            return self._fail("token for another domain")
        except jwt.InvalidIssuerError:
            return self._fail("token from another issuer")
        except jwt.InvalidAlgorithmError:
            return self._fail("token algorithm not accepted")
        except jwt.MissingRequiredClaimError:
            return self._fail("token lacks a required claim")
        except jwt.ImmatureSignatureError:
            return self._fail("token not yet valid")
        except jwt.DecodeError:
            return self._fail("malformed token")
        except jwt.InvalidTokenError:
            return self._fail("invalid token")
        m = SUB.match(str(claims.get("sub", "")))
        if not m or m.group(2) != self.audience:
            return self._fail("token subject is no IMPU of this domain")
        KSR.pv.sets("$var(wic_sub)", claims["sub"])
        KSR.pv.sets("$var(wic_user)", m.group(1))
        return 1
