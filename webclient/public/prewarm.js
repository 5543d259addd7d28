// A page's first peer connection (issue #26, docs/media.md "A page's first connection"): Firefox ESR brings its
// first connection's media up 30-50 ms later than the ones after it (the demo's MO call, offer -> DTLS connected:
// 62-89 ms as the page's first connection, 35-42 ms after one throw-away connection at login, which takes ~120 ms).
// Chromium gains ~1 ms and its warm-up takes ~200 ms, so by default (`auto`) only Firefox makes one.
// warmUp() connects two local RTCPeerConnections to each other (an audio transceiver without a track: no
// microphone; no ICE servers: host candidates only, nothing leaves the host) and closes them. It never throws: a pair
// that does not connect within timeoutMs is closed and reported as such.

const since = (t0) => Math.round((performance.now() - t0) * 10) / 10;

// setting: the page's `prewarm` property: true (always), false (never) or 'auto' (Firefox only: where it pays)
export const warmUpWanted = (setting) => setting === true || (setting === 'auto' && /Firefox\//.test(navigator.userAgent));

function gathered(pc) {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') resolve();
    pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') resolve(); });
  });
}

// -> { ms, connected } (connected: the pair's DTLS came up before timeoutMs; ms: the whole warm-up)
export async function warmUp(timeoutMs = 1000) {
  const t0 = performance.now();
  let a = null;
  let b = null;
  let timer = null;
  const work = (async () => {
    a = new RTCPeerConnection();
    b = new RTCPeerConnection();
    a.addTransceiver('audio');
    const connected = new Promise((resolve) => {
      a.addEventListener('connectionstatechange', () => { if (a.connectionState === 'connected') resolve(true); });
    });
    await a.setLocalDescription(await a.createOffer());
    await gathered(a);
    await b.setRemoteDescription(a.localDescription);
    await b.setLocalDescription(await b.createAnswer());
    await gathered(b);
    await a.setRemoteDescription(b.localDescription);
    return connected;
  })();
  work.catch(() => {});   // after a timeout the closed pair rejects what is still pending: nothing to report then
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  try {
    const connected = (await Promise.race([work, late]).catch(() => false)) === true;
    return { ms: since(t0), connected };
  } finally {
    clearTimeout(timer);
    a?.close();
    b?.close();
  }
}
