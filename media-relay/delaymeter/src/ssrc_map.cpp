#include "ssrc_map.h"

#include <fstream>
#include <sstream>
#include <unordered_map>

namespace dm {

namespace {
// SSRCs per relay port in order of first appearance.
using PortSsrcs = std::unordered_map<uint16_t, std::vector<uint32_t>>;

void note(PortSsrcs& m, uint16_t port, uint32_t ssrc) {
  auto& v = m[port];
  for (uint32_t s : v)
    if (s == ssrc) return;
  v.push_back(ssrc);
}

void mapLeg(const PortSsrcs& in, const PortSsrcs& out, uint16_t in_port, uint16_t out_port, SsrcMap& r) {
  auto i = in.find(in_port);
  auto o = out.find(out_port);
  if (i == in.end() || o == out.end()) return;  // nothing flowed on this leg
  if (i->second.size() != o->second.size()) {
    r.ambiguous++;
    return;
  }
  for (size_t k = 0; k < i->second.size(); ++k) {
    uint32_t a = i->second[k], b = o->second[k];
    if (a == b) continue;  // forwarded unchanged
    r.entries.push_back({a, b, in_port, out_port});
    r.out_to_in[b] = a;
  }
}
}  // namespace

SsrcMap deriveSsrcMap(const std::vector<RtpObservation>& obs, const std::vector<CallPorts>& calls) {
  PortSsrcs in, out;
  for (const RtpObservation& o : obs) {
    if (o.role == Role::In) note(in, o.relay_port, o.ssrc);
    else if (o.role == Role::Out) note(out, o.relay_port, o.ssrc);
  }
  SsrcMap r;
  for (const CallPorts& c : calls) {
    mapLeg(in, out, c.browser_side, c.ims_side, r);  // browser -> IMS
    mapLeg(in, out, c.ims_side, c.browser_side, r);  // IMS -> browser
  }
  return r;
}

bool readCallPorts(const std::string& path, std::vector<CallPorts>& out, std::string& error) {
  std::ifstream f(path);
  if (!f) {
    error = "--call-ports: cannot read " + path;
    return false;
  }
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    unsigned b = 0, i = 0;
    std::string extra;
    if (!(s >> b >> i) || (s >> extra) || b == 0 || i == 0 || b > 65535 || i > 65535) {
      error = "--call-ports: " + path + ":" + std::to_string(n) + ": expected 'BROWSER_PORT IMS_PORT'";
      return false;
    }
    out.push_back({uint16_t(b), uint16_t(i)});
  }
  return true;
}

}  // namespace dm
