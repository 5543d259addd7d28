// Minimal HTTP/1.1 client for the gateway's REST calls (login/logout) and the WebSocket upgrade:
// URL parsing, request building, response parsing (Content-Length, chunked, or until close), and a
// blocking request over a TCP connection (TLS for https:// and wss://, OpenSSL) with a deadline.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>

struct ssl_st;

namespace lg::http {

struct Url {
  std::string scheme;  // http | ws | https | wss
  std::string host;
  int port = 0;
  std::string path;    // path + query, "/" at least
  bool tls() const { return scheme == "https" || scheme == "wss"; }
};
// Accepts http://host[:port][/path], ws://… (default port 80), https:// and wss://… (default port 443).
bool parseUrl(const std::string& text, Url& out, std::string* err);

// TLS for https:// and wss:// (the gateway of `./lab up --bind ADDR`, docs/security.md "TLS"): one client
// context per process, set up before the first TLS connection. caFile: PEM certificates to trust (the lab's
// self-signed one, out/tls/gateway.crt), else the system's; the peer's name (or IP address) is checked against
// the URL's host. insecure: no certificate check at all (a test against a throw-away certificate).
struct TlsOptions {
  std::string caFile;
  bool insecure = false;
};
bool configureTls(const TlsOptions& options, std::string* err);

// A TCP connection, TLS on top when the URL says so. send/recv behave like the system calls on a non-blocking
// socket: -1 with errno EAGAIN when they would block (TLS: also when the record layer needs the other direction),
// recv 0 at the end of the stream.
class Stream {
 public:
  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { close(); }
  // Connects (and does the TLS handshake, certificate checked as configureTls said) within timeoutMs.
  bool open(const Url& url, int timeoutMs, std::string* err);
  ssize_t send(const char* data, size_t size);
  ssize_t recv(char* data, size_t size);
  int fd() const { return fd_; }
  bool tls() const { return ssl_ != nullptr; }
  void close();

 private:
  int fd_ = -1;
  ssl_st* ssl_ = nullptr;
};

struct Response {
  int status = 0;
  std::string reason;
  std::map<std::string, std::string> headers;  // names lower-cased; a repeated header keeps the last
  std::string body;
  std::string header(const std::string& lowerName) const {
    auto it = headers.find(lowerName);
    return it == headers.end() ? "" : it->second;
  }
};

enum class Parse { Incomplete, Complete, Error };
// Parses buf from the start. headOnly: stop after the header block (101 Switching Protocols: what
// follows are WebSocket frames). eof: the peer closed, so a body without a length ends here.
// consumed = bytes used (header block, plus body unless headOnly).
Parse parseResponse(const std::string& buf, bool headOnly, bool eof, Response& out, size_t& consumed,
                    std::string* err);

std::string buildRequest(const std::string& method, const Url& url, const std::string& path,
                         const std::string& body, const std::string& extraHeaders = "");

// Connects to host:port (IPv4, resolved), blocking, bounded by timeoutMs. Returns the fd or -1.
int connectTcp(const std::string& host, int port, int timeoutMs, std::string* err);

// Sends req on the open stream and reads until one response parses (headOnly as in
// parseResponse), within timeoutMs. rest = the bytes that came after the response (for a 101:
// the first WebSocket frames). false + err ("no complete response within …", "connection closed …").
bool exchange(Stream& conn, const std::string& req, bool headOnly, int timeoutMs, Response& out, std::string& rest,
              std::string* err);

// One request on its own connection (Connection: close). false + err on I/O or parse failure;
// any status counts as success here (the caller judges it). extraHeaders: more "Name: value\r\n" lines.
bool request(const Url& base, const std::string& method, const std::string& path, const std::string& body,
             Response& out, int timeoutMs, std::string* err, const std::string& extraHeaders = "");

}  // namespace lg::http
