// SIP-over-WebSocket signalling of one call (RFC 7118; docs/loadgen.md "SIP over WebSocket"), on its user's
// SipWsLink. MO: INVITE with the browser offer -> 100/180/183/200 (rtpengine's browser-leg SDP comes in the 200, or
// in a 183 with a To tag) -> ACK; at the end BYE and a bounded wait for its 200; a stop before the final response
// CANCELs (487 is then ACKed). MT: the INVITE the link handed over -> 180 -> 200 with our answer -> the caller's
// ACK; the caller's BYE during media is the normal end. A failure final response is ACKed and fails the call with
// its status. Re-INVITE and UPDATE are refused (488): loadgen holds no second offer/answer.
#pragma once
#include <string>

#include "config.h"
#include "setup_marks.h"
#include "signaling.h"
#include "sip_dialog.h"
#include "sip_message.h"

namespace lg {

class SipWsLink;

class SipWsSignaling : public CallSignaling {
 public:
  SipWsSignaling(SignalingHost& host, SipWsLink& link, const Config& cfg) : host_(host), link_(link), cfg_(cfg) {}
  // MT: this call answers invite (received at tIncoming); sends 180 Ringing.
  void adoptIncoming(const sip::Message& invite, int64_t tIncoming);
  bool incoming() const { return mt_; }
  void start(const std::string& sdp, int64_t now) override;
  const char* setupPhase() const override { return "sip"; }
  std::string setupTimeoutReason() const override;
  bool mayHoldCall() const override { return created_ && !ended_; }
  void end(int64_t now) override;
  bool awaitRemoteEnd(int64_t now) override;
  bool awaitingRemoteEnd() const override { return awaitingRemote_; }
  void onEndTimer(int64_t now) override;
  void release() override;
  void report(CallResult& r) const override;

  // From the link, by Call-ID.
  void onResponse(const sip::Message& m, int64_t now);
  void onRequest(const sip::Message& m, int64_t now);
  void onClosed(const std::string& why);

 private:
  void onInviteResponse(const sip::Message& m, int64_t now);
  void ackFailure(const sip::Message& m);   // ACK for a non-2xx final response (same branch as the INVITE)
  void sendBye(int64_t now);
  void sendCancel(int64_t now);
  void remoteEnded(const std::string& why);

  SignalingHost& host_;
  SipWsLink& link_;
  const Config& cfg_;
  bool mt_ = false;
  bool created_ = false;     // INVITE sent (or received): the far side may hold the call
  bool ended_ = false;       // nothing left to end (final failure, BYE done, socket gone)
  bool confirmed_ = false;   // dialog established (MO: 2xx ACKed; MT: 200 sent)
  bool byeSent_ = false, cancelSent_ = false, awaitingRemote_ = false;
  sip::Message invite_;      // our INVITE (MO) or the caller's (MT)
  sip::Message ack_;         // MO: the ACK of the 2xx, resent for each retransmitted 2xx
  sip::Dialog dialog_;
  std::string localTag_;     // MT: our To tag
  std::string adoptError_;   // MT: why the INVITE could not start a dialog (start() fails the call)
  SetupMarks marks_;  // first = the 100 Trying; MT: start = the INVITE received, answerSent = our 200 sent
  int64_t tAck_ = 0, hangupDeadline_ = 0;
};

}  // namespace lg
