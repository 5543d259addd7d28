#include "dtls_context.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include <cstdio>
#include <strings.h>

namespace lg {

int dtlsLinkWrite(BIO* b, const char* data, int len);

namespace {

constexpr int kMtu = 1200;

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
    BIO_METHOD* meth = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "dtls-dgram-write");
    BIO_meth_set_write(meth, dtlsLinkWrite);
    BIO_meth_set_ctrl(meth, bioCtrl);
    BIO_meth_set_create(meth, [](BIO* b) { BIO_set_init(b, 1); return 1; });
    return meth;
  }();
  return m;
}

int acceptAnyCert(int, X509_STORE_CTX*) { return 1; }  // self-signed: the SDP fingerprint is checked instead

}  // namespace

std::string opensslError() {
  unsigned long e = ERR_get_error();
  if (!e) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
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

std::unique_ptr<DtlsContext> DtlsContext::create(const std::string& certName, const std::string& srtpProfiles,
                                                 std::string* err) {
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
                               reinterpret_cast<const unsigned char*>(certName.c_str()), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    ok = X509_sign(cert, key, EVP_sha256()) > 0;
  }
  if (ok) {
    ctx->ctx_ = SSL_CTX_new(DTLS_method());
    ok = ctx->ctx_ && SSL_CTX_use_certificate(ctx->ctx_, cert) == 1 &&
         SSL_CTX_use_PrivateKey(ctx->ctx_, key) == 1 &&
         SSL_CTX_set_tlsext_use_srtp(ctx->ctx_, srtpProfiles.c_str()) == 0;  // 0 = success here
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

int dtlsLinkWrite(BIO* b, const char* data, int len) {
  auto* link = static_cast<DtlsLink*>(BIO_get_data(b));
  if (link && link->send_) link->send_(reinterpret_cast<const uint8_t*>(data), static_cast<size_t>(len));
  return len;
}

DtlsLink::DtlsLink(const DtlsContext& ctx, bool client, SendFn send) : send_(std::move(send)) {
  ssl_ = SSL_new(ctx.ctx());
  rbio_ = BIO_new(BIO_s_mem());
  BIO_set_mem_eof_return(rbio_, -1);  // an empty read BIO means "retry", not EOF
  BIO* wbio = BIO_new(dgramWriteMethod());
  BIO_set_data(wbio, this);
  SSL_set_bio(ssl_, rbio_, wbio);
  SSL_set_options(ssl_, SSL_OP_NO_QUERY_MTU);
  SSL_set_mtu(ssl_, kMtu);
  DTLS_set_link_mtu(ssl_, kMtu + 28);
  if (client) SSL_set_connect_state(ssl_);
  else SSL_set_accept_state(ssl_);
}

DtlsLink::~DtlsLink() { SSL_free(ssl_); }

void DtlsLink::feed(const uint8_t* data, size_t len) { BIO_write(rbio_, data, static_cast<int>(len)); }

void DtlsLink::discardUnread() { (void)BIO_reset(rbio_); }

DtlsLink::Step DtlsLink::handshake(std::string* err) {
  int rc = SSL_do_handshake(ssl_);
  if (rc == 1) return Step::Done;
  int e = SSL_get_error(ssl_, rc);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return Step::Pending;
  if (err) *err = opensslError();
  return Step::Failed;
}

bool DtlsLink::peerMatches(const std::string& hashName, const std::string& fingerprint) const {
  X509* peer = SSL_get1_peer_certificate(ssl_);
  std::string got = certFingerprint(peer, hashName);
  X509_free(peer);
  return !got.empty() && strcasecmp(got.c_str(), fingerprint.c_str()) == 0;
}

}  // namespace lg
