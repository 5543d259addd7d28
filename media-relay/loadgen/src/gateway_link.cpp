#include "gateway_link.h"

#include "gateway_signaling.h"

namespace lg {

void GatewayLink::attach(EventLoop& loop) {
  ws_.attach(loop, [this](const std::string& t) { onMessage(t); }, [this](const std::string& why) { onClosed(why); });
}

std::unique_ptr<CallSignaling> GatewayLink::makeSignaling(SignalingHost& host, const Config& cfg, const IncomingCall* mt,
                                                        int64_t tIncoming) {
  auto sig = std::make_unique<GatewaySignaling>(host, *this, cfg);
  if (mt) sig->adoptIncoming(mt->callId, mt->from, mt->preconditions, tIncoming);
  return sig;
}

bool GatewayLink::sendCall(GatewaySignaling* c, const std::string& sdp) {
  if (closed_ || !ws_.sendText(gw::callMessage(to_, sdp))) return false;
  awaitingCalling_.push_back(c);
  return true;
}

bool GatewayLink::sendHangup(const std::string& callId) {
  return !closed_ && ws_.sendText(gw::hangupMessage(callId));
}

bool GatewayLink::sendMediaReport(const std::string& callId, uint64_t packetsReceived) {
  return !closed_ && ws_.sendText(gw::mediaReportMessage(callId, packetsReceived));
}

bool GatewayLink::sendAnswer(const std::string& callId, const std::string& sdp, bool preconditions) {
  if (closed_) return false;
  if (preconditions) return ws_.sendText(gw::mediaMessage(callId, sdp)) && ws_.sendText(gw::answerMessage(callId, ""));
  return ws_.sendText(gw::answerMessage(callId, sdp));
}

void GatewayLink::forget(GatewaySignaling* c) {
  for (auto it = byId_.begin(); it != byId_.end();) it = it->second == c ? byId_.erase(it) : std::next(it);
  for (auto it = awaitingCalling_.begin(); it != awaitingCalling_.end();)
    it = *it == c ? awaitingCalling_.erase(it) : std::next(it);
}

void GatewayLink::onMessage(const std::string& text) {
  gw::Event e;
  if (!gw::parseEvent(text, e, nullptr)) {
    ++bad_;
    return;
  }
  int64_t now = nowNs();
  if (e.type == "calling") {
    if (awaitingCalling_.empty() || e.callId.empty()) {
      ++unmatched_;
      return;
    }
    GatewaySignaling* c = awaitingCalling_.front();
    awaitingCalling_.pop_front();
    byId_[e.callId] = c;
    lastCallingId_ = e.callId;
    c->onCalling(e.callId, now);  // may send hangup at once (stopped while waiting)
    return;
  }
  if (e.type == "error" && e.callId.empty()) {
    // A `call` that failed before `calling` (bad SDP, rtpengine down) names no call: it is the
    // oldest one still waiting. Exception: an INVITE that could not be sent ends the call that just
    // got `calling` (its `ended` came first) and then errors without an id.
    if (e.code == "sip-failed" && lastEndedId_ == lastCallingId_ && lastEndedReason_ == "sip-failed") return;
    if (awaitingCalling_.empty()) {
      ++unmatched_;
      return;
    }
    GatewaySignaling* c = awaitingCalling_.front();
    awaitingCalling_.pop_front();
    c->onError(e.code, e.message, true);
    return;
  }
  if (e.type == "incoming") {
    if (incoming_ && !e.callId.empty()) incoming_(IncomingCall{e.callId, e.from, e.sdp, e.preconditions}, now);
    else ++unmatched_;
    return;
  }
  if (e.type == "pong") return;  // nothing loadgen asked for
  auto it = byId_.find(e.callId);
  if (it == byId_.end()) {
    ++unmatched_;
    return;
  }
  GatewaySignaling* c = it->second;
  if (e.type == "ringing") {
    c->onRinging(now);
  } else if (e.type == "progress") {
    if (!e.sdp.empty()) c->onAnswer(e.sdp, now, true);
  } else if (e.type == "answered") {
    c->onAnswer(e.sdp, now, false);
  } else if (e.type == "ended") {
    lastEndedId_ = e.callId;
    lastEndedReason_ = e.reason;
    byId_.erase(it);
    c->onEnded(e.reason, e.sipCode);
  } else if (e.type == "error") {
    c->onError(e.code, e.message, false);
  } else if (e.type == "media-check") {
    c->onMediaCheck();
  }  // `alerting` (MT with preconditions: the page would ring now; loadgen accepted already): nothing to do
}

void GatewayLink::onClosed(const std::string& why) {
  closed_ = true;
  closeReason_ = why;
  // Every call still open loses its signalling: it ends here (the gateway ends them too).
  std::deque<GatewaySignaling*> calls(awaitingCalling_.begin(), awaitingCalling_.end());
  for (auto& kv : byId_) calls.push_back(kv.second);
  awaitingCalling_.clear();
  byId_.clear();
  for (GatewaySignaling* c : calls) c->onClosed(why);
}

}  // namespace lg
