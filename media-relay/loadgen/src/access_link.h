// One user's signalling connection, as the engine sees it (docs/loadgen.md): the gateway's browser API over its
// WebSocket (GatewayLink, JSON), or SIP over a WebSocket to an eP-CSCF (SipWsLink, RFC 7118). The engine deals
// calls to links, creates each call's signalling through its link, and hears of incoming calls from it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "config.h"
#include "event_loop.h"
#include "signaling.h"

namespace lg {

// An incoming (MT) call as the link announces it.
struct IncomingCall {
  std::string callId;          // the gateway's callId, or the SIP Call-ID
  std::string from;
  std::string sdp;             // rtpengine's browser-leg offer
  bool preconditions = false;  // gateway: answer with `media` then `answer`
};

class AccessLink {
 public:
  virtual ~AccessLink() = default;
  virtual const std::string& user() const = 0;
  virtual void attach(EventLoop& loop) = 0;
  // Incoming-call handler; without one incoming calls are not answered (an MO-only run).
  virtual void onIncoming(std::function<void(const IncomingCall&, int64_t now)> fn) = 0;
  // Inside the incoming handler: refuse that call (beyond --expect-calls, or stopping).
  virtual void refuseIncoming(const IncomingCall& call) = 0;
  // A call's signalling on this link; mt: the incoming call it answers (inside the incoming handler), else null.
  virtual std::unique_ptr<CallSignaling> makeSignaling(SignalingHost& host, const Config& cfg, const IncomingCall* mt,
                                                       int64_t tIncoming) = 0;
  virtual bool closed() const = 0;
  virtual const std::string& closeReason() const = 0;
  virtual uint64_t unmatched() const = 0;    // messages for no known call
  virtual uint64_t badMessages() const = 0;  // messages that did not parse
};

}  // namespace lg
