package org.webrtcims.gw.media;

/**
 * Media counters of one call as rtpengine saw them. "ToIms" counts what rtpengine received from the
 * browser (and relays toward IMS); "ToBrowser" counts what it received from the IMS side.
 * Codecs are "name/clockrate" (e.g. "opus/48000"), null when not known yet.
 */
public record MediaStats(String codecBrowser, String codecIms, long packetsToIms, long packetsToBrowser,
                         long bytesToIms, long bytesToBrowser) {
}
