// HTTP/1.1 response parsing (Content-Length, chunked, close-delimited, 101 + trailing frames,
// incomplete and malformed input), URL parsing, and TLS (certificate trusted by --ca, refused
// untrusted or for another name, --insecure).
#include <gtest/gtest.h>

#include "http.h"

using namespace lg::http;

TEST(HttpResponse, ContentLengthAndIncomplete) {
  std::string full =
      "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\ncontent-length: 27\r\n\r\n"
      "{\"token\":\"t\",\"wsUrl\":\"ws\"}x";
  Response r;
  size_t used = 0;
  for (size_t cut : {10ul, 60ul, full.size() - 3}) {
    EXPECT_EQ(parseResponse(full.substr(0, cut), false, false, r, used, nullptr), Parse::Incomplete) << cut;
  }
  ASSERT_EQ(parseResponse(full, false, false, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.reason, "Created");
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.body, "{\"token\":\"t\",\"wsUrl\":\"ws\"}x");
  EXPECT_EQ(used, full.size());
}

TEST(HttpResponse, Chunked) {
  std::string s = "HTTP/1.1 401 \r\nTransfer-Encoding: chunked\r\n\r\n"
                  "7\r\n{\"code\"\r\nf;ext=1\r\n:\"auth-failed\"}\r\n0\r\nX-Trailer: 1\r\n\r\n";
  Response r;
  size_t used = 0;
  EXPECT_EQ(parseResponse(s.substr(0, s.size() - 2), false, false, r, used, nullptr), Parse::Incomplete);
  ASSERT_EQ(parseResponse(s, false, false, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.reason, "");
  EXPECT_EQ(r.body, "{\"code\":\"auth-failed\"}");
  EXPECT_EQ(used, s.size());
}

TEST(HttpResponse, NoLengthEndsAtClose) {
  std::string s = "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nhello";
  Response r;
  size_t used = 0;
  EXPECT_EQ(parseResponse(s, false, false, r, used, nullptr), Parse::Incomplete);
  ASSERT_EQ(parseResponse(s, false, true, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.body, "hello");
}

TEST(HttpResponse, NoContentAndSwitchingProtocols) {
  Response r;
  size_t used = 0;
  ASSERT_EQ(parseResponse("HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n", false, false, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.status, 204);
  std::string up = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Accept: abc=\r\n\r\n\x81\x02hi";
  ASSERT_EQ(parseResponse(up, true, false, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.status, 101);
  EXPECT_EQ(r.header("sec-websocket-accept"), "abc=");
  EXPECT_EQ(up.substr(used), "\x81\x02hi");  // the frame after the header block is left alone
}

TEST(HttpResponse, Malformed) {
  Response r;
  size_t used = 0;
  std::string err;
  EXPECT_EQ(parseResponse("SSH-2.0-OpenSSH\r\n\r\n", false, false, r, used, &err), Parse::Error);
  EXPECT_EQ(parseResponse("HTTP/1.1 2x0 OK\r\n\r\n", false, false, r, used, &err), Parse::Error);
  EXPECT_EQ(parseResponse("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", false, false, r, used, &err), Parse::Error);
  EXPECT_EQ(parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", false, true, r, used, &err), Parse::Error);
  EXPECT_EQ(parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, false, r, used, &err),
            Parse::Error);
}

TEST(HttpUrl, Parse) {
  Url u;
  ASSERT_TRUE(parseUrl("http://127.0.0.1:8088", u, nullptr));
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 8088);
  EXPECT_EQ(u.path, "/");
  ASSERT_TRUE(parseUrl("ws://localhost:8088/ws?token=a-b", u, nullptr));
  EXPECT_EQ(u.scheme, "ws");
  EXPECT_EQ(u.path, "/ws?token=a-b");
  ASSERT_TRUE(parseUrl("http://gw", u, nullptr));
  EXPECT_EQ(u.port, 80);
  std::string err;
  EXPECT_FALSE(parseUrl("127.0.0.1:8088", u, &err));
  EXPECT_FALSE(parseUrl("http://gw:99999/", u, &err));
}

TEST(HttpRequest, Build) {
  Url u;
  parseUrl("http://127.0.0.1:8088", u, nullptr);
  EXPECT_EQ(buildRequest("POST", u, "/api/v1/sessions", "{}"),
            "POST /api/v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:8088\r\nUser-Agent: loadgen\r\n"
            "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
}

// ---- TLS (https:// and wss://): a real OpenSSL server on 127.0.0.1 with a throw-away self-signed
// certificate for IP 127.0.0.1, made here; the client trusts it only when told (--ca / --insecure).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "loopback_listener.h"

namespace {

struct TlsServer {
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  SSL_CTX* ctx = nullptr;
  int listenFd = -1;
  int port = 0;
  std::string certFile;
  std::thread thread;

  TlsServer() {
    key = EVP_EC_gen("P-256");
    cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("loadgen test"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, cert, cert, nullptr, nullptr, 0);
    X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &v3, NID_subject_alt_name, "IP:127.0.0.1");
    X509_add_ext(cert, san, -1);
    X509_EXTENSION_free(san);
    X509_sign(cert, key, EVP_sha256());
    char path[] = "/tmp/loadgen-tls-XXXXXX";
    int fd = mkstemp(path);
    certFile = path;
    FILE* f = fdopen(fd, "w");
    PEM_write_X509(f, cert);
    fclose(f);
    ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(ctx, cert);
    SSL_CTX_use_PrivateKey(ctx, key);
    listenFd = listenOnLoopback(4, port);
  }
  // Serves one connection: TLS handshake, one request, "200 ok", close (a failed handshake just ends it).
  void serveOne() {
    thread = std::thread([this] {
      int c = accept(listenFd, nullptr, nullptr);
      if (c < 0) return;
      SSL* ssl = SSL_new(ctx);
      SSL_set_fd(ssl, c);
      if (SSL_accept(ssl) == 1) {
        std::string req;
        char buf[1024];
        int n;
        while (req.find("\r\n\r\n") == std::string::npos && (n = SSL_read(ssl, buf, sizeof buf)) > 0) req.append(buf, n);
        std::string resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
        SSL_write(ssl, resp.data(), static_cast<int>(resp.size()));
        SSL_shutdown(ssl);
      }
      SSL_free(ssl);
      close(c);
    });
  }
  ~TlsServer() {
    if (thread.joinable()) thread.join();
    close(listenFd);
    SSL_CTX_free(ctx);
    X509_free(cert);
    EVP_PKEY_free(key);
    std::remove(certFile.c_str());
  }
};

bool get(const std::string& url, Response& r, std::string* err) {
  Url u;
  if (!parseUrl(url, u, err)) return false;
  return request(u, "GET", "/api/v1/health", "", r, 3000, err);
}

}  // namespace

TEST(HttpUrl, ParseTls) {
  Url u;
  ASSERT_TRUE(parseUrl("https://198.18.0.1:8093", u, nullptr));
  EXPECT_TRUE(u.tls());
  EXPECT_EQ(u.port, 8093);
  ASSERT_TRUE(parseUrl("wss://gw/ws", u, nullptr));
  EXPECT_TRUE(u.tls());
  EXPECT_EQ(u.port, 443);
  ASSERT_TRUE(parseUrl("http://gw", u, nullptr));
  EXPECT_FALSE(u.tls());
  std::string err;
  EXPECT_FALSE(parseUrl("ftp://gw", u, &err));
  EXPECT_NE(err.find("http, https, ws or wss"), std::string::npos) << err;
}

TEST(HttpTls, TrustedByCaFile) {
  TlsServer srv;
  std::string err;
  ASSERT_TRUE(configureTls({srv.certFile, false}, &err)) << err;
  srv.serveOne();
  Response r;
  ASSERT_TRUE(get("https://127.0.0.1:" + std::to_string(srv.port), r, &err)) << err;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
}

TEST(HttpTls, UntrustedCertificateIsRefused) {
  TlsServer srv;
  std::string err;
  ASSERT_TRUE(configureTls({}, &err)) << err;  // the system's CAs: a self-signed certificate is not among them
  srv.serveOne();
  Response r;
  EXPECT_FALSE(get("https://127.0.0.1:" + std::to_string(srv.port), r, &err));
  EXPECT_NE(err.find("certificate not trusted"), std::string::npos) << err;
}

TEST(HttpTls, NameMismatchIsRefused) {
  TlsServer srv;  // the certificate names IP 127.0.0.1, not "localhost"
  std::string err;
  ASSERT_TRUE(configureTls({srv.certFile, false}, &err)) << err;
  srv.serveOne();
  Response r;
  EXPECT_FALSE(get("https://localhost:" + std::to_string(srv.port), r, &err));
  EXPECT_NE(err.find("certificate not trusted"), std::string::npos) << err;
}

TEST(HttpTls, InsecureSkipsTheCheck) {
  TlsServer srv;
  std::string err;
  ASSERT_TRUE(configureTls({"", true}, &err)) << err;
  srv.serveOne();
  Response r;
  ASSERT_TRUE(get("https://localhost:" + std::to_string(srv.port), r, &err)) << err;
  EXPECT_EQ(r.status, 200);
}

TEST(HttpTls, UnreadableCaFile) {
  std::string err;
  EXPECT_FALSE(configureTls({"/nonexistent/ca.pem", false}, &err));
  EXPECT_NE(err.find("--ca: cannot read certificates from '/nonexistent/ca.pem'"), std::string::npos) << err;
}

#include <netinet/tcp.h>

#include "loopback_listener.h"

// connectTcp's sockets send at once (TCP_NODELAY), as a browser's WebSocket does: with Nagle a SIP 200 written right
// after a 180 waited ~40 ms for the eP-CSCF's delayed ACK.
TEST(HttpConnect, SocketsHaveNagleOff) {
  int port = 0;
  int lfd = listenOnLoopback(1, port);
  ASSERT_GE(lfd, 0);
  std::string err;
  int fd = lg::http::connectTcp("127.0.0.1", port, 2000, &err);
  ASSERT_GE(fd, 0) << err;
  int on = 0;
  socklen_t len = sizeof on;
  ASSERT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &len), 0);
  EXPECT_NE(on, 0) << "TCP_NODELAY is off on loadgen's HTTP/WebSocket connection";
  close(fd);
  close(lfd);
}
