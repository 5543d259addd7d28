#include "http.h"

#include <arpa/inet.h>
#include <netdb.h>
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
  if (out.scheme != "http" && out.scheme != "ws") {
    if (err) *err = "URL scheme '" + out.scheme + "' is not supported (http or ws; no TLS)";
    return false;
  }
  std::string rest = text.substr(sep + 3);
  size_t slash = rest.find_first_of("/?");
  std::string hostPort = rest.substr(0, slash);
  out.path = slash == std::string::npos ? "/" : rest.substr(slash);
  if (out.path[0] == '?') out.path = "/" + out.path;
  size_t colon = hostPort.rfind(':');
  out.host = hostPort.substr(0, colon);
  out.port = 80;
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
  return fd;
}

bool exchange(int fd, const std::string& req, bool headOnly, int timeoutMs, Response& out, std::string& rest,
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
    pollfd p{fd, static_cast<short>(sent < req.size() ? POLLOUT : POLLIN), 0};
    if (poll(&p, 1, left) < 0 && errno != EINTR) return fail(std::strerror(errno));
    if (sent < req.size()) {
      ssize_t n = send(fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
      if (n > 0) sent += static_cast<size_t>(n);
      else if (n < 0 && errno != EAGAIN && errno != EINTR) return fail(std::strerror(errno));
      continue;
    }
    char chunk[4096];
    ssize_t n = recv(fd, chunk, sizeof chunk, 0);
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
             Response& out, int timeoutMs, std::string* err) {
  int64_t deadline = nowNs() + static_cast<int64_t>(timeoutMs) * 1'000'000;
  int fd = connectTcp(base.host, base.port, timeoutMs, err);
  if (fd < 0) return false;
  std::string req = buildRequest(method, base, path, body, "Connection: close\r\n");
  std::string rest, why;
  int left = static_cast<int>(std::max<int64_t>(1, (deadline - nowNs()) / 1'000'000));  // connect + exchange share it
  bool ok = exchange(fd, req, false, left, out, rest, &why);
  close(fd);
  if (!ok && err) *err = method + " " + path + ": " + why;
  return ok;
}

}  // namespace lg::http
