// Aggregates per-call results into the JSON report (--json) and the stdout summary.
#pragma once
#include <string>
#include <vector>

#include "config.h"

namespace lg {

struct CpuSample {
  double userS = 0, sysS = 0;
};
CpuSample selfCpu();                          // getrusage(RUSAGE_SELF): all threads
bool procCpu(int pid, CpuSample& out);        // /proc/<pid>/stat utime+stime

// Nearest-rank percentile (p in 0..100) of an unsorted copy; -1 when empty.
double percentile(std::vector<double> v, double p);

struct RunInfo {
  const Config* cfg = nullptr;
  std::vector<CallResult> calls;
  std::vector<float> rttUs;
  double wallS = 0;
  CpuSample genCpu;
  int relayPid = 0;
  bool relayCpuOk = false;
  CpuSample relayCpu;         // delta over the run
  bool interrupted = false, timedOut = false;
  long long ngRetransmits = 0;
  // gateway mode
  uint64_t gwWsIn = 0, gwWsOut = 0, gwPings = 0, gwUnmatched = 0, gwBad = 0;
  std::string gwClosed;   // why the WebSocket closed during the run ("" = it stayed open)
  std::string gwLogout;   // "ok" | "HTTP <status>" | "failed: ..."
  uint64_t incoming = 0, rejected = 0;  // --answer: incoming calls answered / refused
  // --access sip-ws: SIP requests sent (each with the Bearer token), SIP messages received, the eP-CSCF's URL
  uint64_t sipRequestsOut = 0, sipMessagesIn = 0, sipTokenRefreshes = 0;
  std::string sipRefreshError;  // the last failed token or registration refresh ("" = none)
  std::string pcscfWs;
};

std::string reportJson(const RunInfo& run);
std::string summaryText(const RunInfo& run);

}  // namespace lg
