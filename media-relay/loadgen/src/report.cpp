#include "report.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace lg {

CpuSample selfCpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return {ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6};
}

bool procCpu(int pid, CpuSample& out) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return false;
  size_t rp = line.rfind(')');  // comm may contain spaces; fields restart after ')'
  if (rp == std::string::npos) return false;
  std::istringstream in(line.substr(rp + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  out = {utime / hz, stime / hz};
  return true;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * v.size())));
  return v[std::min(rank, v.size()) - 1];
}

namespace {

double round3(double x) { return std::round(x * 1000.0) / 1000.0; }

nlohmann::json dist(const std::vector<double>& v) {
  if (v.empty()) return nullptr;
  double sum = 0;
  for (double x : v) sum += x;
  return {{"n", v.size()},
          {"p50", round3(percentile(v, 50))},
          {"p95", round3(percentile(v, 95))},
          {"p99", round3(percentile(v, 99))},
          {"max", round3(*std::max_element(v.begin(), v.end()))},
          {"mean", round3(sum / v.size())}};
}

struct Totals {
  int ok = 0, failed = 0, ice = 0, dtls = 0, deleted = 0;
  uint64_t sent = 0, recv = 0, lost = 0, farRx = 0, farTx = 0, farVoiced = 0, rtcpSent = 0, rtcpRecv = 0, srtpErr = 0, srtpReplay = 0, srtcpErr = 0;
  std::vector<double> setup, offer, answer, ice_ms, dtls_ms;
  int endedEarly = 0;
  std::vector<double> wsCalling, wsRinging, wsAnswered, wsEarly, hangup, wsAnswerSent;
  int mo = 0, mt = 0, mtOk = 0, mtEndedByCaller = 0;
};

Totals totals(const RunInfo& run) {
  Totals t;
  for (const auto& c : run.calls) {
    if (c.setupOk) ++t.ok;
    else if (c.failPhase != "not-started") ++t.failed;
    if (c.iceMs >= 0) ++t.ice;
    if (c.dtlsMs >= 0) ++t.dtls;
    if (c.deleted) ++t.deleted;
    t.sent += c.sent;
    t.recv += c.recv;
    t.lost += c.lostGaps;
    t.farRx += c.farRx;
    t.farVoiced += c.farVoiced;
    t.farTx += c.farTx;
    t.rtcpSent += c.rtcpSent;
    t.rtcpRecv += c.rtcpRecv;
    t.srtpErr += c.srtpErrors;
    t.srtpReplay += c.srtpReplays;
    t.srtcpErr += c.srtcpErrors;
    if (c.setupOk) t.setup.push_back(c.setupMs);
    if (c.ngOfferMs >= 0) t.offer.push_back(c.ngOfferMs);
    if (c.ngAnswerMs >= 0) t.answer.push_back(c.ngAnswerMs);
    if (c.iceMs >= 0) t.ice_ms.push_back(c.iceMs);
    if (c.dtlsMs >= 0) t.dtls_ms.push_back(c.dtlsMs);
    if (c.endedEarly) ++t.endedEarly;
    if (c.wsCallingMs >= 0) t.wsCalling.push_back(c.wsCallingMs);
    if (c.wsRingingMs >= 0) t.wsRinging.push_back(c.wsRingingMs);
    if (c.wsAnsweredMs >= 0) t.wsAnswered.push_back(c.wsAnsweredMs);
    if (c.wsEarlySdpMs >= 0) t.wsEarly.push_back(c.wsEarlySdpMs);
    if (c.hangupMs >= 0) t.hangup.push_back(c.hangupMs);
    if (c.wsAnswerSentMs >= 0) t.wsAnswerSent.push_back(c.wsAnswerSentMs);
    if (c.mt) {
      ++t.mt;
      if (c.setupOk) ++t.mtOk;
      if (c.endReason == "remote-hangup" && !c.endedEarly) ++t.mtEndedByCaller;
    } else if (c.failPhase != "not-started" || c.setupOk) {
      ++t.mo;
    }
  }
  return t;
}

double pct(uint64_t part, uint64_t whole) { return whole ? round3(100.0 * part / whole) : 0; }

// The echo round-trip times in ms (recorded in µs).
std::vector<double> rttMillis(const RunInfo& run) {
  std::vector<double> ms;
  ms.reserve(run.rttUs.size());
  for (float us : run.rttUs) ms.push_back(us / 1000.0);
  return ms;
}

}  // namespace

std::string reportJson(const RunInfo& run) {
  const Config& cfg = *run.cfg;
  Totals t = totals(run);
  std::vector<double> rttMs = rttMillis(run);

  nlohmann::json j;
  j["tool"] = "loadgen";
  j["mode"] = cfg.sipWs ? "sip-ws" : cfg.gateway ? "gateway" : "raw";
  // Names of the signalling steps: the gateway's JSON messages, or SIP over WebSocket's responses (docs/loadgen.md)
  auto key = [&](const char* ws, const char* sip) { return std::string(cfg.sipWs ? sip : ws); };
  j["profile"] = {{"name", cfg.profile.name}, {"pps", cfg.profile.pps}, {"payload_bytes", cfg.profile.payloadBytes}};
  j["config"] = {{"calls", cfg.calls}, {"cps", cfg.cps}, {"duration_s", cfg.durationS},
                 {"threads", cfg.threads}, {"ng", cfg.ngText}, {"far_port_base", cfg.farPortBase},
                 {"far", cfg.far == FarMode::Echo ? "echo" : cfg.far == FarMode::Sink ? "sink" : "external"}};
  if (cfg.gateway) {
    j["config"] = {{"calls", cfg.calls}, {"cps", cfg.cps}, {"duration_s", cfg.durationS}, {"threads", cfg.threads},
                   {"gateway", cfg.gwUrl}, {"user", cfg.gwUser}, {"to", cfg.gwTo}, {"far", "ims-ue"},
                   {"answer", cfg.answer}, {"expect_calls", cfg.expectCalls}};
    auto& users = j["config"]["users"] = nlohmann::json::array();
    for (const auto& u : cfg.gwUsers) users.push_back(u.first);
    j["config"]["access"] = cfg.sipWs ? "sip-ws" : "gateway";
    if (cfg.sipWs) j["config"]["pcscf_ws"] = run.pcscfWs;
  } else if (cfg.far == FarMode::External) {
    j["config"]["far_addr"] = cfg.farHost + ":" + std::to_string(cfg.farPort);
  }
  // What each leg carries (bench report.json `media.codec` per leg).
  j["media"] = {{"browser_leg", {{"transport", cfg.plainRtp ? "RTP/AVP" : "UDP/TLS/RTP/SAVPF"},
                                 {"codec", "opus/48000"},
                                 {"payload", cfg.opus ? "opus frames (libopus, CBR)" : "filler bytes (rtpengine forwards blind)"}}},
                {"ims_leg", {{"transport", "RTP/AVP"},
                             {"codec", cfg.transcode ? cfg.imsCodec.rtpmap : "opus/48000"},
                             {"transcoded", cfg.transcode}}}};
  j["interrupted"] = run.interrupted;
  j["timed_out"] = run.timedOut;
  j["totals"] = {{"calls", cfg.calls}, {"setup_ok", t.ok}, {"failed", t.failed}, {"ice_ok", t.ice},
                 {"dtls_ok", t.dtls}, {"deleted", t.deleted},
                 {"pkts_sent", t.sent}, {"pkts_recv", t.recv}, {"pkts_lost_gaps", t.lost},
                 {"loss_pct_gaps", pct(t.lost, t.recv + t.lost)},
                 {"pkts_missing", t.sent > t.recv ? t.sent - t.recv : 0},
                 {"far_rx", t.farRx}, {"far_tx", t.farTx}, {"far_voiced", t.farVoiced},
                 {"rtcp_sent", t.rtcpSent}, {"rtcp_recv", t.rtcpRecv}, {"srtp_errors", t.srtpErr}, {"srtp_replays", t.srtpReplay}, {"srtcp_errors", t.srtcpErr},
                 {"ng_retransmits", run.ngRetransmits}};
  // One-way loss from the far end's own counts (echo/sink mode only).
  if (cfg.far != FarMode::External) {
    j["totals"]["loss_pct_to_ims"] = pct(t.sent > t.farRx ? t.sent - t.farRx : 0, t.sent);
    if (cfg.far == FarMode::Echo)
      j["totals"]["loss_pct_to_browser"] = pct(t.farTx > t.recv ? t.farTx - t.recv : 0, t.farTx);
  }
  j["setup_ms"] = dist(t.setup);
  j["phases_ms"] = {{"ng_offer", dist(t.offer)}, {"ng_answer", dist(t.answer)},
                    {"ice", dist(t.ice_ms)}, {"dtls", dist(t.dtls_ms)}};
  if (cfg.gateway) {
    // ws_*: from sending `call` to that message; ice: answer SDP -> ICE success; hangup: hangup -> `ended`.
    // sip-ws: sip_trying/ringing/answered/early_sdp from sending the INVITE to the 100/180/200/183 with SDP;
    // hangup_to_ended: BYE -> its 200; sip_answer_sent: MT INVITE received -> our 200 sent.
    j["phases_ms"] = {{key("ws_calling", "sip_trying"), dist(t.wsCalling)}, {key("ws_ringing", "sip_ringing"), dist(t.wsRinging)},
                      {key("ws_answered", "sip_answered"), dist(t.wsAnswered)}, {key("ws_early_sdp", "sip_early_sdp"), dist(t.wsEarly)},
                      {"ice", dist(t.ice_ms)}, {"dtls", dist(t.dtls_ms)}, {"hangup_to_ended", dist(t.hangup)},
                      {key("ws_answer_sent", "sip_answer_sent"), dist(t.wsAnswerSent)}};
    for (const char* k : {"deleted", "far_rx", "far_tx", "far_voiced", "ng_retransmits"}) j["totals"].erase(k);
    j["totals"]["hung_up"] = t.deleted;  // calls whose end the gateway confirmed with `ended`
    j["totals"]["ended_early"] = t.endedEarly;
    j["totals"]["calls"] = static_cast<int>(run.calls.size());
    j["totals"]["mo"] = t.mo;
    // --answer: incoming calls answered (mt), set up, ended by the caller's BYE; refused ones (rejected)
    j["totals"]["mt"] = t.mt;
    j["totals"]["mt_setup_ok"] = t.mtOk;
    j["totals"]["mt_ended_by_caller"] = t.mtEndedByCaller;
    j["totals"]["incoming_rejected"] = run.rejected;
    j["gateway"] = {{"ws_messages_in", run.gwWsIn}, {"ws_messages_out", run.gwWsOut}, {"pings_answered", run.gwPings},
                    {"unmatched_events", run.gwUnmatched}, {"bad_messages", run.gwBad},
                    {"ws_closed", run.gwClosed.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.gwClosed)},
                    {"logout", run.gwLogout}};
    if (cfg.sipWs)  // every request went out with the access token (RFC 8898); logout = the de-REGISTER
      j["sip"] = {{"requests_out", run.sipRequestsOut}, {"requests_with_bearer", run.sipRequestsOut},
                  {"messages_in", run.sipMessagesIn}, {"pcscf_ws", run.pcscfWs}, {"token_refreshes", run.sipTokenRefreshes},
                  {"refresh_error", run.sipRefreshError.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.sipRefreshError)}};
  }
  j["rtt_ms"] = dist(rttMs);
  double genCpuS = run.genCpu.userS + run.genCpu.sysS;
  j["cpu"]["generator"] = {{"user_s", round3(run.genCpu.userS)}, {"sys_s", round3(run.genCpu.sysS)},
                           {"wall_s", round3(run.wallS)},
                           {"pct_of_one_core", run.wallS > 0 ? round3(100.0 * genCpuS / run.wallS) : 0}};
  if (run.relayPid) {
    double relayS = run.relayCpu.userS + run.relayCpu.sysS;
    j["cpu"]["relay"] = run.relayCpuOk
        ? nlohmann::json{{"pid", run.relayPid}, {"user_s", round3(run.relayCpu.userS)},
                         {"sys_s", round3(run.relayCpu.sysS)},
                         {"pct_of_one_core", run.wallS > 0 ? round3(100.0 * relayS / run.wallS) : 0}}
        : nlohmann::json{{"pid", run.relayPid}, {"error", "cannot read /proc/<pid>/stat"}};
  }
  auto& calls = j["calls"] = nlohmann::json::array();
  auto ms = [](double v) -> nlohmann::json { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(round3(v)); };
  for (const auto& c : run.calls) {
    calls.push_back({{"index", c.index}, {"call_id", c.callId}, {"setup_ok", c.setupOk},
                     {"fail_phase", c.failPhase.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.failPhase)},
                     {"error", c.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.error)},
                     {"dtls_role", c.dtlsRole}, {"setup_ms", ms(c.setupMs)}, {"ng_offer_ms", ms(c.ngOfferMs)},
                     {"ng_answer_ms", ms(c.ngAnswerMs)}, {"ice_ms", ms(c.iceMs)}, {"dtls_ms", ms(c.dtlsMs)},
                     {"media_s", round3(c.mediaS)}, {"sent", c.sent}, {"recv", c.recv}, {"lost_gaps", c.lostGaps},
                     {"far_rx", c.farRx}, {"far_tx", c.farTx}, {"far_first_skipped", c.farFirstSkipped}, {"rtcp_sent", c.rtcpSent},
                     {"rtcp_recv", c.rtcpRecv}, {"srtp_errors", c.srtpErrors}, {"srtp_replays", c.srtpReplays}, {"srtcp_errors", c.srtcpErrors},
                     {"stun_checks_in", c.stunChecksIn}, {"stun_checks_out", c.stunChecksOut},
                     {"relay_ims_port", c.imsPort}, {"relay_browser_port", c.browserPort}, {"deleted", c.deleted},
                     {"ims_sdp_codec", c.imsSdpCodec}, {"browser_sdp_codec", c.browserSdpCodec}, {"far_voiced", c.farVoiced}});
    if (cfg.gateway) {
      auto& g = calls.back();
      for (const char* k : {"ng_offer_ms", "ng_answer_ms", "far_rx", "far_tx", "far_first_skipped", "relay_ims_port", "deleted"}) g.erase(k);
      g[key("gateway_call_id", "sip_call_id")] = c.gwCallId;
      g[key("ws_calling_ms", "sip_trying_ms")] = ms(c.wsCallingMs);
      g[key("ws_ringing_ms", "sip_ringing_ms")] = ms(c.wsRingingMs);
      g[key("ws_answered_ms", "sip_answered_ms")] = ms(c.wsAnsweredMs);
      g[key("ws_early_sdp_ms", "sip_early_sdp_ms")] = ms(c.wsEarlySdpMs);
      g["early_answer"] = c.earlyAnswer;
      g["hung_up"] = c.deleted;
      g["hangup_to_ended_ms"] = ms(c.hangupMs);
      g["end_reason"] = c.endReason.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.endReason);
      g["sip_code"] = c.sipCode ? nlohmann::json(c.sipCode) : nlohmann::json(nullptr);
      g["ended_early"] = c.endedEarly;
      g["direction"] = c.mt ? "mt" : "mo";
      g["user"] = c.user;
      g["ice_role"] = c.iceControlling ? "controlling" : "controlled";
      if (c.mt) {
        g["from"] = c.from;
        g["preconditions"] = c.preconditions;
        g[key("ws_answer_sent_ms", "sip_answer_sent_ms")] = ms(c.wsAnswerSentMs);  // `incoming` -> `answer`; setup_ms counts from `incoming`
      }
    }
  }
  return j.dump(2) + "\n";
}

namespace {

// p50 as "12.3", or "n/a" without samples (e.g. `calling` in an answer-only run).
std::string p50Text(const std::vector<double>& v) {
  if (v.empty()) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", percentile(v, 50));
  return b;
}

std::string summaryGateway(const RunInfo& run, const Totals& t) {
  const Config& cfg = *run.cfg;
  std::vector<double> rttMs = rttMillis(run);
  char buf[1024];
  std::string out;
  std::string who = cfg.gwUser;
  if (cfg.gwUsers.size() > 1) who += " and " + std::to_string(cfg.gwUsers.size() - 1) + " more users";
  std::string what = cfg.gwTo.empty() ? std::string("answering") : "-> " + cfg.gwTo;
  if (!cfg.gwTo.empty() && cfg.answer) what += ", answering";
  std::snprintf(buf, sizeof buf,
                "loadgen: %s %s as %s %s, profile %s (%d pps x %d B), %d calls at %.1f cps, %s%.1f s media%s%s\n"
                "  setup ok %d, failed %d, ICE ok %d, DTLS ok %d, hung up (%s) %d, ended early %d\n",
                cfg.sipWs ? "SIP over WebSocket to" : "gateway", cfg.sipWs ? run.pcscfWs.c_str() : cfg.gwUrl.c_str(), who.c_str(), what.c_str(), cfg.profile.name.c_str(), cfg.profile.pps,
                cfg.profile.payloadBytes, cfg.calls + t.mt, cfg.cps, cfg.answer ? "up to " : "", cfg.durationS,
                run.interrupted ? " [interrupted]" : "", run.timedOut ? " [overall timeout]" : "", t.ok, t.failed, t.ice,
                t.dtls, cfg.sipWs ? "BYE done" : "ended seen", t.deleted, t.endedEarly);
  out += buf;
  if (cfg.answer) {
    std::snprintf(buf, sizeof buf,
                  "  incoming (MT): %d answered, %d set up, %d ended by the caller, %llu refused; incoming->answer sent p50 %.2f ms"
                  " (MT setup counts from `incoming`)\n",
                  t.mt, t.mtOk, t.mtEndedByCaller, static_cast<unsigned long long>(run.rejected), percentile(t.wsAnswerSent, 50));
    out += buf;
  }
  std::snprintf(buf, sizeof buf,
                cfg.sipWs ? "  setup ms (INVITE sent/received -> DTLS done) p50 %.1f p95 %.1f p99 %.1f max %.1f\n"
                            "  phases p50: INVITE->100 %s, INVITE->200 %s, ICE %.1f, DTLS %.1f; BYE->200 %s ms\n"
                          : "  setup ms (call/incoming -> DTLS done) p50 %.1f p95 %.1f p99 %.1f max %.1f\n"
                            "  phases p50: call->calling %s, call->answered %s, ICE %.1f, DTLS %.1f; hangup->ended %s ms\n",
                percentile(t.setup, 50), percentile(t.setup, 95), percentile(t.setup, 99),
                t.setup.empty() ? -1.0 : *std::max_element(t.setup.begin(), t.setup.end()),
                p50Text(t.wsCalling).c_str(), p50Text(t.wsAnswered).c_str(), percentile(t.ice_ms, 50),
                percentile(t.dtls_ms, 50), p50Text(t.hangup).c_str());
  out += buf;
  std::snprintf(buf, sizeof buf,
                "  packets sent %llu, received %llu, lost (seq gaps) %llu (%.3f %%), missing %llu\n"
                "  SRTP auth/other errors %llu, SRTP replays %llu, SRTCP errors %llu; echo RTT ms p50 %.3f p95 %.3f\n"
                "  websocket: %llu messages in, %llu out, %llu unmatched%s%s; logout %s\n",
                static_cast<unsigned long long>(t.sent), static_cast<unsigned long long>(t.recv),
                static_cast<unsigned long long>(t.lost), pct(t.lost, t.recv + t.lost),
                static_cast<unsigned long long>(t.sent > t.recv ? t.sent - t.recv : 0),
                static_cast<unsigned long long>(t.srtpErr), static_cast<unsigned long long>(t.srtpReplay),
                static_cast<unsigned long long>(t.srtcpErr), percentile(rttMs, 50), percentile(rttMs, 95),
                static_cast<unsigned long long>(run.gwWsIn), static_cast<unsigned long long>(run.gwWsOut),
                static_cast<unsigned long long>(run.gwUnmatched), run.gwClosed.empty() ? "" : ", closed: ",
                run.gwClosed.c_str(), run.gwLogout.c_str());
  out += buf;
  double gen = run.genCpu.userS + run.genCpu.sysS;
  std::snprintf(buf, sizeof buf, "  generator CPU %.2f s over %.1f s wall (%.1f %% of one core)\n", gen, run.wallS,
                run.wallS > 0 ? 100 * gen / run.wallS : 0.0);
  out += buf;
  int shown = 0;
  for (const auto& c : run.calls) {
    if (c.failPhase.empty() || c.failPhase == "not-started" || shown >= 5) continue;
    out += "  call " + std::to_string(c.index) + (c.gwCallId.empty() ? "" : " (" + c.gwCallId + ")") + " failed in " +
           c.failPhase + ": " + c.error + "\n";
    ++shown;
  }
  return out;
}

}  // namespace

std::string summaryText(const RunInfo& run) {
  const Config& cfg = *run.cfg;
  Totals t = totals(run);
  if (cfg.gateway) return summaryGateway(run, t);
  std::vector<double> rttMs = rttMillis(run);
  char buf[1024];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "loadgen: profile %s (%d pps x %d B), %d calls at %.1f cps, %.1f s media%s%s\n"
                "  setup ok %d, failed %d, ICE ok %d, DTLS ok %d, deleted %d\n",
                cfg.profile.name.c_str(), cfg.profile.pps, cfg.profile.payloadBytes, cfg.calls, cfg.cps,
                cfg.durationS, run.interrupted ? " [interrupted]" : "", run.timedOut ? " [overall timeout]" : "",
                t.ok, t.failed, t.ice, t.dtls, t.deleted);
  out += buf;
  std::snprintf(buf, sizeof buf,
                "  setup ms p50 %.1f p95 %.1f max %.1f (ng offer p50 %.2f, answer p50 %.2f, ICE p50 %.1f, DTLS p50 %.1f)\n",
                percentile(t.setup, 50), percentile(t.setup, 95),
                t.setup.empty() ? -1.0 : *std::max_element(t.setup.begin(), t.setup.end()),
                percentile(t.offer, 50), percentile(t.answer, 50), percentile(t.ice_ms, 50), percentile(t.dtls_ms, 50));
  out += buf;
  std::snprintf(buf, sizeof buf,
                "  packets sent %llu, far end rx %llu tx %llu, received %llu, lost (seq gaps) %llu (%.3f %%)\n"
                "  SRTP auth/other errors %llu, SRTP replays %llu, SRTCP errors %llu\n"
                "  echo RTT ms p50 %.3f p95 %.3f p99 %.3f\n",
                static_cast<unsigned long long>(t.sent), static_cast<unsigned long long>(t.farRx),
                static_cast<unsigned long long>(t.farTx), static_cast<unsigned long long>(t.recv),
                static_cast<unsigned long long>(t.lost), pct(t.lost, t.recv + t.lost),
                static_cast<unsigned long long>(t.srtpErr), static_cast<unsigned long long>(t.srtpReplay),
                static_cast<unsigned long long>(t.srtcpErr), percentile(rttMs, 50), percentile(rttMs, 95),
                percentile(rttMs, 99));
  out += buf;
  double gen = run.genCpu.userS + run.genCpu.sysS;
  std::snprintf(buf, sizeof buf, "  generator CPU %.2f s over %.1f s wall (%.1f %% of one core)",
                gen, run.wallS, run.wallS > 0 ? 100 * gen / run.wallS : 0.0);
  out += buf;
  if (run.relayPid && run.relayCpuOk) {
    double relay = run.relayCpu.userS + run.relayCpu.sysS;
    std::snprintf(buf, sizeof buf, "; relay pid %d CPU %.2f s (%.1f %%)", run.relayPid, relay,
                  run.wallS > 0 ? 100 * relay / run.wallS : 0.0);
    out += buf;
  }
  out += "\n";
  // First few failures, so a broken setup is visible without opening the JSON.
  int shown = 0;
  for (const auto& c : run.calls) {
    if (c.setupOk || c.failPhase.empty() || c.failPhase == "not-started" || shown >= 5) continue;
    out += "  call " + std::to_string(c.index) + " failed in " + c.failPhase + ": " + c.error + "\n";
    ++shown;
  }
  return out;
}

}  // namespace lg
