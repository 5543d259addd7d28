#include "pcap_reader.h"

#include <pcap/pcap.h>

#include <poll.h>

#include <cstring>

namespace dm {
namespace {

uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

constexpr uint16_t kEtherIPv4 = 0x0800;
constexpr uint16_t kEtherVlan = 0x8100;
constexpr uint16_t kEtherQinQ = 0x88a8;
// DLT_IPV4 is missing from old headers; its value is fixed by the tcpdump.org registry.
constexpr int kDltIpv4 = 228;

bool decodeIpv4(const uint8_t* p, size_t len, UdpDatagram& out) {
  if (len < 20 || (p[0] >> 4) != 4) return false;
  size_t ihl = size_t(p[0] & 0x0f) * 4;
  size_t total = be16(p + 2);
  if (ihl < 20 || len < ihl + 8 || p[9] != 17) return false;
  if ((be16(p + 6) & 0x1fff) != 0) return false;  // later fragments carry no UDP header
  // Ethernet pads short frames: trust the IP total length when it is smaller than what was captured.
  if (total >= ihl && total < len) len = total;
  const uint8_t* udp = p + ihl;
  size_t udp_len = be16(udp + 4);
  size_t avail = len - ihl - 8;
  size_t payload = udp_len >= 8 ? udp_len - 8 : 0;
  out.src = {be32(p + 12), be16(udp)};
  out.dst = {be32(p + 16), be16(udp + 2)};
  out.payload = udp + 8;
  out.length = payload < avail ? payload : avail;
  return true;
}

}  // namespace

bool linkTypeSupported(int linktype) {
  switch (linktype) {
    case DLT_EN10MB: case DLT_NULL: case DLT_LOOP: case DLT_LINUX_SLL: case DLT_RAW: case kDltIpv4:
#ifdef DLT_LINUX_SLL2
    case DLT_LINUX_SLL2:
#endif
      return true;
    default:
      return false;
  }
}

bool decodeFrame(int linktype, const uint8_t* f, size_t n, UdpDatagram& out) {
  switch (linktype) {
    case DLT_EN10MB: {
      size_t off = 12;
      while (off + 2 <= n && (be16(f + off) == kEtherVlan || be16(f + off) == kEtherQinQ)) off += 4;
      if (off + 2 > n || be16(f + off) != kEtherIPv4) return false;
      return decodeIpv4(f + off + 2, n - off - 2, out);
    }
    case DLT_NULL:
    case DLT_LOOP: {
      // Address family: host order of the capturing machine (NULL) or network order (LOOP);
      // AF_INET is 2 on every OS, so accept it in either byte order.
      if (n < 4) return false;
      uint32_t fam_le = uint32_t(f[0]) | (uint32_t(f[1]) << 8) | (uint32_t(f[2]) << 16) | (uint32_t(f[3]) << 24);
      if (fam_le != 2 && be32(f) != 2) return false;
      return decodeIpv4(f + 4, n - 4, out);
    }
    case DLT_LINUX_SLL:
      if (n < 16 || be16(f + 14) != kEtherIPv4) return false;
      return decodeIpv4(f + 16, n - 16, out);
#ifdef DLT_LINUX_SLL2
    case DLT_LINUX_SLL2:
      if (n < 20 || be16(f) != kEtherIPv4) return false;
      return decodeIpv4(f + 20, n - 20, out);
#endif
    case DLT_RAW:
    case kDltIpv4:
      return decodeIpv4(f, n, out);
    default:
      return false;
  }
}

PacketSource::PacketSource(::pcap* handle) : handle_(handle), linktype_(pcap_datalink(handle)) {}

PacketSource::~PacketSource() {
  if (handle_) pcap_close(handle_);
}

std::unique_ptr<PacketSource> PacketSource::openFile(const std::string& path, std::string& error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  // Nanosecond precision: libpcap scales microsecond files up, so ts is always in ns.
  pcap_t* h = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!h) {
    // libpcap usually names the file itself ("x.pcap: No such file or directory").
    std::string msg = errbuf;
    error = msg.find(path) == std::string::npos ? path + ": " + msg : msg;
    return nullptr;
  }
  std::unique_ptr<PacketSource> src(new PacketSource(h));
  if (!linkTypeSupported(src->linktype_)) {
    error = path + ": unsupported link type " + src->linkTypeName();
    return nullptr;
  }
  return src;
}

std::unique_ptr<PacketSource> PacketSource::openLive(const std::string& iface, const std::string& bpf,
                                                     std::string& error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* h = pcap_create(iface.c_str(), errbuf);
  if (!h) {
    error = iface + ": " + errbuf;
    return nullptr;
  }
  std::unique_ptr<PacketSource> src(new PacketSource(h));
  pcap_set_snaplen(h, 65535);
  pcap_set_immediate_mode(h, 1);            // stamps are taken by the kernel anyway; avoid batching stalls
  pcap_set_buffer_size(h, 16 * 1024 * 1024);  // like tcpdump -B 16384
  pcap_set_timeout(h, 100);
  // Not every interface offers ns stamps; microseconds are still usable, so ignore a refusal.
  pcap_set_tstamp_precision(h, PCAP_TSTAMP_PRECISION_NANO);
  int rc = pcap_activate(h);
  if (rc < 0) {
    error = iface + ": " + pcap_geterr(h);
    return nullptr;
  }
  // Linux may block in poll() forever when no packet arrives, whatever the read timeout says; with
  // a non-blocking handle and our own poll() the caller regains control every 100 ms to check its
  // deadline and signals.
  if (pcap_setnonblock(h, 1, errbuf) < 0 || (src->poll_fd_ = pcap_get_selectable_fd(h)) < 0) {
    error = iface + ": cannot poll the capture (" + errbuf + ")";
    return nullptr;
  }
  src->linktype_ = pcap_datalink(h);
  if (!linkTypeSupported(src->linktype_)) {
    error = iface + ": unsupported link type " + src->linkTypeName();
    return nullptr;
  }
  struct bpf_program prog;
  if (pcap_compile(h, &prog, bpf.c_str(), 1, PCAP_NETMASK_UNKNOWN) < 0) {
    error = "filter '" + bpf + "': " + pcap_geterr(h);
    return nullptr;
  }
  int set = pcap_setfilter(h, &prog);
  pcap_freecode(&prog);
  if (set < 0) {
    error = "filter '" + bpf + "': " + pcap_geterr(h);
    return nullptr;
  }
  return src;
}

PacketSource::Status PacketSource::next(UdpDatagram& out) {
  const int64_t scale = pcap_get_tstamp_precision(handle_) == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000;
  for (;;) {
    struct pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    int rc = pcap_next_ex(handle_, &hdr, &data);
    if (rc == 0) {
      if (poll_fd_ < 0) return Status::Timeout;
      struct pollfd pfd = {poll_fd_, POLLIN, 0};
      if (poll(&pfd, 1, 100) <= 0) return Status::Timeout;  // nothing yet, or a signal arrived
      continue;
    }
    if (rc == PCAP_ERROR_BREAK) return Status::End;
    if (rc < 0) {
      error_ = pcap_geterr(handle_);
      return Status::Error;
    }
    ++frames_;
    if (!decodeFrame(linktype_, data, hdr->caplen, out)) continue;
    out.ts_ns = int64_t(hdr->ts.tv_sec) * 1000000000 + int64_t(hdr->ts.tv_usec) * scale;
    return Status::Datagram;
  }
}

std::string PacketSource::linkTypeName() const {
  const char* name = pcap_datalink_val_to_name(linktype_);
  return name ? name : std::to_string(linktype_);
}

}  // namespace dm
