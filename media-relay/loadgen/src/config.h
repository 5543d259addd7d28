// Run configuration, shared counters and per-call results (plain data shared by engine, call, report).
#pragma once
#include <netinet/in.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "media_mode.h"
#include "profile.h"

#include "lab_addresses.h"  // generated from harness/addresses.env (cmake/lab_addresses.cmake)

// rtpengine's ng control address unless --ng says otherwise (main's usage text, Config): the lab's
// table's LAB_RTPENGINE_NG, as the integration scripts get it (tests/CMakeLists.txt).
#define LOADGEN_DEFAULT_NG LAB_RTPENGINE_NG

namespace lg {

class OpusFrames;

enum class FarMode { Echo, Sink, External };

struct Config {
  sockaddr_in ng{};                 // rtpengine ng control address
  std::string ngText = LOADGEN_DEFAULT_NG;
  std::string localIp = LAB_LOOPBACK;
  int calls = 1;
  double cps = 10;
  double durationS = 10;
  double setupTimeoutS = 10;
  double timeoutS = 0;              // overall; 0 = derived from calls/cps/duration
  int threads = 1;
  Profile profile;
  // Media modes (docs/loadgen.md): plain RTP/AVP browser leg (profile browser_leg), and transcoding:
  // the IMS leg forced to imsCodec, the browser leg sending real Opus frames from `opus`.
  bool plainRtp = false;
  bool transcode = false;
  ImsCodec imsCodec;
  const OpusFrames* opus = nullptr;
  FarMode far = FarMode::Echo;
  sockaddr_in farAddr{};            // FarMode::External
  std::string farHost;
  uint16_t farPort = 0;
  int farPortBase = 0;              // >0: call i's far end binds farPortBase + 2*i (else ephemeral)
  std::string dumpSdpDir;           // write call 0's SDPs here ("" = off)
  bool quiet = false;
  int firstSeq = -1;                // --first-seq: every call's first RTP sequence number (-1 = random per call)
  // --gateway mode: calls go through the gateway's browser API instead of rtpengine's ng protocol.
  bool gateway = false;
  std::string gwUrl, gwUser, gwTo;  // gwUser: the first (or only) user
  std::vector<std::pair<std::string, std::string>> gwUsers;  // (user, password): --user/--password or --users FILE
  double hangupWaitS = 5;           // gateway mode: hangup -> `ended` bound per call
  // --access sip-ws: the gateway is only the WAF (access tokens); calls are SIP over a WebSocket to the eP-CSCF
  // (RFC 7118), at pcscfWs when given, else at the URL the token reply names (docs/loadgen.md "SIP over WebSocket").
  bool sipWs = false;
  std::string pcscfWs;
  // --answer: answer the calls `incoming` brings (MT) as gwUser; calls = 0 unless --to originates too.
  bool answer = false;
  int expectCalls = 0;              // >0: the run ends once this many incoming calls have ended
};

// Updated by all engine threads, read by the progress line.
struct Counters {
  std::atomic<uint64_t> started{0}, setupOk{0}, failed{0}, iceOk{0}, dtlsOk{0};
  std::atomic<uint64_t> pktsSent{0}, pktsRecv{0}, lost{0}, ended{0}, inMedia{0};
  std::atomic<uint64_t> incoming{0}, rejected{0};  // --answer: `incoming` accepted / refused (run stopping, beyond --expect-calls)
};

struct CallResult {
  int index = 0;
  std::string callId;
  bool mt = false;                  // an incoming call loadgen answered (gateway --answer)
  std::string from;                 // MT: the caller (`incoming.from`)
  std::string user;                 // gateway mode: the logged-in user that placed or answered the call
  bool setupOk = false;
  bool deleted = false;
  std::string failPhase;            // "" when the call set up; else ng-offer|ng-answer|ice|dtls|srtp|...
  std::string error;
  std::string dtlsRole;             // "server" (rtpengine a=setup:active) or "client"
  double ngOfferMs = -1, ngAnswerMs = -1, iceMs = -1, dtlsMs = -1, setupMs = -1;
  double mediaS = 0;
  uint64_t sent = 0, recv = 0, lostGaps = 0, farRx = 0, farTx = 0;
  uint64_t rtcpSent = 0, rtcpRecv = 0, srtpErrors = 0, srtpReplays = 0, srtcpErrors = 0, stunChecksIn = 0, stunChecksOut = 0;
  uint32_t farFirstSkipped = 0;     // our first packets that never reached the far end
  uint16_t imsPort = 0;             // rtpengine's IMS-side port from the offer reply
  uint16_t browserPort = 0;         // rtpengine's browser-side candidate port
  std::string imsSdpCodec;          // first codec of rtpengine's IMS-side SDP (ng offer reply), "PCMA/8000"
  std::string browserSdpCodec;      // first codec of rtpengine's browser-side SDP (ng answer reply)
  uint64_t farVoiced = 0;           // far end: RTP packets whose payload is not one repeated byte (not silence)
  // gateway mode
  std::string gwCallId;             // the gateway's callId (= SIP Call-ID)
  std::string endReason;            // `ended.reason`
  int sipCode = 0;                  // `ended.sipCode` (0 = none)
  bool earlyAnswer = false;         // ICE started from a `progress` SDP (preconditions)
  bool endedEarly = false;          // set up, then ended by the gateway/far end before our hangup
  double wsCallingMs = -1, wsRingingMs = -1, wsAnsweredMs = -1, wsEarlySdpMs = -1, hangupMs = -1;
  double wsAnswerSentMs = -1;       // MT: `incoming` received -> `answer` sent
  bool preconditions = false;       // MT: `incoming` asked for preconditions (`media` then `answer`)
  bool iceControlling = true;       // our ICE role (MT: controlled unless the offer is ICE-lite)
};

}  // namespace lg
