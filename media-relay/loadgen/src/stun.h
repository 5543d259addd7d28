// STUN (RFC 5389) subset for ICE connectivity checks (RFC 8445): Binding request/response,
// USERNAME, PRIORITY, ICE-CONTROLLING/CONTROLLED, USE-CANDIDATE, XOR-MAPPED-ADDRESS,
// MESSAGE-INTEGRITY (HMAC-SHA1, short-term credentials) and FINGERPRINT (CRC-32).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lg::stun {

constexpr uint16_t kBindingRequest = 0x0001;
constexpr uint16_t kBindingSuccess = 0x0101;
constexpr uint16_t kBindingError = 0x0111;
constexpr uint32_t kMagicCookie = 0x2112A442;

constexpr uint16_t kAttrXorMappedAddress = 0x0020;
constexpr uint16_t kAttrUsername = 0x0006;
constexpr uint16_t kAttrMessageIntegrity = 0x0008;
constexpr uint16_t kAttrErrorCode = 0x0009;
constexpr uint16_t kAttrPriority = 0x0024;
constexpr uint16_t kAttrUseCandidate = 0x0025;
constexpr uint16_t kAttrFingerprint = 0x8028;
constexpr uint16_t kAttrIceControlled = 0x8029;
constexpr uint16_t kAttrIceControlling = 0x802A;

using TxId = std::array<uint8_t, 12>;

struct Attr {
  uint16_t type;
  std::string value;
};

// Builder: add attributes, then finish() appends MESSAGE-INTEGRITY (if key non-empty) and FINGERPRINT.
class Builder {
 public:
  Builder(uint16_t type, const TxId& tx);
  void add(uint16_t type, const std::string& value);
  void addU32(uint16_t type, uint32_t v);
  void addU64(uint16_t type, uint64_t v);
  void addXorMappedV4(uint32_t ipHostOrder, uint16_t port);
  std::vector<uint8_t> finish(const std::string& integrityKey, bool fingerprint = true);

 private:
  void setLength(size_t len);
  std::vector<uint8_t> buf_;
};

struct Message {
  uint16_t type = 0;
  TxId tx{};
  std::vector<Attr> attrs;
  size_t integrityOffset = 0;    // offset of the MESSAGE-INTEGRITY attribute header, 0 = absent
  size_t fingerprintOffset = 0;  // offset of the FINGERPRINT attribute header, 0 = absent
  const Attr* get(uint16_t t) const;
};

// Parses the header and attributes; checks length and magic cookie only.
std::optional<Message> parse(const uint8_t* data, size_t len);
// True when MESSAGE-INTEGRITY is present and matches HMAC-SHA1(key) over the message up to it.
bool checkIntegrity(const uint8_t* data, size_t len, const Message& m, const std::string& key);
// True when FINGERPRINT is present and equals CRC32(message up to it) ^ 0x5354554e.
bool checkFingerprint(const uint8_t* data, size_t len, const Message& m);
bool decodeXorMappedV4(const Message& m, uint32_t& ipHostOrder, uint16_t& port);

// An ICE connectivity check (Binding request) from the agent with local ufrag to the peer: USERNAME
// "peerUfrag:localUfrag", PRIORITY, and either ICE-CONTROLLING + USE-CANDIDATE (the controlling agent
// nominates aggressively: one pair only) or ICE-CONTROLLED alone; integrity keyed with the peer's pwd.
std::vector<uint8_t> buildCheck(const TxId& tx, const std::string& peerUfrag, const std::string& localUfrag,
                                const std::string& peerPwd, uint32_t priority, bool controlling, uint64_t tieBreaker);

uint32_t crc32(const uint8_t* data, size_t len);
TxId randomTxId();

}  // namespace lg::stun
