// Signalling through the gateway's browser API: one WebSocket shared by all calls of the run.
// `call` carries no id of ours, so the gateway's `calling {callId}` replies are matched to calls in
// the order the `call` messages were sent (the gateway handles one socket's messages in order and
// answers `calling` synchronously, before any SIP response). Later events are routed by callId.
// Incoming (MT) calls: `incoming` goes to the handler set with onIncoming (the engine creates the call
// and adopts its callId here); `answer`/`media` go out through sendAnswer.
#pragma once
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>

#include "access_link.h"
#include "event_loop.h"
#include "gateway_msg.h"
#include "ws_client.h"

namespace lg {

class GatewaySignaling;

class GatewayLink : public AccessLink {
 public:
  GatewayLink(WsClient& ws, std::string to, std::string user = "") : ws_(ws), to_(std::move(to)), user_(std::move(user)) {}
  const std::string& user() const override { return user_; }
  void attach(EventLoop& loop) override;
  bool sendCall(GatewaySignaling* c, const std::string& sdp);  // false: the websocket is gone
  bool sendHangup(const std::string& callId);
  // `media-report {callId, packetsReceived}`: the answer to the gateway's `media-check`.
  bool sendMediaReport(const std::string& callId, uint64_t packetsReceived);
  // MT: `answer {callId, sdp}`; with preconditions `media {callId, sdp}` then `answer {callId}` (the
  // browser accepts at once: the gateway sends the 200 once the QoS segments are met).
  bool sendAnswer(const std::string& callId, const std::string& sdp, bool preconditions);
  // MT: route this callId's events to c (its `incoming` named it).
  void adopt(const std::string& callId, GatewaySignaling* c) { byId_[callId] = c; }
  // `incoming` handler; without one incoming calls are left ringing (an MO-only run).
  void onIncoming(std::function<void(const IncomingCall&, int64_t now)> fn) override { incoming_ = std::move(fn); }
  void refuseIncoming(const IncomingCall& call) override { sendHangup(call.callId); }  // `hangup` while ringing = 603
  std::unique_ptr<CallSignaling> makeSignaling(SignalingHost& host, const Config& cfg, const IncomingCall* mt,
                                               int64_t tIncoming) override;
  void forget(GatewaySignaling* c);  // the call is done: drop routes to it
  bool closed() const override { return closed_; }
  const std::string& closeReason() const override { return closeReason_; }
  uint64_t unmatched() const override { return unmatched_; }  // events for no known call
  uint64_t badMessages() const override { return bad_; }

 private:
  void onMessage(const std::string& text);
  void onClosed(const std::string& why);

  std::function<void(const IncomingCall&, int64_t)> incoming_;
  WsClient& ws_;
  std::string to_, user_;
  std::deque<GatewaySignaling*> awaitingCalling_;
  std::unordered_map<std::string, GatewaySignaling*> byId_;
  std::string lastCallingId_, lastEndedId_, lastEndedReason_;
  bool closed_ = false;
  std::string closeReason_;
  uint64_t unmatched_ = 0, bad_ = 0;
};

}  // namespace lg
