// One browser leg and its far end: the per-call state machine
//   signalling (offer -> browser-leg SDP) -> ICE + DTLS -> SRTP media -> drain -> end (delete/hangup).
// The signalling is one of two variants behind signaling.h (raw ng, or the gateway's browser API);
// the call keeps ICE, DTLS and RTP. All of it runs on its engine's loop; the call owns two UDP
// sockets (browser leg, far end).
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
#include "far_end.h"
#include "sdp.h"
#include "signaling.h"
#include "srtp_session.h"
#include "stun.h"

namespace lg {

struct Env {
  const Config& cfg;
  EventLoop& loop;
  SignalingFactory makeSignaling;  // raw ng or gateway
  const DtlsContext& dtls;
  Counters& counters;
  std::vector<float>& rttUs;  // round-trip samples of echoed packets (engine-wide)
  std::mt19937_64& rng;
};

class Call : public EventLoop::Handler, private SignalingHost {
 public:
  enum class Phase { Idle, Signaling, Connecting, Media, Draining, Ending, Done };

  // incoming: an MT call (gateway --answer): answerIncoming() instead of start().
  // index: the call's number in the run (report order, call-id); timerKey: its key in its engine's
  // event loop (the engine maps keys back to calls; defaults to index).
  Call(Env& env, int index, bool incoming = false, int64_t timerKey = -1);
  ~Call() override;
  void start(int64_t now);
  // MT: rtpengine's browser-leg offer from `incoming` -> our answer (Chromium-shaped) -> ICE + DTLS.
  // ICE role from the offer: controlled, or controlling when it is ICE-lite; DTLS client unless it says active.
  void answerIncoming(const std::string& offer, int64_t now);
  void onReadable() override;        // browser-leg socket
  void onTimer(int64_t when);        // the call's single armed wake-up
  void stop(const std::string& why); // ends the call early (signal, overall timeout)
  Phase phase() const { return phase_; }
  bool done() const { return phase_ == Phase::Done; }
  CallResult result() const;

 private:
  // SignalingHost: what the signalling sees of the call.
  CallStage stage() const override;
  CallResult& res() override { return res_; }
  void arm(int64_t when) override;
  void dumpSdp(const std::string& file, const std::string& sdp) const override;
  uint16_t farPort() const override { return far_.port(); }
  void onRemoteSdp(const std::string& browserSdp, int64_t now) override;
  void fail(const std::string& phase, const std::string& why) override;
  void failHere(const std::string& why) override { fail(phaseName(), why); }
  void endEarly(const std::string& why) override;
  void endNormally() override;
  void finish() override;

  void connectTo(const std::string& browserSdp, int64_t now, const std::string& failPhase);
  void connectPlain(const std::string& browserSdp, int64_t now);
  void startMedia(int64_t now, int64_t firstSend);
  void end();
  void closeSockets();
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
  uint64_t timerKey_ = 0;
  Phase phase_ = Phase::Idle;
  CallResult res_;
  std::unique_ptr<CallSignaling> sig_;
  int fd_ = -1;
  uint16_t localPort_ = 0;
  FarEnd far_;
  int64_t armed_ = 0;

  // timing (ns, CLOCK_MONOTONIC)
  int64_t tStart_ = 0, tRemoteSdp_ = 0, tIce_ = 0, tDtls_ = 0;
  int64_t setupDeadline_ = 0, nextCheck_ = 0, nextSend_ = 0, nextRtcp_ = 0, mediaEnd_ = 0, drainEnd_ = 0;
  int64_t mediaStart_ = 0;

  // ICE
  std::string localUfrag_, localPwd_;
  sdp::Remote remote_;
  sockaddr_in remoteAddr_{};
  uint64_t tieBreaker_ = 0;
  bool controlling_ = true;           // MO: the offerer controls; MT: see answerIncoming
  std::string lastIceError_;          // MT: Binding error responses are retried until the setup deadline
  std::map<stun::TxId, int64_t> checksInFlight_;
  bool iceOk_ = false;

  // DTLS + SRTP
  std::unique_ptr<DtlsSession> dtls_;
  SrtpSession srtp_;
  bool dtlsOk_ = false;

  // RTP
  uint32_t ssrc_ = 0;
  uint8_t pt_ = 111;                  // Opus payload type (MT: the offer's)
  uint16_t seq_ = 0;
  uint16_t firstSeq_ = 0;
  uint32_t ts_ = 0;
  uint64_t octetsSent_ = 0;
  bool haveRecvSeq_ = false;
  int64_t maxExtSeq_ = 0;
};

}  // namespace lg
