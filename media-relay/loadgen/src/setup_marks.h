// The signalling marks of one call on the generator's clock, the same for every access kind (the gateway's
// browser API, SIP over WebSocket): when the call started, the first answer of the far side (`calling`, or
// the 100 Trying), ringing, an early and the final answer, our MT answer, the hangup and the end; and what
// they give the call's result (report.cpp: ws_*_ms, hangup_ms; -1 = that mark never came).
#pragma once
#include <cstdint>
#include "config.h"
#include "event_loop.h"
namespace lg {
struct SetupMarks {
  int64_t start = 0, first = 0, ringing = 0, early = 0, answered = 0, answerSent = 0, hangup = 0, ended = 0;
  void report(CallResult& r) const {
    r.wsCallingMs = msBetween(start, first);
    r.wsRingingMs = msBetween(start, ringing);
    r.wsAnsweredMs = msBetween(start, answered);
    r.wsEarlySdpMs = msBetween(start, early);
    r.hangupMs = msBetween(hangup, ended);
    r.wsAnswerSentMs = msBetween(start, answerSent);
  }
};
}  // namespace lg
