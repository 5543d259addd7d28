// Gateway mode signalling of one call: the browser API's `call {to, sdp}` on the run's one WebSocket
// (GatewayLink), `calling`/`ringing`/`progress`/`answered`/`ended`/`error` routed back to it, `hangup`
// at the end and a bounded wait for `ended` (docs/loadgen.md "Gateway mode"). An incoming (MT) call is
// adopted from its `incoming` and start() sends the answer; the caller's BYE (`ended remote-hangup`)
// during media is its normal end.
#pragma once
#include <string>

#include "config.h"
#include "setup_marks.h"
#include "signaling.h"

namespace lg {

class GatewayLink;

class GatewaySignaling : public CallSignaling {
 public:
  GatewaySignaling(SignalingHost& host, GatewayLink& link, const Config& cfg) : host_(host), link_(link), cfg_(cfg) {}
  // MT: this signalling belongs to the incoming call callId (received at tIncoming).
  void adoptIncoming(const std::string& callId, const std::string& from, bool preconditions, int64_t tIncoming);
  bool incoming() const { return mt_; }
  void start(const std::string& sdp, int64_t now) override;
  const char* setupPhase() const override { return "gateway"; }
  std::string setupTimeoutReason() const override;
  bool mayHoldCall() const override { return created_; }
  void end(int64_t now) override;
  bool awaitRemoteEnd(int64_t now) override;  // MT: the caller hangs up; `hangup` after --hangup-wait
  bool awaitingRemoteEnd() const override { return awaitingRemote_; }
  void onEndTimer(int64_t now) override;
  void release() override;
  void report(CallResult& r) const override;

  // The WebSocket events of this call, routed by GatewayLink.
  void onCalling(const std::string& callId, int64_t now);
  void onRinging(int64_t now);
  void onAnswer(const std::string& sdp, int64_t now, bool early);  // `answered`, or `progress` with SDP
  void onEnded(const std::string& reason, int sipCode);
  void onError(const std::string& code, const std::string& message, bool beforeCalling);
  void onClosed(const std::string& why);
  // `media-check` (the gateway watches a call whose relay restarted): reply with the packets received so far.
  void onMediaCheck();

 private:
  void sendHangup(int64_t now);

  SignalingHost& host_;
  GatewayLink& link_;
  const Config& cfg_;
  bool mt_ = false, preconditions_ = false;
  bool created_ = false;        // `call` sent (or `incoming` received): the gateway may hold the call
  bool ended_ = false;          // the gateway has nothing left to end (ended, rejected, socket gone)
  bool hangupPending_ = false;
  bool awaitingRemote_ = false;  // MT: media done, waiting for the caller's BYE (`ended remote-hangup`)  // stopped before `calling` named the call: hang up when it does
  SetupMarks marks_;            // first = `calling`; MT: start = `incoming` received, answerSent = `answer` sent
  int64_t hangupDeadline_ = 0;
};

}  // namespace lg
