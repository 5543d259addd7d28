#include "report.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "percentiles.h"

namespace dm {
namespace {

const Direction kDirections[] = {Direction::ToIms, Direction::ToBrowser};

// ns -> ms with microsecond resolution (the capture gives ns; sub-µs digits are noise on a host).
std::string ms(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1e6);
  return buf;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::string lossPct(const StreamStats& s) {
  uint64_t sent = s.matched + s.lost;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", sent ? 100.0 * double(s.lost) / double(sent) : 0.0);
  return buf;
}

std::string jsonEscape(const std::string& in) {
  std::string out;
  for (char c : in) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

void jsonStats(std::ostream& os, const StreamStats& s, const std::string& indent) {
  DelaySummary d = summarize(s.delays_ns);
  os << indent << "\"matched\": " << s.matched << ", \"lost\": " << s.lost << ", \"loss_pct\": " << lossPct(s)
     << ", \"duplicates\": " << s.duplicates << ", \"reordered\": " << s.reordered
     << ", \"reordered_in\": " << s.reordered_in << ", \"unmatched_out\": " << s.unmatched_out
     << ", \"ts_mismatch\": " << s.ts_mismatch << ", \"seq_shift\": " << s.seq_shift << ", \"held_at_end\": " << s.held_at_end << ", \"in_flight_at_end\": " << s.in_flight_at_end << ",\n";
  os << indent << "\"delay_ms\": ";
  if (d.count == 0) {
    os << "{\"p50\": null, \"p95\": null, \"p99\": null, \"max\": null, \"mean\": null, \"min\": null}";
  } else {
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.3f", d.mean / 1e6);
    os << "{\"p50\": " << ms(d.p50) << ", \"p95\": " << ms(d.p95) << ", \"p99\": " << ms(d.p99)
       << ", \"max\": " << ms(d.max) << ", \"mean\": " << mean << ", \"min\": " << ms(d.min) << "}";
  }
}

void tableRow(std::ostream& os, const std::string& label, const StreamStats& s) {
  DelaySummary d = summarize(s.delays_ns);
  char line[256];
  auto f = [&](int64_t v) { return d.count ? ms(v) : std::string("-"); };
  std::string mean = "-";
  if (d.count) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", d.mean / 1e6);
    mean = buf;
  }
  std::snprintf(line, sizeof line, "%-24s %8llu %6llu %7s %5llu %7llu %9s %9s %9s %9s %9s\n", label.c_str(),
                (unsigned long long)s.matched, (unsigned long long)s.lost, lossPct(s).c_str(),
                (unsigned long long)s.duplicates, (unsigned long long)s.reordered, f(d.p50).c_str(),
                f(d.p95).c_str(), f(d.p99).c_str(), f(d.max).c_str(), mean.c_str());
  os << line;
}

}  // namespace

void writeJson(std::ostream& os, const ReportContext& ctx, const MatchResult& r) {
  const CaptureCounters& c = ctx.counters;
  os << "{\n  \"tool\": \"delaymeter\",\n  \"source\": \"" << jsonEscape(ctx.source) << "\",\n"
     << "  \"link_type\": \"" << jsonEscape(ctx.link_type) << "\",\n"
     << "  \"percentile_method\": \"nearest-rank\",\n"
     << "  \"packets\": {\"frames\": " << ctx.frames << ", \"udp\": " << c.udp << ", \"not_relay\": " << c.not_relay
     << ", \"not_rtp\": " << c.not_rtp << ", \"rtp_in\": " << c.rtp_in << ", \"rtp_out\": " << c.rtp_out << "},\n";
  // How packets were paired: by (SSRC, seq), the SSRC mapped back where the relay re-encoded.
  os << "  \"pairing\": {\"key\": \"" << (r.clock_mapped ? "ssrc+seq; transcoded: ssrc+timestamp" : "ssrc+seq")
     << "\", \"call_ports\": " << (ctx.call_ports ? "true" : "false") << ", \"timestamp_paired_streams\": " << r.clock_mapped
     << ", \"ambiguous_legs\": " << r.ssrc_map.ambiguous << ", \"ssrc_map\": [";
  for (size_t k = 0; k < r.ssrc_map.entries.size(); ++k) {
    const SsrcMapEntry& e = r.ssrc_map.entries[k];
    os << (k ? ", " : "") << "{\"in\": \"" << hex32(e.in_ssrc) << "\", \"out\": \"" << hex32(e.out_ssrc)
       << "\", \"in_port\": " << e.in_port << ", \"out_port\": " << e.out_port << "}";
  }
  os << "]},\n  \"directions\": {\n";
  bool first_dir = true;
  for (Direction dir : kDirections) {
    os << (first_dir ? "" : ",\n") << "    \"" << directionName(dir) << "\": {\n";
    first_dir = false;
    jsonStats(os, r.total(dir), "      ");
    os << ",\n      \"ssrcs\": [";
    bool first = true;
    for (const auto& [key, s] : r.streams) {
      if (key.dir != dir) continue;
      os << (first ? "\n" : ",\n") << "        {\"ssrc\": \"" << hex32(key.ssrc) << "\",\n";
      first = false;
      jsonStats(os, s, "         ");
      os << "}";
    }
    os << (first ? "]" : "\n      ]") << "\n    }";
  }
  os << "\n  }\n}\n";
}

void writeTable(std::ostream& os, const ReportContext& ctx, const MatchResult& r) {
  const CaptureCounters& c = ctx.counters;
  os << "delaymeter: " << ctx.source << " (" << ctx.link_type << "), " << ctx.frames << " frames, " << c.udp
     << " UDP, RTP in/out " << c.rtp_in << "/" << c.rtp_out << ", skipped " << c.not_rtp << " non-RTP + "
     << c.not_relay << " off-relay\n";
  char head[256];
  std::snprintf(head, sizeof head, "%-24s %8s %6s %7s %5s %7s %9s %9s %9s %9s %9s\n", "direction / ssrc", "matched",
                "lost", "loss%", "dup", "reorder", "p50 ms", "p95 ms", "p99 ms", "max ms", "mean ms");
  os << head;
  for (Direction dir : kDirections) {
    tableRow(os, directionName(dir), r.total(dir));
    for (const auto& [key, s] : r.streams)
      if (key.dir == dir) tableRow(os, "  ssrc " + hex32(key.ssrc), s);
  }
  os << "percentiles: nearest-rank; delay = t_out - t_in of the same (SSRC, seq) on the relay's ports\n";
  if (r.clock_mapped)
    os << "transcoded: " << r.clock_mapped << " re-encoded stream(s) paired by (mapped SSRC, RTP timestamp)\n";
}

bool writeCsv(const std::string& path, const MatchResult& r, std::string& error) {
  std::ofstream out(path);
  if (!out) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  out << "t_in,direction,ssrc,seq,delay_us\n";
  char line[128];
  for (const PacketDelay& p : r.packets) {
    std::snprintf(line, sizeof line, "%lld.%09lld,%s,%s,%u,%lld.%03lld\n", (long long)(p.t_in_ns / 1000000000),
                  (long long)(p.t_in_ns % 1000000000), directionName(p.dir), hex32(p.ssrc).c_str(), p.seq,
                  (long long)(p.delay_ns / 1000), (long long)(p.delay_ns % 1000));
    out << line;
  }
  out.flush();
  if (!out) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace dm
