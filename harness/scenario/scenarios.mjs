// The named scenarios of `./lab scenario NAME` (docs/scenarios.md). Each: what the pages do (media,
// which directions in turn: page 1 the first, page 2 the second, ...), and the impairment of the browser
// link it runs under unless --netem/--impairment says otherwise (harness/kit/link.mjs).
//   MO: the page calls a SIPp UE that answers and echoes the media (ue1 audio, ue7 audio + video).
//   MT: a SIPp UE (ue2 from a port of its own per call) calls the page's user and hangs up at the end.
//   rtcpEcho: the UEs' RTCP ports echo too (rtcp-echo.py): the browser's congestion control gets feedback.
//   capacityScale: the scenario's own capacity schedule times this (Chromium's fake camera, VP8 640x480 at
//   15 fps, sends ~400 kbit/s at most: rmcat-w2's 1-3 Mbit/s would never limit it).
export const SCENARIOS = {
  basic: {
    about: 'audio calls, MO and MT in turn, on the plain link (or under --netem / --impairment)',
    media: 'audio', directions: ['mo', 'mt'], browsers: 4, netem: null, impairment: null,
  },
  lossy: {
    about: 'audio calls, MO and MT in turn, 50 ms ±10 ms delay and 5 % loss each way',
    media: 'audio', directions: ['mo', 'mt'], browsers: 4, netem: 'delay 50ms 10ms loss 5%', impairment: null,
  },
  congested: {
    about: 'audio + video calls (MO to ue7) sharing 500 kbit/s each way with a 100 ms queue (capacity-500x100)',
    media: 'video', directions: ['mo'], browsers: 2, netem: null, impairment: 'capacity-500x100',
  },
  video: {
    about: 'audio + video calls, MO (to ue7) and MT (a SIPp video UE) in turn, on the plain link',
    media: 'video', directions: ['mo', 'mt'], browsers: 2, netem: null, impairment: null,
  },
  'variable-capacity': {
    about: 'one audio + video call (MO to ue7, its RTCP echoed too) while the link\'s capacity steps through rmcat-w2\'s '
      + 'shape scaled to the browser\'s video (x 0.25: 250, 750, 250, 500 kbit/s, queue 300 ms)',
    media: 'video', directions: ['mo'], browsers: 1, netem: null, impairment: 'rmcat-w2', capacityScale: 0.25, rtcpEcho: true,
  },
};

// The browser users, one page each (ims-sim/users.txt): at most this many pages at once.
export const PAGE_USERS = ['alice', 'bob', 'carol', 'dave'];
