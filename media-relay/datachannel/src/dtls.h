// DTLS (RFC 6347, 1.2) carrying SCTP (RFC 8261) on one leg, with OpenSSL: datagrams from the socket
// go in through a memory BIO; records go out through a datagram BIO whose write callback sends each
// record as its own UDP datagram (as loadgen's DTLS-SRTP does, media-relay/loadgen/src/dtls.cpp).
// The use_srtp extension is negotiated (some peers' DTLS fails without it) but no SRTP key is derived.
#pragma once
#include <openssl/ssl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace dc {

// One per process: the self-signed EC P-256 certificate both legs present, and the SSL_CTX.
class DtlsContext {
 public:
  static std::unique_ptr<DtlsContext> create(std::string* err);
  ~DtlsContext();
  SSL_CTX* ctx() const { return ctx_; }
  const std::string& fingerprint() const { return fingerprint_; }  // sha-256 "AB:CD:..."

 private:
  SSL_CTX* ctx_ = nullptr;
  std::string fingerprint_;
};

std::string certFingerprint(X509* cert, const std::string& hashName);

class DtlsTransport {
 public:
  using SendFn = std::function<void(const uint8_t*, size_t)>;
  using DataFn = std::function<void(const uint8_t*, size_t)>;
  enum class State { Idle, Handshaking, Done, Failed, Closed };

  DtlsTransport(const DtlsContext& ctx, bool client, SendFn send, DataFn onData);
  ~DtlsTransport();
  DtlsTransport(const DtlsTransport&) = delete;
  DtlsTransport& operator=(const DtlsTransport&) = delete;

  void start();  // the client sends its ClientHello; the server waits for one
  void onDatagram(const uint8_t* data, size_t len);
  void onTimer();  // retransmits the flight when OpenSSL's timer expired
  bool send(const uint8_t* data, size_t len);  // one application record (an SCTP packet)
  // After Done: the peer's certificate must match the SDP fingerprint (RFC 8122).
  bool verifyPeer(const std::string& hashName, const std::string& fingerprint);
  void close();  // close_notify

  State state() const { return state_; }
  bool client() const { return client_; }
  const std::string& error() const { return error_; }

 private:
  void drive();
  void readRecords();
  void fail(const std::string& why);

  SSL* ssl_ = nullptr;
  BIO* rbio_ = nullptr;
  bool client_;
  State state_ = State::Idle;
  std::string error_;
  SendFn send_;
  DataFn onData_;
  friend int dcBioWrite(BIO*, const char*, int);
};

}  // namespace dc
