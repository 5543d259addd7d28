#include "gateway_signaling.h"

#include "event_loop.h"
#include "gateway_link.h"

namespace lg {

void GatewaySignaling::adoptIncoming(const std::string& callId, const std::string& from, bool preconditions,
                                     int64_t tIncoming) {
  mt_ = true;
  preconditions_ = preconditions;
  created_ = true;  // the gateway holds the call from its INVITE on
  marks_.start = tIncoming;
  host_.res().gwCallId = callId;
  host_.res().from = from;
  host_.res().preconditions = preconditions;
  link_.adopt(callId, this);
}

void GatewaySignaling::start(const std::string& offer, int64_t now) {
  if (mt_) {
    marks_.answerSent = now;
    if (!link_.sendAnswer(host_.res().gwCallId, offer, preconditions_))
      host_.fail("gateway", "websocket closed: " + link_.closeReason());
    return;
  }
  marks_.start = now;
  // The gateway does the rtpengine offer/answer and the SIP call.
  if (!link_.sendCall(this, offer)) return host_.fail("gateway", "websocket closed: " + link_.closeReason());
  created_ = true;
}

std::string GatewaySignaling::setupTimeoutReason() const {
  return marks_.first ? "no `answered` within the setup timeout" : "no `calling` within the setup timeout";
}

bool GatewaySignaling::awaitRemoteEnd(int64_t now) {
  if (!mt_ || ended_) return false;
  awaitingRemote_ = true;
  hangupDeadline_ = now + static_cast<int64_t>(cfg_.hangupWaitS * 1e9);
  host_.arm(hangupDeadline_);
  return true;
}

void GatewaySignaling::end(int64_t now) {
  awaitingRemote_ = false;
  hangupDeadline_ = now + static_cast<int64_t>(cfg_.hangupWaitS * 1e9);
  if (ended_) {
    host_.res().deleted = true;
    return host_.finish();
  }
  if (host_.res().gwCallId.empty()) {  // `call` sent, `calling` not yet here
    hangupPending_ = true;
    return host_.arm(hangupDeadline_);
  }
  sendHangup(now);
}

// Bounded wait for `ended` after our hangup (or for `calling`, to hang up at all).
void GatewaySignaling::onEndTimer(int64_t now) {
  if (now < hangupDeadline_) return host_.arm(hangupDeadline_);
  if (awaitingRemote_) return end(now);  // the caller did not hang up in time: we do
  host_.finishWith(hangupPending_ ? "no `calling` to hang up" : "no `ended` after hangup");
}

void GatewaySignaling::sendHangup(int64_t now) {
  marks_.hangup = now;
  host_.arm(hangupDeadline_);
  if (!link_.sendHangup(host_.res().gwCallId)) host_.finishUnsent("hangup not sent: websocket closed");
}

void GatewaySignaling::release() { link_.forget(this); }

void GatewaySignaling::report(CallResult& r) const {
  marks_.report(r);
}

void GatewaySignaling::onCalling(const std::string& callId, int64_t now) {
  host_.res().gwCallId = callId;
  marks_.first = now;
  if (hangupPending_ && host_.stage() == CallStage::Ending) {
    hangupPending_ = false;
    sendHangup(now);
  }
}

void GatewaySignaling::onRinging(int64_t now) {
  if (!marks_.ringing) marks_.ringing = now;
}

void GatewaySignaling::onAnswer(const std::string& sdp, int64_t now, bool early) {
  int64_t& t = early ? marks_.early : marks_.answered;
  if (!t) t = now;
  if (host_.stage() != CallStage::Signaling) return;  // ICE already started (early SDP), or the call is ending
  host_.res().earlyAnswer = early;
  host_.dumpSdp("gateway-answer.sdp", sdp);
  if (sdp.empty()) return host_.fail("gateway", "`answered` without sdp");
  host_.onRemoteSdp(sdp, now);  // the ICE phase counts from here
}

void GatewaySignaling::onMediaCheck() {
  const CallResult& res = host_.res();
  if (!res.gwCallId.empty() && !ended_) link_.sendMediaReport(res.gwCallId, res.recv);
}

void GatewaySignaling::onEnded(const std::string& reason, int sipCode) {
  CallResult& res = host_.res();
  res.endReason = reason;
  res.sipCode = sipCode;
  marks_.ended = nowNs();
  ended_ = true;
  std::string why = "ended: " + reason + (sipCode ? " (SIP " + std::to_string(sipCode) + ")" : "");
  switch (host_.stage()) {
    case CallStage::Done:
    case CallStage::Idle:
      return;
    case CallStage::Ending:
      awaitingRemote_ = false;
      res.deleted = true;
      return host_.finish();
    case CallStage::Media:
      if (mt_ && reason == "remote-hangup") {  // the caller's BYE: how an incoming call ends
        res.deleted = true;
        return host_.endNormally();
      }
      return host_.endEarly("the call " + why + " during media");
    default:
      return host_.failHere(why);
  }
}

void GatewaySignaling::onError(const std::string& code, const std::string& message, bool beforeCalling) {
  CallStage stage = host_.stage();
  if (stage == CallStage::Done) return;
  std::string why = "gateway error " + code + ": " + message;
  if (beforeCalling) {  // the gateway never created the call: nothing to hang up
    ended_ = true;
    hangupPending_ = false;
  }
  if (stage == CallStage::Ending) {
    // unknown-call: the call ended on its own meanwhile, no `ended` will answer our hangup.
    if (beforeCalling || code == "unknown-call") host_.finish();
    return;
  }
  if (stage == CallStage::Media) {
    CallResult& res = host_.res();
    if (res.error.empty()) res.error = why;  // the gateway ends the call itself; `ended` follows
    return;
  }
  host_.failHere(why);
}

void GatewaySignaling::onClosed(const std::string& why) {
  CallStage stage = host_.stage();
  if (stage == CallStage::Done || stage == CallStage::Idle) return;
  ended_ = true;  // closing the socket ends the user's calls in the gateway
  if (stage == CallStage::Ending) {
    CallResult& res = host_.res();
    if (res.error.empty()) res.error = "websocket closed before `ended`: " + why;
    return host_.finish();
  }
  if (stage == CallStage::Media) return host_.endEarly("websocket closed: " + why);
  host_.failHere("websocket closed: " + why);
}

}  // namespace lg
