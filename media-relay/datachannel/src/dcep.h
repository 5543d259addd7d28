// DCEP, the Data Channel Establishment Protocol (RFC 8832): DATA_CHANNEL_OPEN / DATA_CHANNEL_ACK on
// PPID 50, and the channel parameters both DCEP and SDP's a=dcmap (RFC 8864) describe.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dc {

// SCTP payload protocol identifiers of WebRTC data channels (RFC 8831 §8).
constexpr uint32_t kPpidDcep = 50;
constexpr uint32_t kPpidString = 51;
constexpr uint32_t kPpidBinary = 53;
constexpr uint32_t kPpidStringEmpty = 56;
constexpr uint32_t kPpidBinaryEmpty = 57;

constexpr uint8_t kDcepAck = 0x02;
constexpr uint8_t kDcepOpen = 0x03;

enum class Reliability { Reliable, Rexmit, Timed };

struct ChannelParams {
  std::string label;
  std::string protocol;  // subprotocol
  bool ordered = true;
  Reliability reliability = Reliability::Reliable;
  uint32_t reliabilityParam = 0;  // max retransmissions (Rexmit) or lifetime in ms (Timed)
  uint16_t priority = 256;        // RFC 8832 §5.1 "normal"
  bool operator==(const ChannelParams& o) const {
    return label == o.label && protocol == o.protocol && ordered == o.ordered &&
           reliability == o.reliability && reliabilityParam == o.reliabilityParam && priority == o.priority;
  }
};

// RFC 8832 §5.1 channel type byte of these parameters, and back.
uint8_t channelType(const ChannelParams& p);
std::vector<uint8_t> encodeOpen(const ChannelParams& p);
std::vector<uint8_t> encodeAck();
// A DATA_CHANNEL_OPEN; nullopt (and *err says why) when the message is not a well-formed one.
std::optional<ChannelParams> decodeOpen(const uint8_t* data, size_t len, std::string* err);
bool isAck(const uint8_t* data, size_t len);

}  // namespace dc
