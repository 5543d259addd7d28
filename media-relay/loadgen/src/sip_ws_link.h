// SIP over WebSocket (RFC 7118) to an eP-CSCF, one user's connection (docs/loadgen.md "SIP over WebSocket"): the
// WebSocket (subprotocol `sip`), the user's registration with the WAF's access token (REGISTER with
// `Authorization: Bearer`, TS 24.371 §6 web authentication; de-REGISTER at the end), and the routing of SIP
// messages to calls by Call-ID. Every request carries the token (RFC 8898, TS 24.371 §7.2). An INVITE without a
// To tag is an incoming call: the engine's handler takes it (its signalling adopts the INVITE) or refuses it (486);
// without a handler 480. Out-of-dialog OPTIONS get 200; requests for no known call 481 (an ACK is dropped).
#pragma once
#include <string>
#include <unordered_map>

#include "access_link.h"
#include "sip_dialog.h"
#include "sip_message.h"
#include "ws_client.h"

namespace lg {

class SipWsSignaling;

class SipWsLink : public AccessLink {
 public:
  // to: the callee of originated calls (a user of the domain, user@host or a sip: URI; "" = none).
  SipWsLink(WsClient& ws, std::string user, const std::string& impu, const std::string& domain, const std::string& to,
            const std::string& bearer, bool wss);

  // REGISTER (expires > 0) or de-REGISTER (0) on the given loop, blocking until the final response or timeoutMs;
  // the link leaves the loop afterwards. false + err (the eP-CSCF's status and reason, e.g. 401 Unauthorized - token
  // expired) when it did not succeed.
  bool registerOn(EventLoop& loop, int expires, int timeoutMs, std::string* err);
  bool registered() const { return registered_; }
  const std::string& serviceRoute() const { return serviceRoute_; }
  void setBearer(const std::string& token) { ua_.bearer = token; }
  // Keeping the user usable for long runs: before a request goes out, a token within 20 % of its end is replaced
  // by refresh(current, fresh, freshLifeS, err) (the page does the same at 80 % of a token's life: POST
  // /api/v1/wic-tokens with the current one), and the registration is refreshed at 80 % of its 600 s. lifeS: the
  // current token's remaining life.
  using Refresher = std::function<bool(const std::string& current, std::string& fresh, double& lifeS, std::string* err)>;
  void keepAlive(Refresher refresh, double lifeS);
  uint64_t tokenRefreshes() const { return refreshes_; }
  const std::string& refreshError() const { return refreshError_; }
  void detach() { ws_.detach(); }

  // AccessLink
  const std::string& user() const override { return user_; }
  void attach(EventLoop& loop) override;
  void onIncoming(std::function<void(const IncomingCall&, int64_t now)> fn) override { incoming_ = std::move(fn); }
  void refuseIncoming(const IncomingCall& call) override;
  std::unique_ptr<CallSignaling> makeSignaling(SignalingHost& host, const Config& cfg, const IncomingCall* mt,
                                               int64_t tIncoming) override;
  bool closed() const override { return closed_; }
  const std::string& closeReason() const override { return closeReason_; }
  uint64_t unmatched() const override { return unmatched_; }
  uint64_t badMessages() const override { return bad_; }

  // For the calls' signalling.
  const sip::UaIdentity& ua() const { return ua_; }
  const std::string& target() const { return target_; }
  // An initial INVITE to target() with sdp (its Call-ID routed to c from now on); false: the websocket is gone.
  bool sendInvite(SipWsSignaling* c, const std::string& sdp, sip::Message& sent);
  bool send(const sip::Message& m);
  void forget(SipWsSignaling* c);
  uint64_t requestsOut() const { return requestsOut_; }   // every one with the Bearer token
  uint64_t messagesIn() const { return messagesIn_; }

 private:
  void onMessage(const std::string& text);
  void onClosed(const std::string& why);
  void onRegisterResponse(const sip::Message& m);
  void onNewInvite(const sip::Message& m, int64_t now);
  sip::Message registerRequest(int expires);
  void maintain(int64_t now);  // token refresh and re-REGISTER when due

  WsClient& ws_;
  std::string user_, impu_, domain_, target_;
  sip::UaIdentity ua_;
  std::function<void(const IncomingCall&, int64_t)> incoming_;
  std::unordered_map<std::string, SipWsSignaling*> byId_;
  const sip::Message* pendingInvite_ = nullptr;  // the INVITE the incoming handler is deciding on
  bool pendingTaken_ = false;
  // registration
  std::string regCallId_, regFromTag_;
  unsigned long regCseq_ = 0;
  bool regDone_ = false, registered_ = false;
  std::string regError_, serviceRoute_;
  bool closed_ = false;
  std::string closeReason_;
  Refresher refresh_;
  int64_t refreshAt_ = 0, reRegisterAt_ = 0;
  bool maintaining_ = false;
  uint64_t refreshes_ = 0;
  std::string refreshError_;
  uint64_t unmatched_ = 0, bad_ = 0, requestsOut_ = 0, messagesIn_ = 0;
};

}  // namespace lg
