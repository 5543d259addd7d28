// What loadgen's DTLS-SRTP sessions (dtls.h) and the data-channel endpoint's DTLS transports
// (media-relay/datachannel/src/dtls.h) share: the process's self-signed certificate and SSL_CTX, and
// one connection's OpenSSL plumbing. The handshake is driven by the caller's epoll loop: received
// datagrams go in through a memory BIO, and records go out through a tiny datagram BIO whose write
// callback sends each record as its own UDP datagram (a plain memory BIO would merge a flight's
// datagrams and lose their boundaries).
#pragma once
#include <openssl/ssl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace lg {

// Shared per process: the self-signed EC P-256 certificate and the SSL_CTX (DTLS 1.2 or later, the
// peer's certificate required but checked against the SDP fingerprint, not a CA).
class DtlsContext {
 public:
  // certName: the certificate's CN. srtpProfiles: the use_srtp (RFC 5764) profiles offered, in
  // OpenSSL's "A:B" form of preference. nullptr and *err on failure.
  static std::unique_ptr<DtlsContext> create(const std::string& certName, const std::string& srtpProfiles,
                                             std::string* err);
  ~DtlsContext();
  DtlsContext(const DtlsContext&) = delete;
  DtlsContext& operator=(const DtlsContext&) = delete;
  SSL_CTX* ctx() const { return ctx_; }
  const std::string& fingerprint() const { return fingerprint_; }  // sha-256, "AB:CD:..."

 private:
  DtlsContext() = default;
  SSL_CTX* ctx_ = nullptr;
  std::string fingerprint_;
};

// "AB:CD:.." digest of a certificate with the named hash (sha-1, sha-256, ...); "" if unknown hash.
std::string certFingerprint(X509* cert, const std::string& hashName);

// The oldest queued OpenSSL error as text (and the queue cleared).
std::string opensslError();

// One DTLS connection's SSL with its two BIOs (MTU 1200). Not movable: the write BIO points at it.
class DtlsLink {
 public:
  using SendFn = std::function<void(const uint8_t*, size_t)>;
  enum class Step { Pending, Done, Failed };

  DtlsLink(const DtlsContext& ctx, bool client, SendFn send);
  ~DtlsLink();
  DtlsLink(const DtlsLink&) = delete;
  DtlsLink& operator=(const DtlsLink&) = delete;

  SSL* ssl() const { return ssl_; }
  void feed(const uint8_t* data, size_t len);  // one received datagram, for the next SSL_* call
  void discardUnread();                        // drops what OpenSSL left of the received datagrams
  Step handshake(std::string* err);            // one SSL_do_handshake step; err says why on Failed
  void onTimer() { DTLSv1_handle_timeout(ssl_); }  // retransmits the flight when OpenSSL's timer expired
  // After the handshake: does the peer's certificate match the SDP fingerprint (RFC 8122)?
  bool peerMatches(const std::string& hashName, const std::string& fingerprint) const;

 private:
  friend int dtlsLinkWrite(BIO*, const char*, int);
  SSL* ssl_ = nullptr;
  BIO* rbio_ = nullptr;
  SendFn send_;
};

}  // namespace lg
