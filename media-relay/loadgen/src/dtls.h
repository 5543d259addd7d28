// DTLS-SRTP (RFC 5763/5764) over a socket owned by the caller. The handshake is driven by the one
// epoll loop: received datagrams go in through a memory BIO, and records go out through a tiny
// datagram BIO whose write callback sends each record as its own UDP datagram (a plain memory BIO
// would merge a flight's datagrams and lose their boundaries).
#pragma once
#include <openssl/ssl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace lg {

// Shared per process: the self-signed EC P-256 certificate and the SSL_CTX.
class DtlsContext {
 public:
  static std::unique_ptr<DtlsContext> create(std::string* err);
  ~DtlsContext();
  SSL_CTX* ctx() const { return ctx_; }
  const std::string& fingerprint() const { return fingerprint_; }  // sha-256, "AB:CD:..."

 private:
  SSL_CTX* ctx_ = nullptr;
  std::string fingerprint_;
};

// "AB:CD:.." digest of a certificate with the named hash (sha-1, sha-256, ...); "" if unknown hash.
std::string certFingerprint(X509* cert, const std::string& hashName);

struct SrtpKeys {
  uint8_t local[30];   // our sending key||salt (AES-128 key 16 + salt 14)
  uint8_t remote[30];  // peer's sending key||salt
};

class DtlsSession {
 public:
  using SendFn = std::function<void(const uint8_t*, size_t)>;
  enum class State { Idle, Handshaking, Done, Failed };

  DtlsSession(const DtlsContext& ctx, bool isServer, SendFn send);
  ~DtlsSession();
  DtlsSession(const DtlsSession&) = delete;
  DtlsSession& operator=(const DtlsSession&) = delete;

  void start();                                  // client sends ClientHello; server waits
  void onDatagram(const uint8_t* data, size_t len);
  void onTimer();                                // retransmits the flight when OpenSSL's timer expired
  State state() const { return state_; }
  bool isServer() const { return isServer_; }
  const std::string& error() const { return error_; }

  // After Done: checks the peer certificate against the SDP fingerprint and exports SRTP keys.
  bool verifyPeer(const std::string& hashName, const std::string& fingerprint);
  bool exportKeys(SrtpKeys& keys);

 private:
  void drive();
  void fail(const std::string& why);

  SSL* ssl_ = nullptr;
  BIO* rbio_ = nullptr;
  bool isServer_;
  State state_ = State::Idle;
  std::string error_;
  SendFn send_;
  friend int dtlsBioWrite(BIO*, const char*, int);
};

}  // namespace lg
