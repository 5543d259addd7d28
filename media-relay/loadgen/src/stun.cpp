#include "stun.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstring>

namespace lg::stun {

namespace {
void put16(std::vector<uint8_t>& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v >> 8));
  b.push_back(static_cast<uint8_t>(v));
}
void put32(std::vector<uint8_t>& b, uint32_t v) {
  put16(b, static_cast<uint16_t>(v >> 16));
  put16(b, static_cast<uint16_t>(v));
}
uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
uint32_t get32(const uint8_t* p) { return static_cast<uint32_t>(get16(p)) << 16 | get16(p + 2); }

void hmacSha1(const std::string& key, const uint8_t* data, size_t len, uint8_t out[20]) {
  unsigned int outLen = 20;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), data, len, out, &outLen);
}
}  // namespace

uint32_t crc32(const uint8_t* data, size_t len) {
  // Table-driven CRC-32 (ISO-HDLC), as STUN FINGERPRINT requires; table built once.
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < len; ++i) c = table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

TxId randomTxId() {
  TxId tx;
  RAND_bytes(tx.data(), static_cast<int>(tx.size()));
  return tx;
}

Builder::Builder(uint16_t type, const TxId& tx) {
  put16(buf_, type);
  put16(buf_, 0);
  put32(buf_, kMagicCookie);
  buf_.insert(buf_.end(), tx.begin(), tx.end());
}

void Builder::add(uint16_t type, const std::string& value) {
  put16(buf_, type);
  put16(buf_, static_cast<uint16_t>(value.size()));
  buf_.insert(buf_.end(), value.begin(), value.end());
  while (buf_.size() % 4) buf_.push_back(0);
}

void Builder::addU32(uint16_t type, uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[i] = static_cast<char>(v >> (24 - 8 * i));
  add(type, s);
}

void Builder::addU64(uint16_t type, uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(v >> (56 - 8 * i));
  add(type, s);
}

void Builder::addXorMappedV4(uint32_t ip, uint16_t port) {
  std::string s(8, '\0');
  uint16_t xport = port ^ static_cast<uint16_t>(kMagicCookie >> 16);
  uint32_t xip = ip ^ kMagicCookie;
  s[1] = 0x01;  // family IPv4
  s[2] = static_cast<char>(xport >> 8);
  s[3] = static_cast<char>(xport);
  for (int i = 0; i < 4; ++i) s[4 + i] = static_cast<char>(xip >> (24 - 8 * i));
  add(kAttrXorMappedAddress, s);
}

void Builder::setLength(size_t len) {
  buf_[2] = static_cast<uint8_t>(len >> 8);
  buf_[3] = static_cast<uint8_t>(len);
}

std::vector<uint8_t> Builder::finish(const std::string& key, bool fingerprint) {
  if (!key.empty()) {
    // The length field must already count MESSAGE-INTEGRITY (24 bytes) when the HMAC is computed.
    setLength(buf_.size() - 20 + 24);
    uint8_t mac[20];
    hmacSha1(key, buf_.data(), buf_.size(), mac);
    add(kAttrMessageIntegrity, std::string(reinterpret_cast<char*>(mac), 20));
  }
  if (fingerprint) {
    setLength(buf_.size() - 20 + 8);
    addU32(kAttrFingerprint, crc32(buf_.data(), buf_.size()) ^ 0x5354554e);
  }
  setLength(buf_.size() - 20);
  return buf_;
}

const Attr* Message::get(uint16_t t) const {
  for (const auto& a : attrs)
    if (a.type == t) return &a;
  return nullptr;
}

std::optional<Message> parse(const uint8_t* d, size_t len) {
  if (len < 20 || (d[0] & 0xC0) != 0) return std::nullopt;
  size_t bodyLen = get16(d + 2);
  if (bodyLen % 4 || 20 + bodyLen != len || get32(d + 4) != kMagicCookie) return std::nullopt;
  Message m;
  m.type = get16(d);
  std::memcpy(m.tx.data(), d + 8, 12);
  size_t pos = 20;
  while (pos + 4 <= len) {
    uint16_t t = get16(d + pos);
    size_t alen = get16(d + pos + 2);
    if (pos + 4 + alen > len) return std::nullopt;
    if (t == kAttrMessageIntegrity) m.integrityOffset = pos;
    if (t == kAttrFingerprint) m.fingerprintOffset = pos;
    // Attributes after MESSAGE-INTEGRITY (other than FINGERPRINT) must be ignored (RFC 5389 15.4).
    if (!m.integrityOffset || t == kAttrMessageIntegrity || t == kAttrFingerprint)
      m.attrs.push_back({t, std::string(reinterpret_cast<const char*>(d + pos + 4), alen)});
    pos += 4 + ((alen + 3) & ~size_t{3});
  }
  if (pos != len) return std::nullopt;
  return m;
}

bool checkIntegrity(const uint8_t* d, size_t len, const Message& m, const std::string& key) {
  if (!m.integrityOffset || m.integrityOffset + 24 > len) return false;
  // Hash the prefix with the length field rewritten to end just after MESSAGE-INTEGRITY.
  std::vector<uint8_t> copy(d, d + m.integrityOffset);
  size_t fakeLen = m.integrityOffset - 20 + 24;
  copy[2] = static_cast<uint8_t>(fakeLen >> 8);
  copy[3] = static_cast<uint8_t>(fakeLen);
  uint8_t mac[20];
  hmacSha1(key, copy.data(), copy.size(), mac);
  return CRYPTO_memcmp(mac, d + m.integrityOffset + 4, 20) == 0;
}

bool checkFingerprint(const uint8_t* d, size_t len, const Message& m) {
  if (!m.fingerprintOffset || m.fingerprintOffset + 8 != len) return false;
  uint32_t want = get32(d + m.fingerprintOffset + 4);
  return (crc32(d, m.fingerprintOffset) ^ 0x5354554e) == want;
}

bool decodeXorMappedV4(const Message& m, uint32_t& ip, uint16_t& port) {
  const Attr* a = m.get(kAttrXorMappedAddress);
  if (!a || a->value.size() < 8 || a->value[1] != 0x01) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(a->value.data());
  port = get16(p + 2) ^ static_cast<uint16_t>(kMagicCookie >> 16);
  ip = get32(p + 4) ^ kMagicCookie;
  return true;
}

std::vector<uint8_t> buildCheck(const TxId& tx, const std::string& peerUfrag, const std::string& localUfrag,
                                const std::string& peerPwd, uint32_t priority, bool controlling, uint64_t tieBreaker) {
  Builder b(kBindingRequest, tx);
  b.add(kAttrUsername, peerUfrag + ":" + localUfrag);
  b.addU32(kAttrPriority, priority);
  if (controlling) {
    b.addU64(kAttrIceControlling, tieBreaker);
    b.add(kAttrUseCandidate, "");
  } else {
    b.addU64(kAttrIceControlled, tieBreaker);
  }
  return b.finish(peerPwd);
}

}  // namespace lg::stun
