// Transcoded streams: rtpengine gives the re-encoded stream its own SSRC (10.5 keeps the sequence
// numbers and the timestamp origin, scaling timestamps by the clock-rate ratio; docs/delaymeter.md).
// With the relay's two ports of each call known (browser side B, IMS side I, from the ng replies),
// the SSRC arriving at B belongs to the one leaving from I, and the one arriving at I to the one
// leaving from B. This derives that egress -> ingress SSRC map from the capture itself.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "observation.h"

namespace dm {

struct CallPorts {
  uint16_t browser_side = 0;  // rtpengine's port toward the browser
  uint16_t ims_side = 0;      // rtpengine's port toward IMS
};

struct SsrcMapEntry {
  uint32_t in_ssrc, out_ssrc;
  uint16_t in_port, out_port;  // the relay ports the stream enters and leaves by
};

struct SsrcMap {
  std::vector<SsrcMapEntry> entries;              // in_ssrc != out_ssrc only (rewritten streams)
  std::unordered_map<uint32_t, uint32_t> out_to_in;
  uint64_t ambiguous = 0;  // call legs with different SSRC counts in and out: left unmapped
};

// Legs with one SSRC each way map directly; with several on both sides (a re-INVITE), by order of
// first appearance. Observations need relay_port set.
SsrcMap deriveSsrcMap(const std::vector<RtpObservation>& obs, const std::vector<CallPorts>& calls);

// "B I" per line (blank lines and # comments skipped). False with a one-line reason.
bool readCallPorts(const std::string& path, std::vector<CallPorts>& out, std::string& error);

}  // namespace dm
