// One browser leg and its far end: the per-call state machine
//   ng offer -> ng answer -> ICE + DTLS -> SRTP media -> drain -> ng delete.
// All of it runs on its engine's loop; the call owns two UDP sockets (browser leg, far end).
#pragma once
#include <netinet/in.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "config.h"
#include "dtls.h"
#include "event_loop.h"
#include "ng_client.h"
#include "sdp.h"
#include "srtp_session.h"
#include "stun.h"

namespace lg {

class GatewayLink;

struct Env {
  const Config& cfg;
  EventLoop& loop;
  NgClient* ng;      // raw mode
  GatewayLink* gw;   // gateway mode (then ng is null)
  const DtlsContext& dtls;
  Counters& counters;
  std::vector<float>& rttUs;  // round-trip samples of echoed packets (engine-wide)
  std::mt19937_64& rng;
};

// The IMS UE played by loadgen: a plain UDP socket that echoes or just counts RTP.
class FarEnd : public EventLoop::Handler {
 public:
  bool open(EventLoop& loop, const std::string& ip, uint16_t port, bool echo, std::string* err);
  void close(EventLoop& loop);
  void onReadable() override;
  uint16_t port() const { return port_; }
  uint64_t rx = 0, tx = 0;
  uint64_t voiced = 0;  // RTP packets whose payload is not one repeated byte (silence)
  bool haveFirstSeq = false;
  uint16_t firstSeq = 0;  // first RTP seq seen: shows whether the call's first packets were dropped

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
  bool echo_ = true;
};

class Call : public EventLoop::Handler {
 public:
  enum class Phase { Idle, Offer, Answer, Connecting, Media, Draining, Deleting, Done };

  Call(Env& env, int index);
  ~Call() override;
  void start(int64_t now);
  void onReadable() override;        // browser-leg socket
  void onTimer(int64_t when);        // the call's single armed wake-up
  void stop(const std::string& why); // ends the call early (signal, overall timeout)
  Phase phase() const { return phase_; }
  bool done() const { return phase_ == Phase::Done; }
  CallResult result() const;

  // Gateway mode: the WebSocket events of this call, routed by GatewayLink.
  void onGwCalling(const std::string& callId, int64_t now);
  void onGwRinging(int64_t now);
  void onGwAnswer(const std::string& sdp, int64_t now, bool early);
  void onGwEnded(const std::string& reason, int sipCode);
  void onGwError(const std::string& code, const std::string& message, bool beforeCalling);
  void onGwClosed(const std::string& why);

 private:
  void arm(int64_t when);
  void onOfferReply(bool ok, const BValue& reply, const std::string& err);
  void onAnswerReply(bool ok, const BValue& reply, const std::string& err);
  void connectTo(const std::string& browserSdp, int64_t now, const std::string& failPhase);
  void connectPlain(const std::string& browserSdp, int64_t now);
  void startMedia(int64_t now, int64_t firstSend);
  void sendHangup(int64_t now);
  void endEarly(const std::string& why);
  void fail(const std::string& phase, const std::string& why);
  void sendDelete();
  void finish();
  void closeSockets();
  void dumpSdp(const std::string& file, const std::string& sdp) const;
  const char* phaseName() const;

  void sendTo(const uint8_t* data, size_t len, const sockaddr_in& to);
  void sendCheck(int64_t now);
  void onStun(const uint8_t* data, size_t len, const sockaddr_in& from, int64_t now);
  void onDtls(const uint8_t* data, size_t len, int64_t now);
  void maybeMediaReady(int64_t now);
  void onRtp(uint8_t* data, size_t len, int64_t now);
  void onRtcp(uint8_t* data, size_t len);
  void sendRtp(int64_t now);
  void sendRtcpSr();

  Env& env_;
  Phase phase_ = Phase::Idle;
  CallResult res_;
  std::string fromTag_, toTag_;
  int fd_ = -1;
  uint16_t localPort_ = 0;
  FarEnd far_;
  int64_t armed_ = 0;

  // timing (ns, CLOCK_MONOTONIC)
  int64_t tStart_ = 0, tOfferReply_ = 0, tAnswerSent_ = 0, tAnswerReply_ = 0, tIce_ = 0, tDtls_ = 0;
  int64_t setupDeadline_ = 0, nextCheck_ = 0, nextSend_ = 0, nextRtcp_ = 0, mediaEnd_ = 0, drainEnd_ = 0;
  int64_t mediaStart_ = 0;

  // ICE
  std::string localUfrag_, localPwd_;
  sdp::Remote remote_;
  sockaddr_in remoteAddr_{};
  uint64_t tieBreaker_ = 0;
  std::map<stun::TxId, int64_t> checksInFlight_;
  bool iceOk_ = false;

  // DTLS + SRTP
  std::unique_ptr<DtlsSession> dtls_;
  SrtpSession srtp_;
  bool dtlsOk_ = false;

  // RTP
  uint32_t ssrc_ = 0;
  uint16_t seq_ = 0;
  uint16_t firstSeq_ = 0;
  uint32_t ts_ = 0;
  uint64_t octetsSent_ = 0;
  bool haveRecvSeq_ = false;
  int64_t maxExtSeq_ = 0;
  bool offerCreated_ = false;  // rtpengine (or the gateway) may hold the call: it must be ended

  // gateway mode
  int64_t tCalling_ = 0, tRinging_ = 0, tAnswered_ = 0, tEarly_ = 0, tHangup_ = 0, tEnded_ = 0;
  int64_t hangupDeadline_ = 0;
  bool gwEnded_ = false;        // the gateway has nothing left to end (ended, rejected, socket gone)
  bool hangupPending_ = false;  // stopped before `calling` named the call: hang up when it does
};

}  // namespace lg
