// A SIP dialog as loadgen's SIP-over-WebSocket UA keeps it (RFC 3261 §12): Call-ID, tags, the remote target and the
// route set, from the 2xx to our INVITE (UAC: Record-Route reversed) or from an INVITE we answer (UAS: Record-Route
// as received); in-dialog requests (ACK, BYE) built from it; responses to a request (Via, From, To, Call-ID, CSeq
// copied, our To tag, Record-Route for a dialog-creating 2xx). Loose routing only (every route the lab's and
// Kamailio-based P-CSCFs write carries ;lr); a strict-routing first hop is refused by fromUac/fromUas.
#pragma once
#include <string>
#include <vector>

#include "sip_message.h"

namespace lg::sip {

// What every request of the UA carries: its Via sent-by and Contact (RFC 7118 §5: a random .invalid host,
// transport=ws), and the access token as `Authorization: Bearer` (RFC 8898, TS 24.371 §7.2).
struct UaIdentity {
  std::string impu;           // sip:alice@ims.lab
  std::string viaHost;        // xxxx.invalid
  std::string contact;        // <sip:alice@xxxx.invalid;transport=ws>
  std::string bearer;         // the JWT ("" = no Authorization header)
  std::string transport = "WS";  // Via transport: WS or WSS
};

// Via, Max-Forwards, User-Agent and the Bearer token on a request we send (a fresh branch unless given one).
void stampRequest(Message& m, const UaIdentity& ua, const std::string& branchValue = "");

struct Dialog {
  std::string callId, localTag, remoteTag;
  std::string localUri, remoteUri;     // From/To URIs as name-addrs without tags (<sip:...>)
  std::string remoteTarget;            // the peer's Contact URI
  std::vector<std::string> routeSet;   // Route header values, in the order they go out
  unsigned long localCseq = 0;

  // UAC: from our INVITE and the 2xx (or 1xx with a To tag) to it. false + err when the response has no To tag or
  // Contact, or the route set's first hop is a strict router.
  static bool fromUac(const Message& invite, const Message& response, Dialog& out, std::string* err);
  // UAS: from the INVITE we answer, with our To tag.
  static bool fromUas(const Message& invite, const std::string& localTag, Dialog& out, std::string* err);

  // An in-dialog request (R-URI = remote target, Route = route set, our From/To with tags); cseq 0 = the next
  // local CSeq (ACK passes the INVITE's).
  Message request(const std::string& method, const UaIdentity& ua, unsigned long cseq = 0);
};

// A response to req: its Via(s), From, To (with toTag added when it has none and toTag is set), Call-ID and CSeq;
// for a 2xx or 1xx to an INVITE also its Record-Route and our Contact.
Message response(const Message& req, int status, const std::string& reason, const std::string& toTag,
                 const UaIdentity& ua);

}  // namespace lg::sip
