// The ICE-lite side of a leg (RFC 8445 §2.5, as rtpengine's ICE-lite toward browsers): answers the
// full agent's Binding requests that carry our ufrag and are signed with our password, and tells
// which source addresses passed such a check and which one the peer nominated (USE-CANDIDATE).
// STUN encoding is loadgen's (media-relay/loadgen/src/stun.cpp, RFC 5389).
#pragma once
#include <netinet/in.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dc {

struct Addr {
  uint32_t ip = 0;  // host order
  uint16_t port = 0;
  bool operator==(const Addr& o) const { return ip == o.ip && port == o.port; }
  bool empty() const { return port == 0; }
  sockaddr_in sockaddr() const;
  std::string str() const;
  static Addr from(const sockaddr_in& sa);
  static bool parse(const std::string& host, int port, Addr& out);  // IPv4 literal only
};

class IceLite {
 public:
  IceLite(std::string localUfrag, std::string localPwd);
  const std::string& ufrag() const { return ufrag_; }
  const std::string& pwd() const { return pwd_; }

  enum class Result { NotStun, Invalid, Answered };
  // A datagram whose first byte says STUN (RFC 7983): a valid Binding request gets a response in
  // *response; *nominated is set when it carried USE-CANDIDATE.
  Result onStun(const uint8_t* data, size_t len, const Addr& from, std::vector<uint8_t>* response, bool* nominated);
  bool validated(const Addr& a) const;
  std::string lastError() const { return err_; }

 private:
  std::string ufrag_, pwd_, err_;
  std::vector<Addr> validated_;
};

// Random ICE ufrag/pwd characters (RFC 8839 ice-char), n of them.
std::string randomIceString(size_t n);

}  // namespace dc
