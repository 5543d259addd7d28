#include "dcep.h"

namespace dc {

namespace {
constexpr uint8_t kUnorderedBit = 0x80;
constexpr uint8_t kTypeReliable = 0x00, kTypeRexmit = 0x01, kTypeTimed = 0x02;
void put16(std::vector<uint8_t>& b, uint16_t v) { b.push_back(v >> 8); b.push_back(v & 0xff); }
void put32(std::vector<uint8_t>& b, uint32_t v) { put16(b, v >> 16); put16(b, v & 0xffff); }
uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
uint32_t get32(const uint8_t* p) { return static_cast<uint32_t>(get16(p)) << 16 | get16(p + 2); }
}  // namespace

uint8_t channelType(const ChannelParams& p) {
  uint8_t t = p.reliability == Reliability::Rexmit ? kTypeRexmit
              : p.reliability == Reliability::Timed ? kTypeTimed : kTypeReliable;
  return p.ordered ? t : static_cast<uint8_t>(t | kUnorderedBit);
}

std::vector<uint8_t> encodeOpen(const ChannelParams& p) {
  std::vector<uint8_t> b;
  b.push_back(kDcepOpen);
  b.push_back(channelType(p));
  put16(b, p.priority);
  put32(b, p.reliability == Reliability::Reliable ? 0 : p.reliabilityParam);
  put16(b, static_cast<uint16_t>(p.label.size()));
  put16(b, static_cast<uint16_t>(p.protocol.size()));
  b.insert(b.end(), p.label.begin(), p.label.end());
  b.insert(b.end(), p.protocol.begin(), p.protocol.end());
  return b;
}

std::vector<uint8_t> encodeAck() { return {kDcepAck}; }

std::optional<ChannelParams> decodeOpen(const uint8_t* d, size_t len, std::string* err) {
  auto bad = [&](const char* why) -> std::optional<ChannelParams> {
    if (err) *err = why;
    return std::nullopt;
  };
  if (len < 12) return bad("DATA_CHANNEL_OPEN shorter than its 12-byte header");
  if (d[0] != kDcepOpen) return bad("not a DATA_CHANNEL_OPEN (message type is not 0x03)");
  uint8_t type = d[1];
  ChannelParams p;
  p.ordered = !(type & kUnorderedBit);
  switch (type & ~kUnorderedBit) {
    case kTypeReliable: p.reliability = Reliability::Reliable; break;
    case kTypeRexmit: p.reliability = Reliability::Rexmit; break;
    case kTypeTimed: p.reliability = Reliability::Timed; break;
    default: return bad("DATA_CHANNEL_OPEN with an unknown channel type");
  }
  p.priority = get16(d + 2);
  p.reliabilityParam = p.reliability == Reliability::Reliable ? 0 : get32(d + 4);
  size_t labelLen = get16(d + 8), protoLen = get16(d + 10);
  if (12 + labelLen + protoLen != len) return bad("DATA_CHANNEL_OPEN label/protocol lengths do not match its size");
  p.label.assign(reinterpret_cast<const char*>(d + 12), labelLen);
  p.protocol.assign(reinterpret_cast<const char*>(d + 12 + labelLen), protoLen);
  return p;
}

bool isAck(const uint8_t* data, size_t len) { return len >= 1 && data[0] == kDcepAck; }

}  // namespace dc
