// Aggregates one RTCPeerConnection's getStats() into the flat record the lab reports on.
// jitter and rtt are in milliseconds (getStats gives seconds).

export const EMPTY_STATS = Object.freeze({
  packetsSent: 0, packetsReceived: 0, packetsLost: 0, bytesSent: 0, bytesReceived: 0,
  codec: null, iceState: 'new', dtlsState: null, jitter: null, rtt: null,
  localCandidate: null, remoteCandidate: null, localCandidateType: null, remoteCandidateType: null, srtpCipher: null, dtlsCipher: null, tlsVersion: null, dtlsRole: null,
  // video (0/null without a video m-line): RTP packets, frames, the received stream's codec and size
  videoPacketsSent: 0, videoPacketsReceived: 0, framesEncoded: 0, framesDecoded: 0,
  videoCodec: null, videoSendCodec: null, frameWidth: null, frameHeight: null,
  // for the scenario reports (docs/scenarios.md): audio concealment and jitter buffer (received stream),
  // video bytes each way and the sent size/rate, the far end's loss report and the browser's send estimate
  concealedSamples: 0, totalSamplesReceived: 0, jitterBufferDelay: 0, jitterBufferEmittedCount: 0,
  videoBytesSent: 0, videoBytesReceived: 0, videoPacketsLost: 0, sentFrameWidth: null, sentFrameHeight: null,
  sentFramesPerSecond: null, qualityLimitation: null, remoteFractionLost: null, availableOutgoingBitrate: null,
  audioSsrc: null, videoSsrc: null,   // the sent streams' SSRCs (delaymeter reports per SSRC)
  iceRtt: null,   // ms, the ICE pair's STUN consent round trip (to rtpengine), whatever RTCP says
});

export async function readStats(pc) {
  const report = await pc.getStats();
  const out = { ...EMPTY_STATS, iceState: pc.iceConnectionState, t: Date.now() };
  let sendCodecId = null;
  let recvCodecId = null;
  let pairId = null;
  let videoRecvCodecId = null;
  let videoSendCodecId = null;
  report.forEach((s) => {
    if (s.type === 'outbound-rtp' && s.kind === 'audio') {
      out.packetsSent += s.packetsSent ?? 0;
      out.bytesSent += s.bytesSent ?? 0;
      out.audioSsrc ??= s.ssrc ?? null;
      sendCodecId ??= s.codecId;
    } else if (s.type === 'inbound-rtp' && s.kind === 'audio') {
      out.packetsReceived += s.packetsReceived ?? 0;
      out.bytesReceived += s.bytesReceived ?? 0;
      out.packetsLost += Math.max(0, s.packetsLost ?? 0);
      if (s.jitter != null) out.jitter = s.jitter * 1000;
      out.concealedSamples += s.concealedSamples ?? 0;
      out.totalSamplesReceived += s.totalSamplesReceived ?? 0;
      out.jitterBufferDelay += s.jitterBufferDelay ?? 0;
      out.jitterBufferEmittedCount += s.jitterBufferEmittedCount ?? 0;
      recvCodecId ??= s.codecId;
    } else if (s.type === 'outbound-rtp' && s.kind === 'video') {
      out.videoPacketsSent += s.packetsSent ?? 0;
      out.framesEncoded += s.framesEncoded ?? 0;
      out.videoBytesSent += s.bytesSent ?? 0;
      out.videoSsrc ??= s.ssrc ?? null;
      out.sentFrameWidth = s.frameWidth ?? out.sentFrameWidth;
      out.sentFrameHeight = s.frameHeight ?? out.sentFrameHeight;
      out.sentFramesPerSecond = s.framesPerSecond ?? out.sentFramesPerSecond;
      out.qualityLimitation = s.qualityLimitationReason ?? out.qualityLimitation;
      videoSendCodecId ??= s.codecId;
    } else if (s.type === 'inbound-rtp' && s.kind === 'video') {
      out.videoPacketsReceived += s.packetsReceived ?? 0;
      out.framesDecoded += s.framesDecoded ?? 0;
      out.videoBytesReceived += s.bytesReceived ?? 0;
      out.videoPacketsLost += Math.max(0, s.packetsLost ?? 0);
      out.frameWidth = s.frameWidth ?? out.frameWidth;
      out.frameHeight = s.frameHeight ?? out.frameHeight;
      videoRecvCodecId ??= s.codecId;
    } else if (s.type === 'remote-inbound-rtp' && s.kind !== 'video' && s.roundTripTime != null) {
      out.rtt = s.roundTripTime * 1000; // from RTCP RR: the far end's (rtpengine/UE) view
      if (s.fractionLost != null) out.remoteFractionLost = s.fractionLost;
    } else if (s.type === 'transport') {
      out.dtlsState = s.dtlsState ?? out.dtlsState;
      // what DTLS-SRTP actually negotiated (RFC 5764 profile, DTLS suite), for the browser-leg checks
      out.srtpCipher = s.srtpCipher ?? out.srtpCipher;
      out.dtlsCipher = s.dtlsCipher ?? out.dtlsCipher;
      out.tlsVersion = s.tlsVersion ?? out.tlsVersion;
      out.dtlsRole = s.dtlsRole ?? out.dtlsRole;
      pairId ??= s.selectedCandidatePairId;
    }
  });
  // Firefox has no transport.selectedCandidatePairId: its selected pair says `selected: true`.
  if (!pairId) report.forEach((s) => { if (s.type === 'candidate-pair' && s.selected) pairId ??= s.id; });
  const pair = pairId && report.get(pairId);
  if (pair) {
    // STUN consent checks give an RTT even when no RTCP RR has arrived yet.
    if (out.rtt == null && pair.currentRoundTripTime != null) out.rtt = pair.currentRoundTripTime * 1000;
    if (pair.availableOutgoingBitrate != null) out.availableOutgoingBitrate = pair.availableOutgoingBitrate;
    if (pair.currentRoundTripTime != null) out.iceRtt = pair.currentRoundTripTime * 1000;
    out.localCandidate = candidateText(report.get(pair.localCandidateId));
    out.remoteCandidate = candidateText(report.get(pair.remoteCandidateId));
    out.localCandidateType = report.get(pair.localCandidateId)?.candidateType ?? null;
    out.remoteCandidateType = report.get(pair.remoteCandidateId)?.candidateType ?? null;
  }
  const codec = report.get(sendCodecId ?? recvCodecId);
  if (codec?.mimeType) out.codec = `${codec.mimeType.split('/')[1]}/${codec.clockRate}`;
  out.videoCodec = codecText(report.get(videoRecvCodecId));
  out.videoSendCodec = codecText(report.get(videoSendCodecId));
  return out;
}

function codecText(c) {
  return c?.mimeType ? `${c.mimeType.split('/')[1]}/${c.clockRate}` : null;
}

function candidateText(c) {
  return c ? `${c.address ?? c.ip}:${c.port}/${c.protocol}` : null;
}
