// Output: JSON (machine), a text table (human) and per-packet CSV (plots).
#pragma once
#include <ostream>
#include <string>

#include "analyzer.h"
#include "matcher.h"

namespace dm {

struct ReportContext {
  std::string source;     // file path or "live:IFACE"
  std::string link_type;  // libpcap's DLT name
  uint64_t frames = 0;
  CaptureCounters counters;
  bool call_ports = false;  // --call-ports given (transcoded streams paired through the SSRC map)
};

void writeJson(std::ostream& os, const ReportContext& ctx, const MatchResult& r);
void writeTable(std::ostream& os, const ReportContext& ctx, const MatchResult& r);
// Columns: t_in (s since epoch, ns digits), direction, ssrc (hex), seq, delay_us (ns digits).
bool writeCsv(const std::string& path, const MatchResult& r, std::string& error);

}  // namespace dm
