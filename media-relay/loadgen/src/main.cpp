// loadgen: plays N WebRTC browser legs (ICE + DTLS-SRTP + rtcp-mux) against rtpengine, with a far
// end that echoes or sinks the IMS leg's plain RTP. See docs/loadgen.md.
#include <arpa/inet.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dtls.h"
#include "engine.h"
#include "event_loop.h"
#include "gateway_link.h"
#include "gateway_msg.h"
#include "http.h"
#include "media_mode.h"
#include "opus_frames.h"
#include "profile.h"
#include "report.h"
#include "sip_ws_link.h"
#include "srtp_session.h"
#include "wic_token.h"
#include "ws_client.h"

#ifndef LOADGEN_DEFAULT_PROFILES
#define LOADGEN_DEFAULT_PROFILES "../shared/bench/profiles.json"
#endif

namespace {

constexpr int kExitOk = 0, kExitFailures = 1, kExitUsage = 2, kExitInterrupted = 3;

const char* kUsage =
    "usage: loadgen [--raw] [options]\n"
    "       loadgen --gateway URL --user U --password P --to TARGET [options]\n"
    "       loadgen --gateway URL --user U --password P --answer (--expect-calls N | --timeout S) [options]\n"
    "       loadgen --gateway URL --access sip-ws [--pcscf-ws URL] --user U --password P (--to T | --answer ...)\n"
    "  --raw                 set calls up straight through rtpengine's ng protocol (default)\n"
    "  --gateway URL         through the gateway's browser API instead (e.g. http://" LAB_LOOPBACK ":" LAB_GW_PORT "):\n"
    "                        login, one WebSocket, `call`/`answered`/`hangup`; the IMS UE is the far end;\n"
    "                        https://… (./lab up --bind ADDR) logs in over TLS and opens wss://\n"
    "  --ca FILE             https gateway: trust the certificates in FILE (PEM, e.g. out/tls/gateway.crt)\n"
    "                        instead of the system's; the certificate must name the URL's host\n"
    "  --insecure            https gateway: no certificate check at all (a throw-away test certificate)\n"
    "  --user U, --password P  gateway login (an IMS subscriber, ims-sim/users.txt)\n"
    "  --users FILE          gateway mode: log in every `user:password` line of FILE instead (one WebSocket\n"
    "                        each; originated call i goes through user i mod U; --answer answers for all)\n"
    "  --to TARGET           callee for every call: user name (ue1), user@host or sip: URI\n"
    "  --hangup-wait S       gateway mode: wait this long for `ended` (sip-ws: the BYE's 200) after a hangup (default 5)\n"
    "  --access KIND         gateway (default): the gateway's browser API; sip-ws: SIP over WebSocket (RFC 7118) to\n"
    "                        the eP-CSCF, the gateway only issuing the access token (POST /api/v1/wic-tokens) that\n"
    "                        goes as `Authorization: Bearer` in every request (REGISTER, INVITE, ACK, BYE, ...)\n"
    "  --pcscf-ws URL        --access sip-ws: the eP-CSCF's ws:// or wss:// URL (default: the token reply's wsUrl)\n"
    "  --answer              gateway mode: answer the calls to --user (`incoming` -> `answer`, ICE + DTLS-SRTP,\n"
    "                        SRTP at the profile's rate; the caller echoes); each lasts until the caller hangs\n"
    "                        up or --duration; with --to the run also originates --calls\n"
    "  --expect-calls N      --answer: the run ends when N incoming calls have ended (more are refused)\n"
    "  --ng HOST:PORT        rtpengine ng control address (default " LOADGEN_DEFAULT_NG ")\n"
    "  --calls N             number of calls (default 1)\n"
    "  --cps R               call setup rate, calls per second (default 10)\n"
    "  --duration S          media seconds per call after DTLS is up (default 10)\n"
    "  --setup-timeout S     per call: offer to DTLS done (default 10)\n"
    "  --timeout S           overall bound; then every call is deleted (default: ramp+setup+duration+10);\n"
    "                        --answer without --expect-calls: how long to take calls (reaching it is no failure)\n"
    "  --profile NAME        traffic profile (default A-SRTP); its browser_leg RTP/AVP (A-RTP) = plain RTP,\n"
    "                        no ICE/DTLS; its ims_codec (A-SRTP-transcode) = rtpengine transcodes real Opus\n"
    "  --ims-codec C         transcode: codec forced on the IMS leg, PCMA or AMR-WB (default: the\n"
    "                        profile's ims_codec, PCMA first; only for profiles that have one)\n"
    "  --profiles PATH       profiles.json (default $BENCH_PROFILES, else " LOADGEN_DEFAULT_PROFILES ")\n"
    "  --far echo|sink       far end played by loadgen: echo RTP back, or only count it (default echo)\n"
    "  --far-port-base P     far end of call i binds P+2i (./lab bench: " LAB_BENCH_FAR_PORT_BASE ", inside delaymeter's --ims-ports)\n"
    "  --far-addr HOST:PORT  external far end instead (e.g. SIPp UAS with -rtp_echo)\n"
    "  --threads T           engine threads, 1..cores (default 1); --gateway: needs >= T users, each\n"
    "                        thread serves its own users' WebSockets and their calls\n"
    "  --first-seq N         first RTP sequence number of every call (default: random per call, as browsers\n"
    "                        do); e.g. 65300 makes each call's sequence wrap (SRTP ROC 1) after 236 packets\n"
    "  --local-ip IP         address for loadgen's sockets and candidates (default " LAB_LOOPBACK ")\n"
    "  --relay-pid PID       also report this process's CPU (rtpengine) over the run\n"
    "  --json FILE           write the full report (per call + totals) as JSON\n"
    "  --dump-sdp DIR        write call 0's four SDPs into DIR\n"
    "  --quiet               no progress line\n"
    "exit: 0 all calls set up (and got echoed media in echo/gateway mode), 1 failures or overall timeout,\n"
    "      2 bad usage/environment, 3 interrupted (calls were still deleted)\n";

[[noreturn]] void usageError(const std::string& msg) {
  std::cerr << "loadgen: " << msg << "\n";
  std::exit(kExitUsage);
}

bool parseHostPort(const std::string& s, sockaddr_in& out, std::string& host, uint16_t& port) {
  size_t c = s.rfind(':');
  if (c == std::string::npos) return false;
  host = s.substr(0, c);
  char* end = nullptr;
  long p = std::strtol(s.c_str() + c + 1, &end, 10);
  if (*end || p <= 0 || p > 65535) return false;
  port = static_cast<uint16_t>(p);
  out = {};
  out.sin_family = AF_INET;
  out.sin_port = htons(port);
  return inet_pton(AF_INET, host.c_str(), &out.sin_addr) == 1;
}

double parseNum(const std::string& opt, const char* v, double lo, double hi) {
  char* end = nullptr;
  double d = std::strtod(v, &end);
  if (!*v || *end || !(d >= lo && d <= hi))
  {
    char range[64];
    std::snprintf(range, sizeof range, "%g..%g", lo, hi);
    usageError(opt + ": expected a number in " + range + ", got '" + v + "'");
  }
  return d;
}

// DELETE /api/v1/sessions/{token}: the gateway de-REGISTERs and closes the WebSocket.
std::string logout(const lg::http::Url& base, const std::string& token) {
  lg::http::Response r;
  std::string err;
  if (!lg::http::request(base, "DELETE", base.path + "/api/v1/sessions/" + token, "", r, 5000, &err))
    return "failed: " + err;
  return r.status == 204 ? "ok" : "HTTP " + std::to_string(r.status);
}

// --users FILE: `user:password` per line; blank lines and # comments skipped (ims-sim/users.txt's format).
bool readUsers(const std::string& path, std::vector<std::pair<std::string, std::string>>& out, std::string& err) {
  std::ifstream f(path);
  if (!f) {
    err = "cannot read it";
    return false;
  }
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '#') continue;
    size_t c = line.find(':', b);
    if (c == std::string::npos || c == b || c + 1 >= line.size()) {
      err = "line " + std::to_string(n) + ": expected user:password";
      return false;
    }
    out.emplace_back(line.substr(b, c - b), line.substr(c + 1));
  }
  if (out.empty()) err = "no user:password line";
  return !out.empty();
}

}  // namespace

int main(int argc, char** argv) {
  lg::Config cfg;
  std::string profilesPath = LOADGEN_DEFAULT_PROFILES, profileName = "A-SRTP", jsonPath;
  // Same override as ./lab bench: a git worktree is not next to shared/, where the default points.
  if (const char* env = std::getenv("BENCH_PROFILES"); env && *env) profilesPath = env;
  int relayPid = 0;
  double timeoutArg = 0;
  bool rawAsked = false, callsAsked = false;
  std::string password, imsCodecArg, usersFile;
  lg::http::TlsOptions tlsOptions;
  bool tlsAsked = false;
  std::vector<std::string> rawOnly;  // options that only make sense with --raw
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) usageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return kExitOk;
    } else if (a == "--raw") {
      rawAsked = true;
    } else if (a == "--gateway") {
      cfg.gateway = true;
      cfg.gwUrl = next();
    } else if (a == "--access") {
      std::string kind = next();
      if (kind == "sip-ws") cfg.sipWs = true;
      else if (kind != "gateway") usageError("--access: expected gateway or sip-ws, got '" + kind + "'");
    } else if (a == "--pcscf-ws") {
      cfg.pcscfWs = next();
    } else if (a == "--ca") {
      tlsOptions.caFile = next();
      tlsAsked = true;
    } else if (a == "--insecure") {
      tlsOptions.insecure = true;
      tlsAsked = true;
    } else if (a == "--user") {
      cfg.gwUser = next();
    } else if (a == "--password") {
      password = next();
    } else if (a == "--users") {
      usersFile = next();
    } else if (a == "--to") {
      cfg.gwTo = next();
    } else if (a == "--answer") {
      cfg.answer = true;
    } else if (a == "--expect-calls") {
      cfg.expectCalls = static_cast<int>(parseNum(a, next(), 1, 100000));
    } else if (a == "--hangup-wait") {
      cfg.hangupWaitS = parseNum(a, next(), 0.1, 600);
    } else if (a == "--ng") {
      rawOnly.push_back(a);
      std::string host;
      uint16_t port;
      cfg.ngText = next();
      if (!parseHostPort(cfg.ngText, cfg.ng, host, port)) usageError("--ng: expected IPv4:PORT");
    } else if (a == "--calls") {
      cfg.calls = static_cast<int>(parseNum(a, next(), 1, 100000));
      callsAsked = true;
    } else if (a == "--cps") {
      cfg.cps = parseNum(a, next(), 0.01, 10000);
    } else if (a == "--duration") {
      cfg.durationS = parseNum(a, next(), 0, 86400);
    } else if (a == "--setup-timeout") {
      cfg.setupTimeoutS = parseNum(a, next(), 0.1, 600);
    } else if (a == "--timeout") {
      timeoutArg = parseNum(a, next(), 0.1, 86400 * 7);
    } else if (a == "--profile") {
      profileName = next();
    } else if (a == "--profiles") {
      profilesPath = next();
    } else if (a == "--ims-codec") {
      rawOnly.push_back(a);
      imsCodecArg = next();
    } else if (a == "--far") {
      rawOnly.push_back(a);
      std::string m = next();
      if (m == "echo") cfg.far = lg::FarMode::Echo;
      else if (m == "sink") cfg.far = lg::FarMode::Sink;
      else usageError("--far: expected echo or sink");
    } else if (a == "--far-addr") {
      rawOnly.push_back(a);
      cfg.far = lg::FarMode::External;
      if (!parseHostPort(next(), cfg.farAddr, cfg.farHost, cfg.farPort)) usageError("--far-addr: expected IPv4:PORT");
    } else if (a == "--far-port-base") {
      rawOnly.push_back(a);
      cfg.farPortBase = static_cast<int>(parseNum(a, next(), 1024, 65534));
    } else if (a == "--threads") {
      cfg.threads = static_cast<int>(parseNum(a, next(), 1, 256));
    } else if (a == "--first-seq") {
      cfg.firstSeq = static_cast<int>(parseNum(a, next(), 0, 65535));
    } else if (a == "--local-ip") {
      cfg.localIp = next();
      in_addr tmp;
      if (inet_pton(AF_INET, cfg.localIp.c_str(), &tmp) != 1) usageError("--local-ip: expected an IPv4 address");
    } else if (a == "--relay-pid") {
      relayPid = static_cast<int>(parseNum(a, next(), 1, 4194304));
    } else if (a == "--json") {
      jsonPath = next();
    } else if (a == "--dump-sdp") {
      cfg.dumpSdpDir = next();
    } else if (a == "--quiet") {
      cfg.quiet = true;
    } else {
      usageError("unknown option " + a + " (see --help)");
    }
  }
  if (!usersFile.empty() && !cfg.gateway) usageError("--users needs --gateway");
  if (!tlsOptions.caFile.empty() && tlsOptions.insecure) usageError("--ca and --insecure exclude each other");
  if ((cfg.answer || cfg.expectCalls) && !cfg.gateway) usageError("--answer and --expect-calls need --gateway (raw mode has no incoming calls)");
  if (cfg.expectCalls && !cfg.answer) usageError("--expect-calls needs --answer");
  if (cfg.sipWs && !cfg.gateway) usageError("--access sip-ws needs --gateway URL: the gateway issues the access tokens");
  if (!cfg.pcscfWs.empty() && !cfg.sipWs) usageError("--pcscf-ws needs --access sip-ws");
  lg::http::Url gwBase;
  if (cfg.gateway) {
    if (rawAsked) usageError("--raw and --gateway exclude each other");
    if (!rawOnly.empty()) usageError(rawOnly.front() + " only applies to --raw (the gateway drives rtpengine, the IMS UE is the far end)");
    if (!usersFile.empty()) {
      if (!cfg.gwUser.empty() || !password.empty()) usageError("--users and --user/--password exclude each other");
      std::string uerr;
      if (!readUsers(usersFile, cfg.gwUsers, uerr)) usageError("--users " + usersFile + ": " + uerr);
      cfg.gwUser = cfg.gwUsers.front().first;
    } else if (!cfg.gwUser.empty() && !password.empty()) {
      cfg.gwUsers.emplace_back(cfg.gwUser, password);
    }
    if (cfg.gwUsers.empty() || (cfg.gwTo.empty() && !cfg.answer))
      usageError("--gateway needs --user and --password (or --users FILE), and --to (or --answer)");
    if (cfg.answer && cfg.gwTo.empty()) {
      if (callsAsked) usageError("--calls counts originated calls: give --to, or --expect-calls for incoming ones");
      cfg.calls = 0;  // answer only
    }
    if (cfg.answer && !cfg.expectCalls && timeoutArg <= 0)
      usageError("--answer needs --expect-calls N or --timeout S to bound the run");
    // Each engine thread serves its own users' WebSockets: T threads need at least T users.
    if (cfg.threads > static_cast<int>(cfg.gwUsers.size()))
      usageError("--threads " + std::to_string(cfg.threads) + " in --gateway mode needs at least that many users (--users FILE): each engine thread serves its own users' WebSockets");
    std::string uerr;
    if (!lg::http::parseUrl(cfg.gwUrl, gwBase, &uerr) || (gwBase.scheme != "http" && gwBase.scheme != "https"))
      usageError("--gateway: " + (uerr.empty() ? "expected http://host:port or https://host:port" : uerr));
    if (tlsAsked && !gwBase.tls()) usageError("--ca and --insecure are for an https:// gateway");
    if (gwBase.tls()) {
      signal(SIGPIPE, SIG_IGN);  // OpenSSL writes with write(2): a closed peer must not kill the login
      if (!lg::http::configureTls(tlsOptions, &uerr)) usageError(uerr);
    }
    while (gwBase.path.size() > 1 && gwBase.path.back() == '/') gwBase.path.pop_back();
    if (gwBase.path == "/") gwBase.path.clear();
    cfg.far = lg::FarMode::External;  // the IMS UE behind the gateway answers (and echoes) media
  }
  if (cfg.ng.sin_family == 0) {
    std::string host;
    uint16_t port;
    parseHostPort(cfg.ngText, cfg.ng, host, port);
  }
  unsigned cores = std::thread::hardware_concurrency();
  if (cores && cfg.threads > static_cast<int>(cores))
    usageError("--threads " + std::to_string(cfg.threads) + " exceeds the " + std::to_string(cores) + " cores");
  // More engines than calls would idle (answering engines take incoming calls: keep them).
  if (cfg.threads > cfg.calls && !cfg.answer) cfg.threads = std::max(1, cfg.calls);
  if (cfg.farPortBase && cfg.farPortBase + 2 * (cfg.calls - 1) > 65535)
    usageError("--far-port-base " + std::to_string(cfg.farPortBase) + " leaves no room for " + std::to_string(cfg.calls) + " calls");
  std::string err;
  if (!lg::loadProfile(profilesPath, profileName, cfg.profile, err)) usageError(err);
  cfg.plainRtp = cfg.profile.plainRtp();
  if (cfg.plainRtp && cfg.gateway) usageError("profile " + profileName + " has a plain RTP/AVP browser leg: --raw only (the gateway speaks DTLS-SRTP to browsers)");
  if (!cfg.profile.imsCodec.empty() && cfg.gateway) usageError("profile " + profileName + " transcodes: --raw only");
  if (!imsCodecArg.empty() && cfg.profile.imsCodec.empty())
    usageError("--ims-codec: profile " + profileName + " does not transcode (use A-SRTP-transcode)");
  lg::OpusFrames opusFrames;
  if (!cfg.profile.imsCodec.empty()) {
    std::string name = imsCodecArg.empty() ? lg::defaultImsCodec(cfg.profile.imsCodec) : imsCodecArg;
    if (!lg::findImsCodec(name, cfg.imsCodec))
      usageError("--ims-codec: '" + (name.empty() ? cfg.profile.imsCodec : name) + "' is not one of " + lg::imsCodecNames());
    cfg.transcode = true;
    // One second of test signal, looped: enough variety for the decoder, encoded in a few ms.
    if (!opusFrames.encode(cfg.profile.pps, cfg.profile.payloadBytes, 1.0, &err)) usageError(err);
    cfg.opus = &opusFrames;
  }
  cfg.timeoutS = timeoutArg > 0 ? timeoutArg : std::max(0, cfg.calls - 1) / cfg.cps + cfg.setupTimeoutS + cfg.durationS + 10;
  // Incoming calls: the caller's own pace is unknown here; a minute more for them to arrive.
  if (timeoutArg <= 0 && cfg.answer) cfg.timeoutS += 60;
  // Sockets: one per MT call (--expect-calls of them, else up to 1000 within the fd limit).
  int fdCalls = cfg.calls + (cfg.answer ? (cfg.expectCalls ? cfg.expectCalls : 1000) : 0);

  // Two sockets per call plus a few: raise the soft fd limit as far as the hard limit allows.
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < static_cast<rlim_t>(2 * fdCalls + 64))
    usageError("open-file limit " + std::to_string(rl.rlim_cur) + " is too low for " + std::to_string(fdCalls) + " calls");

  auto dtls = lg::DtlsContext::create("loadgen", lg::kSrtpProfile, &err);
  if (!dtls || !lg::srtpGlobalInit(&err)) usageError(err);

  // Gateway mode: log every user in (the gateway REGISTERs each with IMS), then open its WebSocket.
  // --access sip-ws: get each user's access token from the gateway (the WAF), open a WebSocket (subprotocol `sip`)
  // to the eP-CSCF and REGISTER with the token (TS 24.371 §6 web authentication).
  std::vector<std::string> tokens;
  std::vector<std::unique_ptr<lg::WsClient>> sockets;
  std::vector<std::unique_ptr<lg::GatewayLink>> gwLinks;
  std::vector<std::unique_ptr<lg::SipWsLink>> sipLinks;
  std::vector<lg::AccessLink*> links;
  std::string pcscfShown;
  auto logoutAll = [&] {
    if (!cfg.sipWs) {
      for (const auto& t : tokens) logout(gwBase, t);
      return;
    }
    lg::EventLoop loop;
    for (auto& l : sipLinks)
      if (l->registered()) l->registerOn(loop, 0, 3000, nullptr);
  };
  for (const auto& [user, pass] : cfg.gwUsers) {
    std::string who = cfg.gwUsers.size() > 1 ? " (user " + user + ")" : "";
    if (cfg.sipWs) {
      lg::wic::Token tok;
      if (!lg::wic::fetch(gwBase, user, &pass, "", tok, 15000, &err)) {
        logoutAll();
        usageError("gateway " + cfg.gwUrl + who + ": " + err);
      }
      std::string wsText = cfg.pcscfWs.empty() ? tok.wsUrl : cfg.pcscfWs;
      if (wsText.empty()) usageError("gateway " + cfg.gwUrl + " names no eP-CSCF (lab.wic.ws-url): give --pcscf-ws URL");
      lg::http::Url wsUrl;
      if (!lg::http::parseUrl(wsText, wsUrl, &err) || (wsUrl.scheme != "ws" && wsUrl.scheme != "wss"))
        usageError("eP-CSCF URL '" + wsText + "': expected ws://host:port or wss://host:port");
      if (wsUrl.tls() && !gwBase.tls()) {  // the TLS context is set up for https:// gateways only
        signal(SIGPIPE, SIG_IGN);
        if (!lg::http::configureTls(tlsOptions, &err)) usageError(err);
      }
      pcscfShown = wsText;
      sockets.push_back(std::make_unique<lg::WsClient>());
      // RFC 7118 §4.1: the client offers the subprotocol "sip" and the server must select it
      if (!sockets.back()->connect(wsUrl, 5000, &err, {"sip"})) {
        logoutAll();
        usageError("eP-CSCF " + wsText + who + ": " + err);
      }
      if (sockets.back()->protocol() != "sip") {
        logoutAll();
        usageError("eP-CSCF " + wsText + who + ": the WebSocket handshake selected subprotocol '" + sockets.back()->protocol() + "', not 'sip' (RFC 7118)");
      }
      sipLinks.push_back(std::make_unique<lg::SipWsLink>(*sockets.back(), user, tok.impu, tok.domain, cfg.gwTo,
                                                         tok.accessToken, wsUrl.tls()));
      lg::EventLoop regLoop;
      if (!sipLinks.back()->registerOn(regLoop, 600, 10000, &err)) {
        logoutAll();
        usageError("eP-CSCF " + wsText + who + ": " + err);
      }
      // a fresh token at 80 % of each one's life, from the current one (as the page does)
      double life = 0;
      if (lg::wic::secondsUntil(tok.expiresAt, life) && life > 0)
        sipLinks.back()->keepAlive(
            [&gwBase, user = user](const std::string& current, std::string& fresh, double& lifeS, std::string* e) {
              lg::wic::Token t;
              if (!lg::wic::fetch(gwBase, user, nullptr, current, t, 5000, e)) return false;
              fresh = t.accessToken;
              if (!lg::wic::secondsUntil(t.expiresAt, lifeS) || lifeS <= 0) lifeS = 60;
              return true;
            },
            life);
      links.push_back(sipLinks.back().get());
      if (!cfg.quiet && cfg.gwUsers.size() == 1)
        std::cerr << "loadgen: registered " << tok.impu << " with the gateway's access token over " << wsText
                  << " (subprotocol sip)" << (cfg.answer ? ", answering incoming calls" : "") << "\n";
      continue;
    }
    lg::http::Response resp;
    std::string wsUrlText, token;
    if (!lg::http::request(gwBase, "POST", gwBase.path + "/api/v1/sessions", lg::gw::loginBody(user, pass), resp, 15000, &err) ||
        !lg::gw::parseLogin(resp, token, wsUrlText, &err)) {
      logoutAll();
      usageError("gateway " + cfg.gwUrl + who + ": " + err);
    }
    tokens.push_back(token);
    lg::http::Url wsUrl;
    if (!lg::http::parseUrl(wsUrlText, wsUrl, &err) || wsUrl.scheme != (gwBase.tls() ? "wss" : "ws")) {
      logoutAll();
      usageError("gateway login gave an unusable wsUrl '" + wsUrlText + "' (expected " + (gwBase.tls() ? "wss" : "ws") + "://)");
    }
    sockets.push_back(std::make_unique<lg::WsClient>());
    if (!sockets.back()->connect(wsUrl, 5000, &err, lg::gw::wsProtocols(token))) {
      logoutAll();
      usageError(err);
    }
    gwLinks.push_back(std::make_unique<lg::GatewayLink>(*sockets.back(), cfg.gwTo, user));
    links.push_back(gwLinks.back().get());
    if (!cfg.quiet && cfg.gwUsers.size() == 1)
      std::cerr << "loadgen: logged in as " << user << ", websocket " << (wsUrl.tls() ? "(TLS) " : "") << wsUrl.host << ":" << wsUrl.port << " open"
                << (cfg.answer ? ", answering incoming calls" : "") << "\n";
  }
  if (!cfg.quiet && cfg.gwUsers.size() > 1)
    std::cerr << "loadgen: " << (cfg.sipWs ? "registered " : "logged in as ") << cfg.gwUsers.size() << " users (" << cfg.gwUsers.front().first << " ... "
              << cfg.gwUsers.back().first << "), " << sockets.size() << " websockets open"
              << (cfg.answer ? ", answering incoming calls" : "") << "\n";

  // Signals go to this thread only (sigtimedwait below); engines poll the stop flag.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);

  lg::RunInfo run;
  lg::CpuSample relayStart;
  bool relayOk = relayPid && lg::procCpu(relayPid, relayStart);
  lg::CpuSample genStart = lg::selfCpu();
  int64_t t0 = lg::nowNs() + 20'000'000;  // engines are up before the first call is due
  lg::Counters counters;
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<lg::Engine>> engines;
  std::vector<std::string> engineErr(cfg.threads);
  std::atomic<int> running{cfg.threads};
  std::vector<std::thread> threads;
  for (int t = 0; t < cfg.threads; ++t) {
    std::vector<lg::AccessLink*> mine;  // users dealt to engines in turn: user u to engine u mod T
    for (size_t u = static_cast<size_t>(t); u < links.size(); u += static_cast<size_t>(cfg.threads)) mine.push_back(links[u]);
    engines.push_back(std::make_unique<lg::Engine>(cfg, *dtls, counters, t, t0, stop, mine));
  }
  for (int t = 0; t < cfg.threads; ++t)
    threads.emplace_back([&, t] {
      if (!engines[t]->run(engineErr[t])) stop = true;
      running--;
    });

  bool interrupted = false;
  uint64_t lastSent = 0, lastRecv = 0;
  int64_t lastT = lg::nowNs();
  while (running.load() > 0) {
    timespec oneSecond{1, 0};
    int sig = sigtimedwait(&sigs, nullptr, &oneSecond);
    if (sig == SIGINT || sig == SIGTERM) {
      if (!interrupted && !cfg.quiet)
        std::cerr << (cfg.gateway ? "\nloadgen: stopping, hanging up calls...\n" : "\nloadgen: stopping, deleting calls...\n");
      interrupted = true;
      stop = true;
      continue;
    }
    if (cfg.quiet) continue;
    int64_t now = lg::nowNs();
    double dt = (now - lastT) / 1e9;
    uint64_t sent = counters.pktsSent, recv = counters.pktsRecv, lost = counters.lost;
    if (cfg.gateway) {
      uint64_t started = counters.started, up = counters.setupOk, failed = counters.failed;
      uint64_t inSetup = started > up + failed ? started - up - failed : 0;
      std::fprintf(stderr,
                   "[%5.0fs] calls %llu/%d started%s, %llu set up, %llu failed, %llu in setup, %llu in media, %llu ended"
                   " | pkts tx %llu rx %llu (/s tx %.0f rx %.0f) | lost %llu\n",
                   (now - t0) / 1e9, static_cast<unsigned long long>(started), cfg.calls + static_cast<int>(counters.incoming.load()),
                   cfg.answer ? (" (" + std::to_string(counters.incoming.load()) + " incoming)").c_str() : "",
                   static_cast<unsigned long long>(up), static_cast<unsigned long long>(failed),
                   static_cast<unsigned long long>(inSetup), static_cast<unsigned long long>(counters.inMedia.load()),
                   static_cast<unsigned long long>(counters.ended.load()), static_cast<unsigned long long>(sent),
                   static_cast<unsigned long long>(recv), (sent - lastSent) / dt, (recv - lastRecv) / dt,
                   static_cast<unsigned long long>(lost));
      lastSent = sent;
      lastRecv = recv;
      lastT = now;
      continue;
    }
    std::fprintf(stderr,
                 "[%5.0fs] calls %llu/%d started, %llu up, %llu failed, %llu in media, %llu ended | ICE ok %llu, DTLS ok %llu"
                 " | pkts/s tx %.0f rx %.0f | lost %llu (%.3f%%)\n",
                 (now - t0) / 1e9, static_cast<unsigned long long>(counters.started.load()), cfg.calls,
                 static_cast<unsigned long long>(counters.setupOk.load()),
                 static_cast<unsigned long long>(counters.failed.load()),
                 static_cast<unsigned long long>(counters.inMedia.load()),
                 static_cast<unsigned long long>(counters.ended.load()),
                 static_cast<unsigned long long>(counters.iceOk.load()),
                 static_cast<unsigned long long>(counters.dtlsOk.load()), (sent - lastSent) / dt,
                 (recv - lastRecv) / dt, static_cast<unsigned long long>(lost),
                 recv + lost ? 100.0 * lost / (recv + lost) : 0.0);
    lastSent = sent;
    lastRecv = recv;
    lastT = now;
  }
  for (auto& th : threads) th.join();
  if (cfg.gateway) {  // every call has been hung up (or given up on): end the session (sip-ws: de-REGISTER)
    run.gwLogout = "ok";
    run.pcscfWs = pcscfShown;
    for (size_t u = 0; u < links.size(); ++u) {
      lg::AccessLink& link = *links[u];
      std::string prefix = links.size() > 1 ? link.user() + ": " : "";
      run.gwWsIn += sockets[u]->messagesIn();
      run.gwWsOut += sockets[u]->messagesOut();
      run.gwPings += sockets[u]->pingsAnswered();
      run.gwUnmatched += link.unmatched();
      run.gwBad += link.badMessages();
      if (link.closed() && run.gwClosed.empty()) run.gwClosed = prefix + link.closeReason();
      std::string lo;
      if (cfg.sipWs) {
        lg::SipWsLink& sl = *sipLinks[u];
        sl.detach();  // from its engine's loop (that thread has ended)
        lg::EventLoop loop;
        lo = sl.registerOn(loop, 0, 3000, &err) ? "ok" : err;
        run.sipRequestsOut += sl.requestsOut();
        run.sipMessagesIn += sl.messagesIn();
        run.sipTokenRefreshes += sl.tokenRefreshes();
        if (!sl.refreshError().empty() && run.sipRefreshError.empty()) run.sipRefreshError = prefix + sl.refreshError();
      } else {
        lo = logout(gwBase, tokens[u]);
      }
      if (lo != "ok" && run.gwLogout == "ok") run.gwLogout = prefix + lo;
    }
    run.incoming = counters.incoming;
    run.rejected = counters.rejected;
    for (auto& s : sockets) s->closeBlocking(1000);
  }
  for (const auto& e : engineErr)
    if (!e.empty()) usageError(e);

  run.cfg = &cfg;
  run.wallS = (lg::nowNs() - t0) / 1e9;
  lg::CpuSample genEnd = lg::selfCpu();
  run.genCpu = {genEnd.userS - genStart.userS, genEnd.sysS - genStart.sysS};
  run.relayPid = relayPid;
  lg::CpuSample relayEnd;
  if (relayOk && lg::procCpu(relayPid, relayEnd)) {
    run.relayCpuOk = true;
    run.relayCpu = {relayEnd.userS - relayStart.userS, relayEnd.sysS - relayStart.sysS};
  }
  run.interrupted = interrupted;
  for (auto& e : engines) {
    auto r = e->results();
    run.calls.insert(run.calls.end(), r.begin(), r.end());
    run.rttUs.insert(run.rttUs.end(), e->rttUs().begin(), e->rttUs().end());
    run.timedOut = run.timedOut || e->timedOut();
    run.ngRetransmits += e->ngRetransmits();
  }
  std::sort(run.calls.begin(), run.calls.end(),
            [](const lg::CallResult& a, const lg::CallResult& b) { return a.index < b.index; });

  if (!jsonPath.empty()) {
    std::ofstream f(jsonPath);
    if (!(f << lg::reportJson(run))) usageError("cannot write " + jsonPath);
  }
  std::cout << lg::summaryText(run) << std::flush;

  if (interrupted) return kExitInterrupted;
  // --answer without --expect-calls: the timeout is the listening window, not a failure.
  bool allOk = !run.timedOut || (cfg.answer && !cfg.expectCalls);
  if (cfg.expectCalls && run.incoming < static_cast<uint64_t>(cfg.expectCalls)) allOk = false;
  for (const auto& c : run.calls) {
    if (!c.setupOk) allOk = false;
    if ((cfg.far == lg::FarMode::Echo || cfg.gateway) && cfg.durationS >= 1 && c.recv == 0) allOk = false;
    if (c.endedEarly) allOk = false;
    // Gateway mode: every call the gateway knew of must have been confirmed ended.
    if (cfg.gateway && c.failPhase != "not-started" && !c.deleted) allOk = false;
  }
  return allOk ? kExitOk : kExitFailures;
}
