// Capture input: pcap/pcapng files or a live interface, decoded down to IPv4/UDP datagrams.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

struct pcap;  // libpcap's pcap_t, kept out of this header

namespace dm {

struct Endpoint {
  uint32_t addr = 0;  // IPv4, host byte order
  uint16_t port = 0;
};

struct UdpDatagram {
  int64_t ts_ns = 0;  // capture time, nanoseconds since the epoch
  Endpoint src, dst;
  const uint8_t* payload = nullptr;  // into the capture buffer: valid until the next read
  size_t length = 0;                 // captured payload bytes (snaplen may cut the datagram)
};

// Decodes one frame of link type `linktype` (a DLT_* value) to its UDP datagram. False for anything
// that is not IPv4/UDP (ARP, IPv6, TCP, non-first fragments, truncated headers). ts_ns is not touched.
bool decodeFrame(int linktype, const uint8_t* frame, size_t caplen, UdpDatagram& out);
bool linkTypeSupported(int linktype);

class PacketSource {
 public:
  enum class Status { Datagram, Timeout, End, Error };

  static std::unique_ptr<PacketSource> openFile(const std::string& path, std::string& error);
  // Live capture with immediate delivery and nanosecond stamps where the kernel offers them.
  static std::unique_ptr<PacketSource> openLive(const std::string& iface, const std::string& bpf,
                                                std::string& error);
  ~PacketSource();
  PacketSource(const PacketSource&) = delete;
  PacketSource& operator=(const PacketSource&) = delete;

  // Next UDP datagram; frames that are not IPv4/UDP are skipped (and counted in frames()).
  // Timeout only happens on live captures: nothing arrived within 100 ms (or a signal came).
  Status next(UdpDatagram& out);

  uint64_t frames() const { return frames_; }
  const std::string& error() const { return error_; }
  std::string linkTypeName() const;

 private:
  explicit PacketSource(::pcap* handle);
  ::pcap* handle_;
  int linktype_;
  int poll_fd_ = -1;  // live captures only
  uint64_t frames_ = 0;
  std::string error_;
};

}  // namespace dm
