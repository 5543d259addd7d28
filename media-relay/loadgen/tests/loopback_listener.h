#pragma once
// A TCP listening socket on 127.0.0.1 at a port the kernel picks (test servers: ws_test_server.h, test_http.cpp).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

// Returns the socket (-1 on failure) and sets `port`.
inline int listenOnLoopback(int backlog, int& port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, backlog) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return -1;
  }
  port = ntohs(a.sin_port);
  return fd;
}
