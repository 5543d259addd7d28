#include "dtls.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include <cstdio>
#include <cstring>
#include <strings.h>

namespace lg {

int dtlsBioWrite(BIO* b, const char* data, int len);

namespace {

constexpr int kMtu = 1200;

std::string opensslError() {
  unsigned long e = ERR_get_error();
  if (!e) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

long bioCtrl(BIO*, int cmd, long, void*) {
  switch (cmd) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_DGRAM_QUERY_MTU: return kMtu;
    case BIO_CTRL_DGRAM_GET_MTU_OVERHEAD: return 28;  // IPv4 + UDP
    default: return 0;
  }
}

BIO_METHOD* dgramWriteMethod() {
  static BIO_METHOD* m = [] {
    BIO_METHOD* meth = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "loadgen-dgram-write");
    BIO_meth_set_write(meth, dtlsBioWrite);
    BIO_meth_set_ctrl(meth, bioCtrl);
    BIO_meth_set_create(meth, [](BIO* b) { BIO_set_init(b, 1); return 1; });
    return meth;
  }();
  return m;
}

int acceptAnyCert(int, X509_STORE_CTX*) { return 1; }  // the SDP fingerprint is checked afterwards

}  // namespace

int dtlsBioWrite(BIO* b, const char* data, int len) {
  auto* s = static_cast<DtlsSession*>(BIO_get_data(b));
  if (s && s->send_) s->send_(reinterpret_cast<const uint8_t*>(data), static_cast<size_t>(len));
  return len;
}

std::string certFingerprint(X509* cert, const std::string& hashName) {
  const EVP_MD* md = nullptr;
  if (hashName == "sha-1") md = EVP_sha1();
  else if (hashName == "sha-224") md = EVP_sha224();
  else if (hashName == "sha-256") md = EVP_sha256();
  else if (hashName == "sha-384") md = EVP_sha384();
  else if (hashName == "sha-512") md = EVP_sha512();
  if (!md || !cert) return "";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!X509_digest(cert, md, digest, &n)) return "";
  std::string out;
  char hex[4];
  for (unsigned i = 0; i < n; ++i) {
    std::snprintf(hex, sizeof hex, i ? ":%02X" : "%02X", digest[i]);
    out += hex;
  }
  return out;
}

std::unique_ptr<DtlsContext> DtlsContext::create(std::string* err) {
  auto ctx = std::unique_ptr<DtlsContext>(new DtlsContext());
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  bool ok = key && cert;
  if (ok) {
    uint64_t serial = 0;
    RAND_bytes(reinterpret_cast<unsigned char*>(&serial), sizeof serial);
    ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert), serial >> 1);
    X509_set_version(cert, 2);
    X509_gmtime_adj(X509_getm_notBefore(cert), -86400);
    X509_gmtime_adj(X509_getm_notAfter(cert), 30L * 86400);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("loadgen"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    ok = X509_sign(cert, key, EVP_sha256()) > 0;
  }
  if (ok) {
    ctx->ctx_ = SSL_CTX_new(DTLS_method());
    ok = ctx->ctx_ && SSL_CTX_use_certificate(ctx->ctx_, cert) == 1 &&
         SSL_CTX_use_PrivateKey(ctx->ctx_, key) == 1 &&
         // libsrtp2 and rtpengine both support this profile; it is what the A-SRTP bench assumes.
         SSL_CTX_set_tlsext_use_srtp(ctx->ctx_, "SRTP_AES128_CM_SHA1_80") == 0;
  }
  if (ok) {
    SSL_CTX_set_verify(ctx->ctx_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, acceptAnyCert);
    SSL_CTX_set_min_proto_version(ctx->ctx_, DTLS1_2_VERSION);
    ctx->fingerprint_ = certFingerprint(cert, "sha-256");
  } else if (err) {
    *err = "cannot create the DTLS certificate/context: " + opensslError();
  }
  X509_free(cert);
  EVP_PKEY_free(key);
  return ok ? std::move(ctx) : nullptr;
}

DtlsContext::~DtlsContext() { SSL_CTX_free(ctx_); }

DtlsSession::DtlsSession(const DtlsContext& ctx, bool isServer, SendFn send)
    : isServer_(isServer), send_(std::move(send)) {
  ssl_ = SSL_new(ctx.ctx());
  rbio_ = BIO_new(BIO_s_mem());
  BIO_set_mem_eof_return(rbio_, -1);  // empty read BIO = "retry", not EOF
  BIO* wbio = BIO_new(dgramWriteMethod());
  BIO_set_data(wbio, this);
  SSL_set_bio(ssl_, rbio_, wbio);
  SSL_set_options(ssl_, SSL_OP_NO_QUERY_MTU);
  SSL_set_mtu(ssl_, kMtu);
  DTLS_set_link_mtu(ssl_, kMtu + 28);
  if (isServer_) SSL_set_accept_state(ssl_);
  else SSL_set_connect_state(ssl_);
}

DtlsSession::~DtlsSession() { SSL_free(ssl_); }

void DtlsSession::start() {
  if (state_ != State::Idle) return;
  state_ = State::Handshaking;
  if (!isServer_) drive();
}

void DtlsSession::onDatagram(const uint8_t* data, size_t len) {
  if (state_ == State::Failed) return;
  if (state_ == State::Idle) state_ = State::Handshaking;  // server: peer's ClientHello may beat ICE
  BIO_write(rbio_, data, static_cast<int>(len));
  if (state_ == State::Handshaking) {
    drive();
  } else {
    // After the handshake only alerts / retransmitted Finished arrive; let OpenSSL consume them.
    char buf[256];
    while (SSL_read(ssl_, buf, sizeof buf) > 0) {
    }
    if (SSL_get_shutdown(ssl_) & SSL_RECEIVED_SHUTDOWN) fail("peer sent close_notify");
    (void)BIO_reset(rbio_);
  }
}

void DtlsSession::onTimer() {
  if (state_ == State::Handshaking) DTLSv1_handle_timeout(ssl_);
}

void DtlsSession::drive() {
  int rc = SSL_do_handshake(ssl_);
  if (rc == 1) {
    state_ = State::Done;
    return;
  }
  int e = SSL_get_error(ssl_, rc);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return;
  fail("handshake: " + opensslError());
}

void DtlsSession::fail(const std::string& why) {
  state_ = State::Failed;
  error_ = why;
}

bool DtlsSession::verifyPeer(const std::string& hashName, const std::string& fingerprint) {
  X509* peer = SSL_get1_peer_certificate(ssl_);
  std::string got = certFingerprint(peer, hashName);
  X509_free(peer);
  if (got.empty() || strcasecmp(got.c_str(), fingerprint.c_str()) != 0) {
    fail("peer certificate does not match the SDP fingerprint");
    return false;
  }
  return true;
}

bool DtlsSession::exportKeys(SrtpKeys& keys) {
  const SRTP_PROTECTION_PROFILE* p = SSL_get_selected_srtp_profile(ssl_);
  if (!p || p->id != SRTP_AES128_CM_SHA1_80) {
    fail("peer did not select SRTP_AES128_CM_SHA1_80");
    return false;
  }
  // RFC 5764 4.2: client key | server key | client salt | server salt.
  uint8_t km[60];
  static const char kLabel[] = "EXTRACTOR-dtls_srtp";
  if (SSL_export_keying_material(ssl_, km, sizeof km, kLabel, sizeof kLabel - 1, nullptr, 0, 0) != 1) {
    fail("SSL_export_keying_material failed");
    return false;
  }
  const uint8_t* clientKey = km;
  const uint8_t* serverKey = km + 16;
  const uint8_t* clientSalt = km + 32;
  const uint8_t* serverSalt = km + 46;
  uint8_t* mine = keys.local;
  uint8_t* theirs = keys.remote;
  std::memcpy(mine, isServer_ ? serverKey : clientKey, 16);
  std::memcpy(mine + 16, isServer_ ? serverSalt : clientSalt, 14);
  std::memcpy(theirs, isServer_ ? clientKey : serverKey, 16);
  std::memcpy(theirs + 16, isServer_ ? clientSalt : serverSalt, 14);
  return true;
}

}  // namespace lg
