#include "sip_ws_link.h"

#include "sip_ws_signaling.h"

namespace lg {

namespace {
constexpr int kRegisterExpires = 600;  // s, the REGISTER's Expires; refreshed at 80 %

// The callee as a SIP URI: a user of the domain ("ue1"), user@host, or a sip:/sips: URI as given.
std::string targetUri(const std::string& to, const std::string& domain) {
  if (to.empty()) return "";
  if (to.rfind("sip:", 0) == 0 || to.rfind("sips:", 0) == 0) return to;
  return "sip:" + to + (to.find('@') == std::string::npos ? "@" + domain : "");
}
}  // namespace

SipWsLink::SipWsLink(WsClient& ws, std::string user, const std::string& impu, const std::string& domain,
                     const std::string& to, const std::string& bearer, bool wss)
    : ws_(ws), user_(std::move(user)), impu_(impu), domain_(domain), target_(targetUri(to, domain)) {
  // RFC 7118 §5: the client has no reachable host name; it writes a random .invalid one in Via and Contact
  std::string host = sip::token(12) + ".invalid";
  std::string impuUser = sip::userOf(impu_);
  ua_.impu = impu_;
  ua_.viaHost = host;
  ua_.contact = "<sip:" + (impuUser.empty() ? user_ : impuUser) + "@" + host + ";transport=" + (wss ? "wss" : "ws") + ">";
  ua_.bearer = bearer;
  ua_.transport = wss ? "WSS" : "WS";
  regCallId_ = sip::token(20);
  regFromTag_ = sip::token(10);
}

void SipWsLink::attach(EventLoop& loop) {
  ws_.attach(loop, [this](const std::string& t) { onMessage(t); }, [this](const std::string& why) { onClosed(why); });
}

sip::Message SipWsLink::registerRequest(int expires) {
  sip::Message r;
  r.request = true;
  r.method = "REGISTER";
  r.uri = "sip:" + domain_;
  r.add("From", "<" + impu_ + ">;tag=" + regFromTag_);
  r.add("To", "<" + impu_ + ">");
  r.add("Call-ID", regCallId_);
  r.add("CSeq", std::to_string(++regCseq_) + " REGISTER");
  r.add("Contact", ua_.contact + ";expires=" + std::to_string(expires));
  r.add("Expires", std::to_string(expires));
  r.add("Supported", "path");
  sip::stampRequest(r, ua_);
  return r;
}

bool SipWsLink::registerOn(EventLoop& loop, int expires, int timeoutMs, std::string* err) {
  if (expires == 0) reRegisterAt_ = 0;  // no refresh may overtake the de-REGISTER
  attach(loop);
  regDone_ = false;
  regError_.clear();
  sip::Message r = registerRequest(expires);
  bool sent = send(r);
  int64_t deadline = nowNs() + static_cast<int64_t>(timeoutMs) * 1'000'000;
  while (sent && !regDone_ && !closed_ && nowNs() < deadline) loop.runOnce(20);
  ws_.detach();
  std::string what = expires ? "REGISTER" : "de-REGISTER";
  if (!sent || closed_) {
    if (err) *err = what + " of " + impu_ + ": websocket closed" + (closeReason_.empty() ? "" : ": " + closeReason_);
    return false;
  }
  if (!regDone_) {
    if (err) *err = "no final response to the " + what + " of " + impu_ + " within " + std::to_string(timeoutMs) + " ms";
    return false;
  }
  if (!regError_.empty()) {
    if (err) *err = what + " of " + impu_ + " refused: " + regError_;
    return false;
  }
  registered_ = expires > 0;
  if (registered_) reRegisterAt_ = nowNs() + static_cast<int64_t>(0.8 * kRegisterExpires * 1e9);
  return true;
}

void SipWsLink::keepAlive(Refresher refresh, double lifeS) {
  refresh_ = std::move(refresh);
  refreshAt_ = nowNs() + static_cast<int64_t>(0.8 * lifeS * 1e9);
}

void SipWsLink::maintain(int64_t now) {
  if (maintaining_) return;
  maintaining_ = true;
  if (refresh_ && now >= refreshAt_) {
    std::string fresh, err;
    double life = 0;
    // blocking (one HTTP request to the gateway on this engine's thread, every 4 minutes with the lab's 5-minute tokens)
    if (refresh_(ua_.bearer, fresh, life, &err)) {
      ua_.bearer = fresh;
      ++refreshes_;
      refreshAt_ = now + static_cast<int64_t>(0.8 * life * 1e9);
    } else {
      refreshError_ = err;
      refreshAt_ = now + 5'000'000'000LL;  // the current token may still be good: try again in 5 s
    }
  }
  // the registration's refresh: its response is matched like the first one's (onRegisterResponse)
  if (registered_ && reRegisterAt_ && now >= reRegisterAt_) {
    reRegisterAt_ = now + static_cast<int64_t>(0.8 * kRegisterExpires * 1e9);
    send(registerRequest(kRegisterExpires));
  }
  maintaining_ = false;
}

void SipWsLink::onRegisterResponse(const sip::Message& m) {
  if (m.status < 200 || m.cseq() != regCseq_) return;
  regDone_ = true;
  if (m.status >= 300) {
    regError_ = std::to_string(m.status) + " " + m.reason;
    std::string challenge = m.header("WWW-Authenticate");
    if (!challenge.empty()) regError_ += " (" + challenge + ")";
    if (registered_) refreshError_ = "REGISTER refresh refused: " + regError_;
    return;
  }
  // RFC 3608 / TS 24.229 §5.1.1.2: originating requests go out with the Service-Route as their Route
  std::vector<std::string> sr = m.all("Service-Route");
  serviceRoute_ = sr.empty() ? "" : sr.front();
}

bool SipWsLink::send(const sip::Message& m) {
  if (closed_) return false;
  if (m.request) {
    maintain(nowNs());
    // a request built before the token was refreshed (an ACK kept for 2xx retransmissions, say) goes with the new one
    if (!ua_.bearer.empty() && m.header("Authorization") != "Bearer " + ua_.bearer) {
      sip::Message fresh = m;
      fresh.remove("Authorization");
      fresh.add("Authorization", "Bearer " + ua_.bearer);
      if (!ws_.sendText(fresh.str())) return false;
      ++requestsOut_;
      return true;
    }
  }
  if (!ws_.sendText(m.str())) return false;
  if (m.request) ++requestsOut_;
  return true;
}

bool SipWsLink::sendInvite(SipWsSignaling* c, const std::string& sdp, sip::Message& sent) {
  sip::Message inv;
  inv.request = true;
  inv.method = "INVITE";
  inv.uri = target_;
  if (!serviceRoute_.empty()) inv.add("Route", serviceRoute_);
  inv.add("From", "<" + impu_ + ">;tag=" + sip::token(10));
  inv.add("To", "<" + target_ + ">");
  inv.add("Call-ID", sip::token(20) + "@" + ua_.viaHost);
  inv.add("CSeq", "1 INVITE");
  inv.add("Contact", ua_.contact);
  inv.add("Allow", "INVITE, ACK, CANCEL, BYE, OPTIONS");
  inv.add("Content-Type", "application/sdp");
  inv.body = sdp;
  sip::stampRequest(inv, ua_);
  if (!send(inv)) return false;
  byId_[inv.callId()] = c;
  sent = std::move(inv);
  return true;
}

void SipWsLink::forget(SipWsSignaling* c) {
  for (auto it = byId_.begin(); it != byId_.end();) it = it->second == c ? byId_.erase(it) : std::next(it);
}

std::unique_ptr<CallSignaling> SipWsLink::makeSignaling(SignalingHost& host, const Config& cfg, const IncomingCall* mt,
                                                        int64_t tIncoming) {
  auto sig = std::make_unique<SipWsSignaling>(host, *this, cfg);
  if (mt && pendingInvite_ && pendingInvite_->callId() == mt->callId) {
    pendingTaken_ = true;
    byId_[mt->callId] = sig.get();
    sig->adoptIncoming(*pendingInvite_, tIncoming);
  }
  return sig;
}

void SipWsLink::refuseIncoming(const IncomingCall& call) {
  if (!pendingInvite_ || pendingInvite_->callId() != call.callId) return;
  pendingTaken_ = true;
  send(sip::response(*pendingInvite_, 486, "Busy Here", sip::token(10), ua_));
}

void SipWsLink::onNewInvite(const sip::Message& m, int64_t now) {
  if (byId_.count(m.callId())) return;  // a retransmission of an INVITE we have
  // RFC 3261 §8.2.2.3: an extension we do not do (preconditions, 100rel) -> 420
  std::vector<std::string> req = m.all("Require");
  if (!req.empty()) {
    sip::Message r = sip::response(m, 420, "Bad Extension", sip::token(10), ua_);
    std::string list;
    for (const auto& x : req) list += (list.empty() ? "" : ", ") + x;
    r.add("Unsupported", list);
    send(r);
    ++unmatched_;
    return;
  }
  if (!incoming_) {
    send(sip::response(m, 480, "Temporarily Unavailable", sip::token(10), ua_));
    ++unmatched_;
    return;
  }
  pendingInvite_ = &m;
  pendingTaken_ = false;
  incoming_(IncomingCall{m.callId(), sip::uri(m.header("From")), m.body, false}, now);
  if (!pendingTaken_) send(sip::response(m, 480, "Temporarily Unavailable", sip::token(10), ua_));
  pendingInvite_ = nullptr;
}

void SipWsLink::onMessage(const std::string& text) {
  sip::Message m;
  if (!sip::parse(text, m, nullptr)) {
    ++bad_;
    return;
  }
  ++messagesIn_;
  int64_t now = nowNs();
  if (!m.request) {
    if (m.callId() == regCallId_) return onRegisterResponse(m);
    auto it = byId_.find(m.callId());
    if (it == byId_.end()) {
      ++unmatched_;
      return;
    }
    return it->second->onResponse(m, now);
  }
  bool inDialog = !sip::tag(m.header("To")).empty();
  auto it = byId_.find(m.callId());
  if (it != byId_.end() && (inDialog || m.method != "INVITE")) return it->second->onRequest(m, now);
  if (m.method == "INVITE" && !inDialog) return onNewInvite(m, now);
  if (m.method == "ACK") {  // for a call already gone (e.g. the ACK of our 486/480)
    return;
  }
  if (m.method == "OPTIONS" && !inDialog) {
    send(sip::response(m, 200, "OK", sip::token(10), ua_));
    return;
  }
  ++unmatched_;
  send(sip::response(m, 481, "Call/Transaction Does Not Exist", "", ua_));
}

void SipWsLink::onClosed(const std::string& why) {
  closed_ = true;
  closeReason_ = why;
  std::unordered_map<std::string, SipWsSignaling*> calls;
  calls.swap(byId_);
  for (auto& kv : calls) kv.second->onClosed(why);
}

}  // namespace lg
