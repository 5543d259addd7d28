// Minimal HTTP/1.1 client for the gateway's REST calls (login/logout) and the WebSocket upgrade:
// URL parsing, request building, response parsing (Content-Length, chunked, or until close), and a
// blocking request over a plain TCP socket with a deadline.
#pragma once
#include <map>
#include <string>

namespace lg::http {

struct Url {
  std::string scheme;  // http | ws
  std::string host;
  int port = 0;
  std::string path;    // path + query, "/" at least
};
// Accepts http://host[:port][/path] and ws://… (default port 80).
bool parseUrl(const std::string& text, Url& out, std::string* err);

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

// Sends req on the connected socket fd and reads until one response parses (headOnly as in
// parseResponse), within timeoutMs. rest = the bytes that came after the response (for a 101:
// the first WebSocket frames). false + err ("no complete response within …", "connection closed …").
bool exchange(int fd, const std::string& req, bool headOnly, int timeoutMs, Response& out, std::string& rest,
              std::string* err);

// One request on its own connection (Connection: close). false + err on I/O or parse failure;
// any status counts as success here (the caller judges it).
bool request(const Url& base, const std::string& method, const std::string& path, const std::string& body,
             Response& out, int timeoutMs, std::string* err);

}  // namespace lg::http
