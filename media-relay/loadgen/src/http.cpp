#include "http.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cerrno>
#include <cstring>

#include "event_loop.h"

namespace lg::http {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// Chunked body starting at buf[pos]: Complete with the joined data, or Incomplete.
Parse parseChunked(const std::string& buf, size_t pos, std::string& body, size_t& end, std::string* err) {
  body.clear();
  for (;;) {
    size_t eol = buf.find("\r\n", pos);
    if (eol == std::string::npos) return Parse::Incomplete;
    std::string sizeText = buf.substr(pos, eol - pos);
    sizeText = sizeText.substr(0, sizeText.find(';'));  // chunk extensions
    char* stop = nullptr;
    unsigned long size = std::strtoul(sizeText.c_str(), &stop, 16);
    if (sizeText.empty() || *stop) {
      if (err) *err = "bad chunk size '" + sizeText + "'";
      return Parse::Error;
    }
    pos = eol + 2;
    if (size == 0) {  // trailers end with an empty line
      size_t t = buf.find("\r\n", pos);
      while (t != std::string::npos && t != pos) {
        pos = t + 2;
        t = buf.find("\r\n", pos);
      }
      if (t == std::string::npos) return Parse::Incomplete;
      end = t + 2;
      return Parse::Complete;
    }
    if (buf.size() < pos + size + 2) return Parse::Incomplete;
    body.append(buf, pos, size);
    pos += size + 2;
  }
}

}  // namespace

bool parseUrl(const std::string& text, Url& out, std::string* err) {
  size_t sep = text.find("://");
  out = {};
  if (sep == std::string::npos) {
    if (err) *err = "URL '" + text + "' has no scheme (expected http://host:port)";
    return false;
  }
  out.scheme = lower(text.substr(0, sep));
  if (out.scheme != "http" && out.scheme != "ws" && out.scheme != "https" && out.scheme != "wss") {
    if (err) *err = "URL scheme '" + out.scheme + "' is not supported (http, https, ws or wss)";
    return false;
  }
  std::string rest = text.substr(sep + 3);
  size_t slash = rest.find_first_of("/?");
  std::string hostPort = rest.substr(0, slash);
  out.path = slash == std::string::npos ? "/" : rest.substr(slash);
  if (out.path[0] == '?') out.path = "/" + out.path;
  size_t colon = hostPort.rfind(':');
  out.host = hostPort.substr(0, colon);
  out.port = out.tls() ? 443 : 80;
  if (colon != std::string::npos) {
    char* stop = nullptr;
    long p = std::strtol(hostPort.c_str() + colon + 1, &stop, 10);
    if (*stop || p <= 0 || p > 65535) {
      if (err) *err = "URL '" + text + "' has a bad port";
      return false;
    }
    out.port = static_cast<int>(p);
  }
  if (out.host.empty()) {
    if (err) *err = "URL '" + text + "' has no host";
    return false;
  }
  return true;
}

Parse parseResponse(const std::string& buf, bool headOnly, bool eof, Response& out, size_t& consumed,
                    std::string* err) {
  size_t headEnd = buf.find("\r\n\r\n");
  if (headEnd == std::string::npos) {
    if (eof && err) *err = "connection closed inside the response header";
    return eof ? Parse::Error : Parse::Incomplete;
  }
  out = {};
  size_t lineEnd = buf.find("\r\n");
  std::string status = buf.substr(0, lineEnd);
  // "HTTP/1.1 201 Created" (the reason phrase may be empty)
  if (status.compare(0, 5, "HTTP/") != 0 || status.size() < 12 || status[8] != ' ' ||
      !std::isdigit(static_cast<unsigned char>(status[9])) || !std::isdigit(static_cast<unsigned char>(status[10])) ||
      !std::isdigit(static_cast<unsigned char>(status[11]))) {
    if (err) *err = "not an HTTP status line: '" + status.substr(0, 60) + "'";
    return Parse::Error;
  }
  out.status = std::stoi(status.substr(9, 3));
  out.reason = status.size() > 13 ? status.substr(13) : "";
  size_t pos = lineEnd + 2;
  while (pos < headEnd) {
    size_t e = buf.find("\r\n", pos);
    std::string line = buf.substr(pos, e - pos);
    size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) {
      if (err) *err = "malformed header line '" + line.substr(0, 60) + "'";
      return Parse::Error;
    }
    out.headers[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
    pos = e + 2;
  }
  size_t bodyStart = headEnd + 4;
  if (headOnly || out.status == 204 || out.status == 304 || out.status / 100 == 1) {
    consumed = bodyStart;
    return Parse::Complete;
  }
  if (lower(out.header("transfer-encoding")).find("chunked") != std::string::npos) {
    size_t end = 0;
    Parse p = parseChunked(buf, bodyStart, out.body, end, err);
    if (p == Parse::Complete) consumed = end;
    if (p == Parse::Incomplete && eof) {
      if (err) *err = "connection closed inside a chunked body";
      return Parse::Error;
    }
    return p;
  }
  std::string cl = out.header("content-length");
  if (!cl.empty()) {
    char* stop = nullptr;
    unsigned long long n = std::strtoull(cl.c_str(), &stop, 10);
    if (*stop) {
      if (err) *err = "bad Content-Length '" + cl + "'";
      return Parse::Error;
    }
    if (buf.size() - bodyStart < n) {
      if (eof && err) *err = "connection closed before Content-Length bytes arrived";
      return eof ? Parse::Error : Parse::Incomplete;
    }
    out.body = buf.substr(bodyStart, static_cast<size_t>(n));
    consumed = bodyStart + static_cast<size_t>(n);
    return Parse::Complete;
  }
  if (!eof) return Parse::Incomplete;  // body delimited by the connection's end
  out.body = buf.substr(bodyStart);
  consumed = buf.size();
  return Parse::Complete;
}

std::string buildRequest(const std::string& method, const Url& url, const std::string& path,
                         const std::string& body, const std::string& extraHeaders) {
  std::string r = method + " " + path + " HTTP/1.1\r\nHost: " + url.host + ":" + std::to_string(url.port) + "\r\n";
  r += "User-Agent: loadgen\r\n";
  if (!body.empty() || method == "POST" || method == "PUT")
    r += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  r += extraHeaders;
  return r + "\r\n" + body;
}

int connectTcp(const std::string& host, int port, int timeoutMs, std::string* err) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0 || !res) {
    if (err) *err = "cannot resolve " + host + ": " + gai_strerror(rc);
    return -1;
  }
  sockaddr_in addr = *reinterpret_cast<sockaddr_in*>(res->ai_addr);
  freeaddrinfo(res);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (err) *err = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  std::string where = host + ":" + std::to_string(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
    if (err) *err = "connect " + where + ": " + std::strerror(errno);
    close(fd);
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  int soErr = 0;
  socklen_t len = sizeof soErr;
  if (poll(&p, 1, timeoutMs) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soErr, &len) != 0 || soErr) {
    if (err) *err = "connect " + where + ": " + (soErr ? std::strerror(soErr) : "timed out");
    close(fd);
    return -1;
  }
  // No Nagle, as browsers' WebSockets: a SIP response written right after another (180 then 200) would otherwise
  // wait for the peer's delayed ACK of the first, ~40 ms (measured: every MT call's INVITE -> 200 was 48 ms).
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool exchange(Stream& conn, const std::string& req, bool headOnly, int timeoutMs, Response& out, std::string& rest,
              std::string* err) {
  int64_t deadline = nowNs() + static_cast<int64_t>(timeoutMs) * 1'000'000;
  auto fail = [&](const std::string& why) {
    if (err) *err = why;
    return false;
  };
  std::string buf;
  size_t sent = 0;
  bool eof = false;
  for (;;) {
    if (sent == req.size()) {
      size_t used = 0;
      std::string perr;
      Parse p = parseResponse(buf, headOnly, eof, out, used, &perr);
      if (p == Parse::Complete) {
        rest = buf.substr(used);
        return true;
      }
      if (p == Parse::Error) return fail(perr);
    }
    int left = static_cast<int>((deadline - nowNs()) / 1'000'000);
    if (left <= 0) return fail("no complete response within " + std::to_string(timeoutMs) + " ms");
    pollfd p{conn.fd(), static_cast<short>(sent < req.size() ? POLLOUT : POLLIN), 0};
    if (poll(&p, 1, left) < 0 && errno != EINTR) return fail(std::strerror(errno));
    if (sent < req.size()) {
      ssize_t n = conn.send(req.data() + sent, req.size() - sent);
      if (n > 0) sent += static_cast<size_t>(n);
      else if (n < 0 && errno != EAGAIN && errno != EINTR) return fail(std::strerror(errno));
      continue;
    }
    char chunk[4096];
    ssize_t n = conn.recv(chunk, sizeof chunk);
    if (n > 0) {
      buf.append(chunk, static_cast<size_t>(n));
    } else if (n == 0) {
      // Only a body without a length may end with the connection; a header block may not.
      if (headOnly || eof) return fail("connection closed before the response was complete");
      eof = true;
    } else if (errno != EAGAIN && errno != EINTR) {
      return fail(std::strerror(errno));
    }
  }
}

bool request(const Url& base, const std::string& method, const std::string& path, const std::string& body,
             Response& out, int timeoutMs, std::string* err, const std::string& extraHeaders) {
  int64_t deadline = nowNs() + static_cast<int64_t>(timeoutMs) * 1'000'000;
  Stream conn;
  if (!conn.open(base, timeoutMs, err)) return false;
  std::string req = buildRequest(method, base, path, body, "Connection: close\r\n" + extraHeaders);
  std::string rest, why;
  int left = static_cast<int>(std::max<int64_t>(1, (deadline - nowNs()) / 1'000'000));  // connect + exchange share it
  bool ok = exchange(conn, req, false, left, out, rest, &why);
  conn.close();
  if (!ok && err) *err = method + " " + path + ": " + why;
  return ok;
}

namespace {
SSL_CTX* g_tls = nullptr;
bool g_tlsInsecure = false;

std::string sslErrors() {
  std::string out;
  for (unsigned long e; (e = ERR_get_error()) != 0;) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "unknown TLS error" : out;
}
}  // namespace

bool configureTls(const TlsOptions& options, std::string* err) {
  auto fail = [&](const std::string& why) {
    if (err) *err = why;
    return false;
  };
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) return fail("TLS: " + sslErrors());
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // send() may be retried with a moved buffer (the WebSocket's queue grows) and may write part of it
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (options.insecure) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    bool ok = options.caFile.empty() ? SSL_CTX_set_default_verify_paths(ctx) == 1
                                     : SSL_CTX_load_verify_locations(ctx, options.caFile.c_str(), nullptr) == 1;
    if (!ok) {
      std::string why = sslErrors();
      SSL_CTX_free(ctx);
      return fail(options.caFile.empty() ? "TLS: cannot load the system's certificates: " + why
                                         : "--ca: cannot read certificates from '" + options.caFile + "': " + why);
    }
  }
  if (g_tls) SSL_CTX_free(g_tls);
  g_tls = ctx;
  g_tlsInsecure = options.insecure;
  return true;
}

bool Stream::open(const Url& url, int timeoutMs, std::string* err) {
  close();
  int64_t deadline = nowNs() + static_cast<int64_t>(timeoutMs) * 1'000'000;
  fd_ = connectTcp(url.host, url.port, timeoutMs, err);
  if (fd_ < 0 || !url.tls()) return fd_ >= 0;
  std::string where = url.host + ":" + std::to_string(url.port);
  auto fail = [&](const std::string& why) {
    if (err) *err = "TLS " + where + ": " + why;
    close();
    return false;
  };
  if (!g_tls) {
    TlsOptions defaults;  // the system's trusted certificates
    std::string why;
    if (!configureTls(defaults, &why)) return fail(why);
  }
  ssl_ = SSL_new(g_tls);
  if (!ssl_ || SSL_set_fd(ssl_, fd_) != 1) return fail(sslErrors());
  in_addr ip{};
  bool isIp = inet_pton(AF_INET, url.host.c_str(), &ip) == 1;
  if (!isIp) SSL_set_tlsext_host_name(ssl_, url.host.c_str());  // SNI: names only (RFC 6066 §3)
  if (!g_tlsInsecure) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    if ((isIp ? X509_VERIFY_PARAM_set1_ip_asc(param, url.host.c_str()) : X509_VERIFY_PARAM_set1_host(param, url.host.c_str(), 0)) != 1)
      return fail("cannot check the certificate against '" + url.host + "'");
  }
  for (;;) {
    ERR_clear_error();
    int rc = SSL_connect(ssl_);
    if (rc == 1) return true;
    int e = SSL_get_error(ssl_, rc);
    if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
      long v = SSL_get_verify_result(ssl_);
      if (v != X509_V_OK) return fail(std::string("certificate not trusted: ") + X509_verify_cert_error_string(v) +
                                      " (give the gateway's certificate with --ca FILE)");
      return fail("handshake failed: " + sslErrors());
    }
    int left = static_cast<int>((deadline - nowNs()) / 1'000'000);
    if (left <= 0) return fail("handshake timed out");
    pollfd p{fd_, static_cast<short>(e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
    if (poll(&p, 1, left) < 0 && errno != EINTR) return fail(std::strerror(errno));
  }
}

namespace {
// Maps an SSL_read/SSL_write result to the system calls' convention.
ssize_t sslResult(ssl_st* ssl, int rc) {
  if (rc > 0) return rc;
  switch (SSL_get_error(ssl, rc)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: errno = EAGAIN; return -1;
    case SSL_ERROR_ZERO_RETURN: return 0;  // close_notify
    case SSL_ERROR_SYSCALL: if (errno == 0) return 0; return -1;  // EOF without close_notify, or the socket's error
    default: errno = EPROTO; return -1;
  }
}
}  // namespace

ssize_t Stream::send(const char* data, size_t size) {
  if (!ssl_) return ::send(fd_, data, size, MSG_NOSIGNAL);
  ERR_clear_error();
  errno = 0;
  return sslResult(ssl_, SSL_write(ssl_, data, static_cast<int>(size)));
}

ssize_t Stream::recv(char* data, size_t size) {
  if (!ssl_) return ::recv(fd_, data, size, 0);
  ERR_clear_error();
  errno = 0;
  return sslResult(ssl_, SSL_read(ssl_, data, static_cast<int>(size)));
}

void Stream::close() {
  if (ssl_) {
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

}  // namespace lg::http
