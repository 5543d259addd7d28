#include "sip_ws_signaling.h"

#include "event_loop.h"
#include "sip_ws_link.h"

namespace lg {

namespace {
std::string statusText(const sip::Message& m) { return "SIP " + std::to_string(m.status) + " " + m.reason; }
}  // namespace

void SipWsSignaling::adoptIncoming(const sip::Message& invite, int64_t tIncoming) {
  mt_ = true;
  created_ = true;  // the caller holds the call from its INVITE on
  invite_ = invite;
  marks_.start = tIncoming;
  localTag_ = sip::token(12);
  host_.res().gwCallId = invite.callId();
  host_.res().from = sip::uri(invite.header("From"));
  if (!sip::Dialog::fromUas(invite_, localTag_, dialog_, &adoptError_)) {
    link_.send(sip::response(invite_, 400, "Bad Request", localTag_, link_.ua()));
    ended_ = true;  // start() fails the call
    return;
  }
  link_.send(sip::response(invite_, 180, "Ringing", localTag_, link_.ua()));
}

void SipWsSignaling::start(const std::string& sdp, int64_t now) {
  if (mt_) {
    if (!adoptError_.empty()) return host_.fail("sip", "incoming INVITE: " + adoptError_);
    if (ended_) return host_.fail("sip", "the caller cancelled before the answer");
    sip::Message ok = sip::response(invite_, 200, "OK", localTag_, link_.ua());
    ok.add("Content-Type", "application/sdp");
    ok.body = sdp;
    marks_.answerSent = now;
    if (!link_.send(ok)) return host_.fail("sip", "websocket closed: " + link_.closeReason());
    confirmed_ = true;
    return;
  }
  marks_.start = now;
  if (!link_.sendInvite(this, sdp, invite_)) return host_.fail("sip", "websocket closed: " + link_.closeReason());
  created_ = true;
  host_.res().gwCallId = invite_.callId();
}

std::string SipWsSignaling::setupTimeoutReason() const {
  if (mt_) return "no ICE/DTLS within the setup timeout";
  return marks_.first || marks_.ringing ? "no 200 to the INVITE within the setup timeout" : "no answer to the INVITE within the setup timeout";
}

bool SipWsSignaling::awaitRemoteEnd(int64_t now) {
  if (!mt_ || ended_) return false;
  awaitingRemote_ = true;
  hangupDeadline_ = now + static_cast<int64_t>(cfg_.hangupWaitS * 1e9);
  host_.arm(hangupDeadline_);
  return true;
}

void SipWsSignaling::end(int64_t now) {
  awaitingRemote_ = false;
  hangupDeadline_ = now + static_cast<int64_t>(cfg_.hangupWaitS * 1e9);
  if (ended_ || !created_) {
    host_.res().deleted = ended_;
    return host_.finish();
  }
  if (confirmed_) return sendBye(now);
  if (mt_) {  // not answered yet: decline
    link_.send(sip::response(invite_, 480, "Temporarily Unavailable", localTag_, link_.ua()));
    ended_ = true;
    host_.res().deleted = true;
    return host_.finish();
  }
  sendCancel(now);
}

void SipWsSignaling::onEndTimer(int64_t now) {
  if (now < hangupDeadline_) return host_.arm(hangupDeadline_);
  if (awaitingRemote_) return end(now);  // the caller did not hang up in time: we do
  host_.finishWith(byeSent_ ? "no final response to the BYE" : "no final response to the CANCEL");
}

void SipWsSignaling::sendBye(int64_t now) {
  marks_.hangup = now;
  byeSent_ = true;
  host_.arm(hangupDeadline_);
  if (!link_.send(dialog_.request("BYE", link_.ua()))) host_.finishUnsent("BYE not sent: websocket closed");
}

void SipWsSignaling::sendCancel(int64_t now) {
  marks_.hangup = now;
  cancelSent_ = true;
  host_.arm(hangupDeadline_);
  // RFC 3261 §9.1: the INVITE's R-URI, Call-ID, From, To, CSeq number and top Via (its branch), and its Route.
  sip::Message c;
  c.request = true;
  c.method = "CANCEL";
  c.uri = invite_.uri;
  for (const auto& r : invite_.all("Route")) c.add("Route", r);
  c.add("From", invite_.header("From"));
  c.add("To", invite_.header("To"));
  c.add("Call-ID", invite_.callId());
  c.add("CSeq", std::to_string(invite_.cseq()) + " CANCEL");
  sip::stampRequest(c, link_.ua(), sip::param(invite_.header("Via"), "branch"));
  if (!link_.send(c)) host_.finishUnsent("CANCEL not sent: websocket closed");
}

void SipWsSignaling::ackFailure(const sip::Message& m) {
  sip::Message a;
  a.request = true;
  a.method = "ACK";
  a.uri = invite_.uri;
  for (const auto& r : invite_.all("Route")) a.add("Route", r);
  a.add("From", invite_.header("From"));
  a.add("To", m.header("To"));
  a.add("Call-ID", invite_.callId());
  a.add("CSeq", std::to_string(invite_.cseq()) + " ACK");
  sip::stampRequest(a, link_.ua(), sip::param(invite_.header("Via"), "branch"));
  link_.send(a);
}

void SipWsSignaling::release() { link_.forget(this); }

void SipWsSignaling::report(CallResult& r) const {
  marks_.report(r);
}

void SipWsSignaling::onResponse(const sip::Message& m, int64_t now) {
  std::string method = m.cseqMethod();
  if (method == "INVITE" && !mt_) return onInviteResponse(m, now);
  if (m.status < 200) return;
  if (method == "BYE" && byeSent_) {
    marks_.ended = now;
    ended_ = true;
    CallResult& res = host_.res();
    res.deleted = true;
    res.endReason = "local-hangup";
    if (m.status >= 300) {
      res.sipCode = m.status;
      if (res.error.empty()) res.error = "BYE answered " + statusText(m);
    }
    if (host_.stage() == CallStage::Ending) host_.finish();
  }
  // 200 to CANCEL: the INVITE's 487 follows
}

void SipWsSignaling::onInviteResponse(const sip::Message& m, int64_t now) {
  CallResult& res = host_.res();
  if (m.status == 100) {
    if (!marks_.first) marks_.first = now;
    return;
  }
  if (m.status < 200) {
    if (!marks_.ringing && m.status == 180) marks_.ringing = now;
    // an early answer (a 183 with SDP in an early dialog): rtpengine's browser-leg SDP, ICE can start
    if (!m.body.empty() && !sip::tag(m.header("To")).empty()) {
      if (!marks_.early) marks_.early = now;
      if (host_.stage() == CallStage::Signaling) {
        res.earlyAnswer = true;
        host_.dumpSdp("sip-early-answer.sdp", m.body);
        host_.onRemoteSdp(m.body, now);
      }
    }
    return;
  }
  if (m.status >= 300) {
    ackFailure(m);
    if (ended_) return;  // a retransmission
    ended_ = true;
    marks_.ended = now;
    res.sipCode = m.status;
    res.endReason = m.status == 487 && cancelSent_ ? "cancelled" : "rejected";
    if (host_.stage() == CallStage::Ending) {
      res.deleted = true;
      return host_.finish();
    }
    if (host_.stage() == CallStage::Done) return;
    return host_.failHere("the INVITE was answered " + statusText(m));
  }
  // 2xx: ACK it (again for a retransmission: the UAS retransmits until it has our ACK)
  if (confirmed_) {
    link_.send(ack_);
    return;
  }
  std::string err;
  if (!sip::Dialog::fromUac(invite_, m, dialog_, &err)) {
    ended_ = true;  // no dialog to ACK or BYE in
    return host_.failHere("2xx to the INVITE: " + err);
  }
  ack_ = dialog_.request("ACK", link_.ua(), invite_.cseq());
  link_.send(ack_);
  confirmed_ = true;
  marks_.answered = now;
  if (host_.stage() == CallStage::Ending) return sendBye(now);  // CANCEL crossed the 200: end it with a BYE
  if (host_.stage() != CallStage::Signaling) return;             // ICE already started from a 183
  host_.dumpSdp("sip-answer.sdp", m.body);
  if (m.body.empty()) return host_.fail("sip", "200 to the INVITE without SDP");
  host_.onRemoteSdp(m.body, now);
}

void SipWsSignaling::onRequest(const sip::Message& m, int64_t now) {
  const sip::UaIdentity& ua = link_.ua();
  if (m.method == "ACK") {
    if (mt_ && !tAck_) tAck_ = now;
    return;
  }
  if (m.method == "BYE") {
    link_.send(sip::response(m, 200, "OK", "", ua));
    marks_.ended = now;
    ended_ = true;
    host_.res().endReason = "remote-hangup";
    return remoteEnded("BYE from the far end");
  }
  if (m.method == "CANCEL") {
    link_.send(sip::response(m, 200, "OK", localTag_, ua));
    if (confirmed_ || ended_) return;  // too late: the 200 went out
    link_.send(sip::response(invite_, 487, "Request Terminated", localTag_, ua));
    ended_ = true;
    host_.res().endReason = "cancelled";
    return remoteEnded("CANCEL from the caller");
  }
  if (m.method == "INVITE" || m.method == "UPDATE") {
    sip::Message r = sip::response(m, 488, "Not Acceptable Here", "", ua);
    r.add("Warning", "399 loadgen \"no second offer/answer\"");
    link_.send(r);
    return;
  }
  link_.send(sip::response(m, 200, "OK", "", ua));  // INFO, OPTIONS, NOTIFY in the dialog
}

void SipWsSignaling::remoteEnded(const std::string& why) {
  CallResult& res = host_.res();
  switch (host_.stage()) {
    case CallStage::Done:
    case CallStage::Idle:
      return;
    case CallStage::Ending:
      awaitingRemote_ = false;
      res.deleted = true;
      return host_.finish();
    case CallStage::Media:
      res.deleted = true;
      if (mt_) return host_.endNormally();  // the caller's BYE: how an incoming call ends
      return host_.endEarly(why + " during media");
    default:
      return host_.failHere(why);
  }
}

void SipWsSignaling::onClosed(const std::string& why) {
  CallStage stage = host_.stage();
  if (stage == CallStage::Done || stage == CallStage::Idle) return;
  ended_ = true;  // the eP-CSCF cannot reach this client any more
  if (stage == CallStage::Ending) {
    CallResult& res = host_.res();
    if (res.error.empty()) res.error = "websocket closed before the end was confirmed: " + why;
    return host_.finish();
  }
  if (stage == CallStage::Media) return host_.endEarly("websocket closed: " + why);
  host_.failHere("websocket closed: " + why);
}

}  // namespace lg
