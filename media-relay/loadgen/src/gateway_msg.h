// The gateway's browser API as data (docs/architecture.md "Browser API"): the login reply and the
// WebSocket JSON messages loadgen sends (call, hangup; answer, media for incoming calls; media-report) and
// receives (calling, ringing, progress, answered, ended, error, pong; incoming, alerting; media-check).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "http.h"

namespace lg::gw {

// POST /api/v1/sessions reply: 201 {token, wsUrl} (wsUrl carries no token). Any other status -> false and a one-line reason.
bool parseLogin(const http::Response& r, std::string& token, std::string& wsUrl, std::string* err);
// The WebSocket subprotocols to offer on wsUrl: "lab.v1" and "lab.token.<token>" (the token never goes in the URL).
std::vector<std::string> wsProtocols(const std::string& token);
std::string loginBody(const std::string& user, const std::string& password);

std::string callMessage(const std::string& to, const std::string& sdp);
std::string hangupMessage(const std::string& callId);
// MT: `answer {callId, sdp}` (sdp "" = none: the SDP went out earlier in `media`), `media {callId, sdp}`.
std::string answerMessage(const std::string& callId, const std::string& sdp);
std::string mediaMessage(const std::string& callId, const std::string& sdp);
// The answer to the gateway's `media-check`: SRTP packets received and authenticated so far (docs/scale-out.md).
std::string mediaReportMessage(const std::string& callId, uint64_t packetsReceived);

struct Event {
  std::string type;      // calling | ringing | progress | answered | ended | error | pong | incoming | ...
  std::string callId;    // "" when absent (error about a message without a callId)
  std::string to, from, sdp, reason, code, message;
  int sipCode = 0;       // 0 = absent or null
  bool preconditions = false;  // `incoming`: answer the SDP at once with `media` (docs/architecture.md)
};
// false + err for text that is not a JSON object with a string "type".
bool parseEvent(const std::string& text, Event& out, std::string* err);

}  // namespace lg::gw
