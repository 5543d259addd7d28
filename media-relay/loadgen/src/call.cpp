#include "call.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "opus_frames.h"
#include "rtp.h"

namespace lg {

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kCheckIntervalNs = 100 * kMs;     // ICE checks until the first success
constexpr int64_t kConsentIntervalNs = 2000 * kMs;  // consent freshness (RFC 7675 uses ~5 s)
constexpr int64_t kDtlsPollNs = 50 * kMs;
constexpr int64_t kRtcpIntervalNs = 5000 * kMs;
constexpr int64_t kDrainNs = 300 * kMs;             // wait for echoes still in flight
constexpr int64_t kNever = INT64_MAX / 2;           // a timer that is not used in this mode
constexpr uint8_t kOpusPt = 111;
constexpr uint32_t kPeerReflexivePriority = 1853824767u;  // type pref 110, what Chromium sends

std::string randomToken(std::mt19937_64& rng, size_t n) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s(n, 'x');
  for (auto& c : s) c = kChars[rng() % (sizeof kChars - 1)];
  return s;
}

}  // namespace

// ---------------------------------------------------------------- call

Call::Call(Env& env, int index, bool incoming, int64_t timerKey)
    : env_(env), timerKey_(static_cast<uint64_t>(timerKey < 0 ? index : timerKey)) {
  res_.index = index;
  res_.mt = incoming;
  res_.callId = "lg-" + std::to_string(getpid()) + "-" + std::to_string(index) + "-" + randomToken(env.rng, 6);
  localUfrag_ = randomToken(env.rng, 8);
  localPwd_ = randomToken(env.rng, 24);
  tieBreaker_ = env.rng();
  ssrc_ = static_cast<uint32_t>(env.rng());
  seq_ = static_cast<uint16_t>(env.rng());
  if (env.cfg.firstSeq >= 0) seq_ = static_cast<uint16_t>(env.cfg.firstSeq);
  firstSeq_ = seq_;
  pt_ = kOpusPt;
  ts_ = static_cast<uint32_t>(env.rng());
  sig_ = env.makeSignaling(*this, res_);
}

Call::~Call() { closeSockets(); }

const char* Call::phaseName() const {
  switch (phase_) {
    case Phase::Idle: return "idle";
    case Phase::Signaling: return sig_->setupPhase();
    case Phase::Connecting: return iceOk_ ? "dtls" : "ice";
    case Phase::Media: return "media";
    case Phase::Draining: return "drain";
    case Phase::Ending: return "ending";
    case Phase::Done: return "done";
  }
  return "?";
}

CallStage Call::stage() const {
  switch (phase_) {
    case Phase::Idle: return CallStage::Idle;
    case Phase::Signaling: return CallStage::Signaling;
    case Phase::Connecting: return CallStage::Connecting;
    case Phase::Media:
    case Phase::Draining: return CallStage::Media;
    case Phase::Ending: return CallStage::Ending;
    case Phase::Done: break;
  }
  return CallStage::Done;
}

void Call::arm(int64_t when) {
  armed_ = when;
  env_.loop.schedule(when, timerKey_);
}

void Call::dumpSdp(const std::string& file, const std::string& sdp) const {
  if (env_.cfg.dumpSdpDir.empty() || res_.index != 0) return;
  std::ofstream(env_.cfg.dumpSdpDir + "/" + file) << sdp;
}

void Call::start(int64_t now) {
  env_.counters.started++;
  tStart_ = now;
  setupDeadline_ = now + static_cast<int64_t>(env_.cfg.setupTimeoutS * 1e9);
  std::string err;
  localPort_ = 0;
  if (!openUdp(env_.cfg.localIp, fd_, localPort_, &err) || !env_.loop.add(fd_, this)) {
    fail("socket", err.empty() ? "epoll add failed" : err);
    return;
  }
  uint16_t farPort = env_.cfg.farPortBase ? static_cast<uint16_t>(env_.cfg.farPortBase + 2 * res_.index) : 0;
  if (env_.cfg.far != FarMode::External &&  // the gateway mode's far end is the IMS UE behind it
      !far_.open(env_.loop, env_.cfg.localIp, farPort, env_.cfg.far == FarMode::Echo, &err)) {
    fail("socket", err);
    return;
  }
  sdp::OfferParams p;
  p.port = localPort_;
  p.ufrag = localUfrag_;
  p.pwd = localPwd_;
  p.fingerprint = env_.dtls.fingerprint();
  p.ssrc = ssrc_;
  p.sessionId = env_.rng() >> 2;
  p.plainRtp = env_.cfg.plainRtp;
  std::string offer = sdp::buildBrowserOffer(p);
  dumpSdp("browser-offer.sdp", offer);

  phase_ = Phase::Signaling;
  sig_->start(offer, now);
  if (phase_ == Phase::Signaling) arm(setupDeadline_);
}

void Call::answerIncoming(const std::string& offer, int64_t now) {
  env_.counters.started++;
  tStart_ = now;
  setupDeadline_ = now + static_cast<int64_t>(env_.cfg.setupTimeoutS * 1e9);
  phase_ = Phase::Signaling;  // the gateway holds the call: a failure from here on hangs it up
  dumpSdp("gateway-incoming.sdp", offer);
  std::string err;
  localPort_ = 0;
  if (!openUdp(env_.cfg.localIp, fd_, localPort_, &err) || !env_.loop.add(fd_, this))
    return fail("socket", err.empty() ? "epoll add failed" : err);
  if (!sdp::parseRemote(offer, remote_, &err)) return fail(sig_->setupPhase(), "incoming SDP: " + err);
  if (remote_.opusPt < 0 || remote_.opusPt > 127) return fail(sig_->setupPhase(), "incoming SDP offers no opus/48000/2");
  pt_ = static_cast<uint8_t>(remote_.opusPt);
  controlling_ = sdp::answererControlsIce(remote_);
  res_.iceControlling = controlling_;
  sdp::AnswerParams p;
  p.port = localPort_;
  p.ufrag = localUfrag_;
  p.pwd = localPwd_;
  p.fingerprint = env_.dtls.fingerprint();
  p.setup = sdp::answerSetup(remote_);
  p.mid = remote_.mid.empty() ? "0" : remote_.mid;
  p.bundle = remote_.bundleGroup;
  p.pt = pt_;
  p.ssrc = ssrc_;
  p.sessionId = env_.rng() >> 2;
  std::string answer = sdp::buildBrowserAnswer(p);
  dumpSdp("browser-answer.sdp", answer);
  now = nowNs();  // `incoming` -> `answer` sent: our socket, parsing and SDP building
  sig_->start(answer, now);
  if (phase_ != Phase::Signaling) return;  // the answer could not be sent
  tRemoteSdp_ = now;                       // the ICE phase counts from the answer
  connectTo(offer, now, sig_->setupPhase());
}

// rtpengine's browser-leg SDP, from the ng answer or the gateway's `answered` (or early `progress`).
void Call::onRemoteSdp(const std::string& browserSdp, int64_t now) {
  tRemoteSdp_ = now;  // the ICE phase counts from here
  if (env_.cfg.plainRtp) return connectPlain(browserSdp, now);
  connectTo(browserSdp, now, sig_->setupPhase());
}

// A-RTP: rtpengine's browser-side SDP names the address and port to send plain RTP to; media starts
// at once (nothing to negotiate), so setup = ng offer -> ng answer reply.
void Call::connectPlain(const std::string& browserSdp, int64_t now) {
  std::string perr;
  if (!sdp::parseRemote(browserSdp, remote_, &perr)) return fail("ng-answer", "browser SDP: " + perr);
  res_.browserSdpCodec = remote_.firstCodec;
  if (remote_.proto != "RTP/AVP") return fail("ng-answer", "browser SDP is " + remote_.proto + ", not RTP/AVP");
  remoteAddr_.sin_family = AF_INET;
  remoteAddr_.sin_port = htons(remote_.port);
  if (remote_.port == 0 || inet_pton(AF_INET, remote_.connection.c_str(), &remoteAddr_.sin_addr) != 1)
    return fail("ng-answer", "browser SDP: bad connection " + remote_.connection + ":" + std::to_string(remote_.port));
  res_.browserPort = remote_.port;
  startMedia(now, now);
}

// rtpengine's browser-leg SDP (from ng answer, or the gateway's `answered`) -> ICE + DTLS.
void Call::connectTo(const std::string& browserSdp, int64_t now, const std::string& failPhase) {
  std::string perr;
  remote_ = {};
  if (!sdp::parseRemote(browserSdp, remote_, &perr)) return fail(failPhase, "browser SDP: " + perr);
  res_.browserSdpCodec = remote_.firstCodec;
  const sdp::Candidate* cand = sdp::pickCandidate(remote_);
  if (remote_.iceUfrag.empty() || remote_.icePwd.empty() || !cand)
    return fail(failPhase, "browser SDP lacks ICE credentials or a UDP IPv4 candidate");
  if (remote_.fingerprint.empty()) return fail(failPhase, "browser SDP lacks a=fingerprint");
  remoteAddr_.sin_family = AF_INET;
  remoteAddr_.sin_port = htons(cand->port);
  if (inet_pton(AF_INET, cand->address.c_str(), &remoteAddr_.sin_addr) != 1)
    return fail(failPhase, "bad candidate address " + cand->address);
  res_.browserPort = cand->port;

  // a=setup:active from rtpengine makes us the DTLS server; passive/actpass make us the client (MO: its
  // answer; MT: its offer, which we answered with sdp::answerSetup, the same rule).
  bool server = remote_.setup == "active";
  res_.dtlsRole = server ? "server" : "client";
  dtls_ = std::make_unique<DtlsSession>(env_.dtls, server, [this](const uint8_t* d, size_t n) {
    sendTo(d, n, remoteAddr_);
  });
  phase_ = Phase::Connecting;
  sendCheck(now);
  arm(std::min(nextCheck_, setupDeadline_));
}

void Call::sendTo(const uint8_t* data, size_t len, const sockaddr_in& to) {
  if (fd_ >= 0) sendto(fd_, data, len, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
}

void Call::sendCheck(int64_t now) {
  stun::TxId tx = stun::randomTxId();
  // MO: the offerer (browser) controls and nominates; MT: controlled unless rtpengine is ICE-lite.
  auto pkt = stun::buildCheck(tx, remote_.iceUfrag, localUfrag_, remote_.icePwd, kPeerReflexivePriority, controlling_,
                              tieBreaker_);
  sendTo(pkt.data(), pkt.size(), remoteAddr_);
  if (checksInFlight_.size() > 32) checksInFlight_.erase(checksInFlight_.begin());
  checksInFlight_[tx] = now;
  ++res_.stunChecksOut;
  nextCheck_ = now + (iceOk_ ? kConsentIntervalNs : kCheckIntervalNs);
}

void Call::onReadable() {
  alignas(8) uint8_t buf[2048 + kSrtpMaxTrailer];
  while (fd_ >= 0) {
    sockaddr_in from{};
    socklen_t flen = sizeof from;
    ssize_t n = recvfrom(fd_, buf, 2048, 0, reinterpret_cast<sockaddr*>(&from), &flen);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    int64_t now = nowNs();
    size_t len = static_cast<size_t>(n);
    switch (classify(buf, len)) {
      case PacketKind::Stun: onStun(buf, len, from, now); break;
      case PacketKind::Dtls: onDtls(buf, len, now); break;
      case PacketKind::Rtp: onRtp(buf, len, now); break;
      case PacketKind::Rtcp: onRtcp(buf, len); break;
      case PacketKind::Unknown: break;
    }
  }
}

void Call::onStun(const uint8_t* d, size_t len, const sockaddr_in& from, int64_t now) {
  auto m = stun::parse(d, len);
  if (!m || phase_ < Phase::Connecting || phase_ > Phase::Draining) return;
  if (m->type == stun::kBindingRequest) {
    // rtpengine's own check (ICE force) or consent: USERNAME is "ourUfrag:theirUfrag", key = our pwd.
    const stun::Attr* user = m->get(stun::kAttrUsername);
    if (!user || user->value.compare(0, localUfrag_.size() + 1, localUfrag_ + ":") != 0 ||
        !stun::checkIntegrity(d, len, *m, localPwd_))
      return;
    ++res_.stunChecksIn;
    stun::Builder b(stun::kBindingSuccess, m->tx);
    b.addXorMappedV4(ntohl(from.sin_addr.s_addr), ntohs(from.sin_port));
    auto pkt = b.finish(localPwd_);
    sendTo(pkt.data(), pkt.size(), from);
    // Controlled (MT): rtpengine's check is the sign it knows our answer: a triggered check (RFC 8445 7.3.1.4).
    if (!controlling_ && !iceOk_ && phase_ == Phase::Connecting) sendCheck(now);
    return;
  }
  if (m->type != stun::kBindingSuccess && m->type != stun::kBindingError) return;
  auto it = checksInFlight_.find(m->tx);
  if (it == checksInFlight_.end() || !stun::checkIntegrity(d, len, *m, remote_.icePwd)) return;
  checksInFlight_.erase(it);
  if (m->type == stun::kBindingError) {
    const stun::Attr* ec = m->get(stun::kAttrErrorCode);
    int code = ec && ec->value.size() >= 4 ? (ec->value[2] & 7) * 100 + static_cast<uint8_t>(ec->value[3]) : 0;
    if (iceOk_) return;
    // MT: our first checks may reach rtpengine before the gateway gave it our answer; retry until the
    // setup deadline. A role conflict (487) is final.
    if (res_.mt && code != 487) {
      lastIceError_ = "Binding error response " + std::to_string(code);
      return;
    }
    fail("ice", "Binding error response " + std::to_string(code));
    return;
  }
  if (!iceOk_) {
    iceOk_ = true;
    tIce_ = now;
    env_.counters.iceOk++;
    nextCheck_ = now + kConsentIntervalNs;
    dtls_->start();  // client: ClientHello now; server: keeps waiting for rtpengine's
    maybeMediaReady(now);
    if (phase_ == Phase::Connecting) arm(now + kDtlsPollNs);
  }
}

void Call::onDtls(const uint8_t* d, size_t len, int64_t now) {
  if (!dtls_ || phase_ < Phase::Connecting || phase_ > Phase::Draining) return;
  dtls_->onDatagram(d, len);
  if (dtls_->state() == DtlsSession::State::Failed && !dtlsOk_) return fail("dtls", dtls_->error());
  maybeMediaReady(now);
}

void Call::maybeMediaReady(int64_t now) {
  if (phase_ != Phase::Connecting || dtls_->state() != DtlsSession::State::Done) return;
  if (!dtlsOk_) {
    dtlsOk_ = true;
    tDtls_ = now;
    if (!dtls_->verifyPeer(remote_.fingerprintHash, remote_.fingerprint)) return fail("dtls", dtls_->error());
    SrtpKeys keys;
    if (!dtls_->exportKeys(keys)) return fail("dtls", dtls_->error());
    std::string err;
    if (!srtp_.init(keys.local, keys.remote, &err)) return fail("srtp", err);
    env_.counters.dtlsOk++;
  }
  if (!iceOk_) return;  // rtpengine may finish DTLS before our own check got its answer
  // First packet one frame after DTLS is done: rtpengine (the DTLS client) finishes its side only when
  // our Finished has been processed, and a packet sent at once was dropped ~1 call in 30.
  startMedia(now, now + 1'000'000'000LL / env_.cfg.profile.pps);
}

void Call::startMedia(int64_t now, int64_t firstSend) {
  phase_ = Phase::Media;
  res_.setupOk = true;
  res_.setupMs = msBetween(tStart_, now);
  env_.counters.setupOk++;
  env_.counters.inMedia++;
  mediaStart_ = now;
  mediaEnd_ = now + static_cast<int64_t>(env_.cfg.durationS * 1e9);
  nextSend_ = firstSend;
  // Plain RTP: no ICE consent, and no RTCP (RTCP would go to port + 1, which loadgen does not open).
  nextRtcp_ = env_.cfg.plainRtp ? kNever : now + kRtcpIntervalNs;
  if (env_.cfg.plainRtp) nextCheck_ = kNever;
  arm(nextSend_);
}

void Call::onRtp(uint8_t* d, size_t len, int64_t now) {
  int n = static_cast<int>(len);
  if (env_.cfg.plainRtp) {
    if (phase_ < Phase::Media) return;
  } else {
    if (!srtp_.ready()) return;
    SrtpSession::Rx st = srtp_.unprotectStatus(d, n);
    if (st != SrtpSession::Rx::Ok) {
      ++(st == SrtpSession::Rx::Replay ? res_.srtpReplays : res_.srtpErrors);
      return;
    }
  }
  RtpInfo info;
  if (!parseRtp(d, static_cast<size_t>(n), info)) return;
  ++res_.recv;
  env_.counters.pktsRecv++;
  // Extended sequence number; gaps count as lost, late arrivals give one back.
  if (!haveRecvSeq_) {
    haveRecvSeq_ = true;
    maxExtSeq_ = info.seq;
  } else {
    int64_t ext = maxExtSeq_ + static_cast<int16_t>(static_cast<uint16_t>(info.seq - static_cast<uint16_t>(maxExtSeq_)));
    if (ext > maxExtSeq_) {
      uint64_t gap = static_cast<uint64_t>(ext - maxExtSeq_ - 1);
      res_.lostGaps += gap;
      env_.counters.lost += gap;
      maxExtSeq_ = ext;
    } else if (ext < maxExtSeq_ && res_.lostGaps > 0) {
      --res_.lostGaps;
      env_.counters.lost--;
    }
  }
  // Our payload starts with the send time: the echo gives the round trip through the relay twice.
  if (info.ssrc == ssrc_ && static_cast<size_t>(n) >= info.headerLen + 8 && env_.rttUs.size() < 4'000'000) {
    int64_t sentAt;
    std::memcpy(&sentAt, d + info.headerLen, 8);
    if (sentAt > 0 && sentAt <= now) env_.rttUs.push_back(static_cast<float>((now - sentAt) / 1000.0));
  }
}

void Call::onRtcp(uint8_t* d, size_t len) {
  if (!srtp_.ready()) return;
  int n = static_cast<int>(len);
  if (srtp_.unprotectRtcp(d, n)) ++res_.rtcpRecv;
  else ++res_.srtcpErrors;
}

void Call::sendRtp(int64_t now) {
  alignas(8) uint8_t buf[1500 + kSrtpMaxTrailer];
  size_t payload = static_cast<size_t>(env_.cfg.profile.payloadBytes);
  writeRtpHeader(buf, pt_, seq_, ts_, ssrc_);
  if (env_.cfg.opus) {
    // rtpengine decodes this leg: real Opus, looped (no send time inside, so no echo round trip).
    const auto& f = env_.cfg.opus->frame(res_.sent);
    payload = f.size();
    std::memcpy(buf + kRtpHeaderLen, f.data(), payload);
  } else {
    std::memcpy(buf + kRtpHeaderLen, &now, 8);
    std::memset(buf + kRtpHeaderLen + 8, 0x5A, payload - 8);
  }
  int len = static_cast<int>(kRtpHeaderLen + payload);
  if (!env_.cfg.plainRtp && !srtp_.protect(buf, len)) {
    ++res_.srtpErrors;
    return;
  }
  sendTo(buf, static_cast<size_t>(len), remoteAddr_);
  ++seq_;
  ts_ += static_cast<uint32_t>(48000 / env_.cfg.profile.pps);  // opus clock, one frame per packet
  octetsSent_ += payload;
  ++res_.sent;
  env_.counters.pktsSent++;
}

void Call::sendRtcpSr() {
  uint8_t buf[28 + kSrtpMaxTrailer];
  timespec rt;
  clock_gettime(CLOCK_REALTIME, &rt);
  uint32_t ntpSec = static_cast<uint32_t>(rt.tv_sec + 2208988800ULL);
  uint32_t ntpFrac = static_cast<uint32_t>((static_cast<uint64_t>(rt.tv_nsec) << 32) / 1000000000ULL);
  uint32_t words[6] = {ssrc_, ntpSec, ntpFrac, ts_, static_cast<uint32_t>(res_.sent),
                       static_cast<uint32_t>(octetsSent_)};
  buf[0] = 0x80;
  buf[1] = 200;  // SR
  buf[2] = 0;
  buf[3] = 6;    // length in 32-bit words minus one
  for (int w = 0; w < 6; ++w)
    for (int i = 0; i < 4; ++i) buf[4 + 4 * w + i] = static_cast<uint8_t>(words[w] >> (24 - 8 * i));
  int len = 28;
  if (!srtp_.protectRtcp(buf, len)) return;
  sendTo(buf, static_cast<size_t>(len), remoteAddr_);
  ++res_.rtcpSent;
}

void Call::onTimer(int64_t when) {
  if (when != armed_ || phase_ == Phase::Done) return;  // stale
  int64_t now = nowNs();
  switch (phase_) {
    case Phase::Ending:  // gateway mode: bounded wait for `ended` after our hangup (ng: nothing)
      return sig_->onEndTimer(now);
    case Phase::Signaling:
      // The ng client times out on its own; this only enforces the overall setup bound.
      if (now >= setupDeadline_) return fail(phaseName(), sig_->setupTimeoutReason());
      arm(setupDeadline_);
      return;
    case Phase::Connecting: {
      if (now >= setupDeadline_) {
        std::string why = !iceOk_ ? "no ICE success response" : "DTLS handshake did not finish";
        if (!iceOk_ && !lastIceError_.empty()) why += " (last: " + lastIceError_ + ")";
        if (iceOk_ && res_.stunChecksIn == 0) why += " (rtpengine sent no ICE checks)";
        return fail(phaseName(), why + " within the setup timeout");
      }
      if (now >= nextCheck_) sendCheck(now);
      if (dtls_) {
        dtls_->onTimer();
        if (dtls_->state() == DtlsSession::State::Failed) return fail("dtls", dtls_->error());
      }
      arm(std::min({nextCheck_, setupDeadline_, now + kDtlsPollNs}));
      return;
    }
    case Phase::Media: {
      int64_t period = 1'000'000'000LL / env_.cfg.profile.pps;
      // Catch up at most a few packets after a stall; beyond that, skip rather than burst.
      for (int burst = 0; nextSend_ <= now && burst < 4; ++burst) {
        sendRtp(now);
        nextSend_ += period;
      }
      if (nextSend_ <= now) nextSend_ = now + period;
      if (now >= nextCheck_) sendCheck(now);
      if (now >= nextRtcp_) {
        sendRtcpSr();
        nextRtcp_ = now + kRtcpIntervalNs;
      }
      if (now >= mediaEnd_) {
        phase_ = Phase::Draining;
        drainEnd_ = now + kDrainNs;
        res_.mediaS = (now - mediaStart_) / 1e9;
        env_.counters.inMedia--;
        arm(drainEnd_);
        return;
      }
      arm(std::min({nextSend_, nextCheck_, nextRtcp_, mediaEnd_}));
      return;
    }
    case Phase::Draining:
      if (now < drainEnd_) return arm(drainEnd_);
      // MT: the caller ends the call (its BYE); we hang up only if it does not within --hangup-wait
      if (sig_->awaitRemoteEnd(now)) {
        phase_ = Phase::Ending;
        return;
      }
      end();
      return;
    default:
      return;
  }
}

void Call::fail(const std::string& phase, const std::string& why) {
  if (phase_ == Phase::Done || phase_ == Phase::Ending) return;
  if (phase_ == Phase::Media) env_.counters.inMedia--;
  res_.failPhase = phase;
  res_.error = why;
  env_.counters.failed++;
  if (sig_->mayHoldCall()) end();
  else finish();
}

void Call::stop(const std::string& why) {
  switch (phase_) {
    case Phase::Idle:
      res_.failPhase = "not-started";
      res_.error = why;
      phase_ = Phase::Done;
      return;
    case Phase::Media:
      res_.mediaS = (nowNs() - mediaStart_) / 1e9;
      env_.counters.inMedia--;
      end();
      return;
    case Phase::Draining:
      end();
      return;
    case Phase::Ending:
      if (sig_->awaitingRemoteEnd()) sig_->end(nowNs());  // stopped while waiting for the caller's BYE: hang up now
      return;
    case Phase::Done:
      return;
    default:
      fail(phaseName(), why);
  }
}

// Ends the call where it was set up: ng delete, or gateway hangup and its `ended`.
void Call::end() {
  phase_ = Phase::Ending;
  sig_->end(nowNs());
}

void Call::endEarly(const std::string& why) {
  if (phase_ == Phase::Media) {
    res_.mediaS = (nowNs() - mediaStart_) / 1e9;
    env_.counters.inMedia--;
  }
  res_.endedEarly = true;
  if (res_.error.empty()) res_.error = why;
  if (res_.failPhase.empty()) res_.failPhase = "media";
  finish();
}

void Call::endNormally() {
  if (phase_ == Phase::Media) {
    res_.mediaS = (nowNs() - mediaStart_) / 1e9;
    env_.counters.inMedia--;
  }
  finish();
}

void Call::finish() {
  sig_->release();
  res_.farRx = far_.rx;
  res_.farTx = far_.tx;
  res_.farVoiced = far_.voiced;
  closeSockets();
  // Free the SRTP contexts now: kept to exit, a 3000-call run held 6000 of them (NSS's cost per packet
  // and per free grew with that count: minutes at exit) (docs/loadgen.md "SRTP library").
  srtp_.reset();
  phase_ = Phase::Done;
  env_.counters.ended++;
}

void Call::closeSockets() {
  if (fd_ >= 0) {
    env_.loop.remove(fd_);
    ::close(fd_);
    fd_ = -1;
  }
  far_.close(env_.loop);
}

CallResult Call::result() const {
  CallResult r = res_;
  sig_->report(r);
  r.iceMs = msBetween(tRemoteSdp_, tIce_);
  r.dtlsMs = tDtls_ ? msBetween(std::min(tIce_ ? tIce_ : tDtls_, tDtls_), tDtls_) : -1;
  if (far_.haveFirstSeq) r.farFirstSkipped = static_cast<uint16_t>(far_.firstSeq - firstSeq_);
  if (phase_ != Phase::Done) {
    r.farRx = far_.rx;
    r.farTx = far_.tx;
    r.farVoiced = far_.voiced;
  }
  return r;
}

}  // namespace lg
