#include "channel_map.h"

namespace dc {

const char* sideName(Side s) { return s == kBrowser ? "browser" : "ims"; }

bool ChannelMap::addNegotiated(uint16_t id, const ChannelParams& p) {
  if (id >= kMaxStreams || routes_[kBrowser].count(id) || routes_[kIms].count(id)) return false;
  routes_[kBrowser][id] = Route{kIms, id, p, true, true};
  routes_[kIms][id] = Route{kBrowser, id, p, true, true};
  return true;
}

std::optional<uint16_t> ChannelMap::openFromPeer(Side from, uint16_t sid, const ChannelParams& p, std::string* err) {
  auto bad = [&](const std::string& why) -> std::optional<uint16_t> {
    if (err) *err = why;
    return std::nullopt;
  };
  Side to = other(from);
  if (sid >= kMaxStreams) return bad("stream " + std::to_string(sid) + " is beyond the endpoint's " + std::to_string(kMaxStreams) + " streams");
  if (routes_[from].count(sid)) return bad("stream " + std::to_string(sid) + " on the " + sideName(from) + " leg is already open");
  if (!roleKnown_[to]) return bad(std::string("the ") + sideName(to) + " leg's DTLS role is not known yet");
  for (uint16_t id = dtlsClient_[to] ? 0 : 1; id < kMaxStreams; id += 2) {
    if (routes_[to].count(id)) continue;
    // relaying from->to sends on the stream we open with DCEP: ordered until its ACK (§6.6);
    // relaying to->from sends on the stream the peer opened, settled by our own ACK
    routes_[from][sid] = Route{to, id, p, false, false};
    routes_[to][id] = Route{from, sid, p, false, true};
    return id;
  }
  return bad(std::string("no free stream id on the ") + sideName(to) + " leg");
}

const Route* ChannelMap::route(Side from, uint16_t sid) const {
  auto it = routes_[from].find(sid);
  return it == routes_[from].end() ? nullptr : &it->second;
}

void ChannelMap::markAcked(Side at, uint16_t sid) {
  // the ACK settles sending on (at, sid): the route that ends there starts at the other end
  auto it = routes_[at].find(sid);
  if (it == routes_[at].end()) return;
  auto back = routes_[it->second.to].find(it->second.sid);
  if (back != routes_[it->second.to].end()) back->second.acked = true;
}

std::optional<std::pair<Side, uint16_t>> ChannelMap::close(Side from, uint16_t sid) {
  auto it = routes_[from].find(sid);
  if (it == routes_[from].end()) return std::nullopt;
  std::pair<Side, uint16_t> far{it->second.to, it->second.sid};
  routes_[from].erase(it);
  routes_[far.first].erase(far.second);
  return far;
}

std::vector<std::pair<uint16_t, Route>> ChannelMap::list(Side from) const {
  return {routes_[from].begin(), routes_[from].end()};
}

}  // namespace dc
