#include "ice_lite.h"

#include <arpa/inet.h>
#include <openssl/rand.h>

#include "stun.h"

namespace dc {

sockaddr_in Addr::sockaddr() const {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(ip);
  sa.sin_port = htons(port);
  return sa;
}

std::string Addr::str() const {
  in_addr a{htonl(ip)};
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a, buf, sizeof buf);
  return std::string(buf) + ":" + std::to_string(port);
}

Addr Addr::from(const sockaddr_in& sa) { return Addr{ntohl(sa.sin_addr.s_addr), ntohs(sa.sin_port)}; }

bool Addr::parse(const std::string& host, int port, Addr& out) {
  in_addr a{};
  if (port <= 0 || port > 65535 || inet_pton(AF_INET, host.c_str(), &a) != 1) return false;
  out = Addr{ntohl(a.s_addr), static_cast<uint16_t>(port)};
  return true;
}

IceLite::IceLite(std::string localUfrag, std::string localPwd) : ufrag_(std::move(localUfrag)), pwd_(std::move(localPwd)) {}

IceLite::Result IceLite::onStun(const uint8_t* data, size_t len, const Addr& from, std::vector<uint8_t>* response,
                                bool* nominated) {
  using namespace lg::stun;
  *nominated = false;
  auto m = parse(data, len);
  if (!m) return Result::NotStun;
  if (m->type != kBindingRequest) {
    err_ = "not a Binding request";
    return Result::Invalid;
  }
  const Attr* user = m->get(kAttrUsername);
  if (!user || user->value.rfind(ufrag_ + ":", 0) != 0) {
    err_ = "USERNAME is not ours";
    return Result::Invalid;
  }
  if (!checkIntegrity(data, len, *m, pwd_) || (m->fingerprintOffset && !checkFingerprint(data, len, *m))) {
    err_ = "MESSAGE-INTEGRITY or FINGERPRINT does not match";
    return Result::Invalid;
  }
  *nominated = m->get(kAttrUseCandidate) != nullptr;
  bool known = false;
  for (const auto& a : validated_) known = known || a == from;
  if (!known && validated_.size() < 16) validated_.push_back(from);
  Builder b(kBindingSuccess, m->tx);
  b.addXorMappedV4(from.ip, from.port);
  *response = b.finish(pwd_);
  return Result::Answered;
}

bool IceLite::validated(const Addr& a) const {
  for (const auto& v : validated_)
    if (v == a) return true;
  return false;
}

std::string randomIceString(size_t n) {
  static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<unsigned char> r(n);
  RAND_bytes(r.data(), static_cast<int>(n));
  std::string s;
  for (auto c : r) s += kChars[c % 64];
  return s;
}

}  // namespace dc
