package org.webrtcims.gw.call;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.spy;
import static org.mockito.Mockito.when;

/**
 * The call flows' seam toward media: each call's {@link MediaLeg} (made by a mocked {@link CallMedia#newLeg}) answers
 * its SDP exchanges through {@link Exchanges}, a mock the test stubs and verifies; the rest of the leg (what it keeps:
 * the SDP per leg, the codecs, DTMF injection) is the real one. Tests of the leg itself use a real relay mock instead
 * (MediaLegTest).
 */
final class ScriptedLegs {
    private ScriptedLegs() {
    }

    /** A call's SDP exchanges, each with the call it is for (as the legs' methods, plus the call). */
    interface Exchanges {
        /** MediaLeg#bridgeBrowserOffer, with the precondition status lines the offer is to carry (null: none). */
        String bridgeBrowserOffer(Call c, String browserSdp, org.webrtcims.gw.sdp.QosPreconditions.Status qos);

        String bridgeImsAnswer(Call c, String sdp);

        String bridgeImsOffer(Call c, String sdp);

        void injectDtmfBeforeAnswer(Call c);

        String bridgeBrowserAnswer(Call c, String browserSdp);

        String bridgeBrowserReoffer(Call c, String browserSdp);

        String bridgeImsReanswer(Call c, String sdp);

        String bridgeImsReoffer(Call c, String sdp);

        String bridgeBrowserReanswer(Call c, String browserSdp);
    }

    /** Every leg {@code media} (a mock) makes from now on answers its exchanges through {@code exchanges}. */
    static void install(CallMedia media, Exchanges exchanges) {
        when(media.newLeg(any(), any(), any(), any(), any())).thenAnswer(i -> scripted(
                new MediaLeg(i.getArgument(0), i.getArgument(1), i.getArgument(2), i.getArgument(3), i.getArgument(4), null, null),
                (Call) i.getArgument(4), exchanges));
    }

    /** A call (MO, or MT with the IMS party's tag as From tag) whose leg answers its exchanges through {@code exchanges}. */
    static Call call(String id, Direction direction, String owner, String localUser, String remote, String fromTag,
                     CallState state, Exchanges exchanges) {
        CallMedia media = org.mockito.Mockito.mock(CallMedia.class);
        install(media, exchanges);
        return new Call(id, direction, owner, localUser, remote, fromTag, state, media, null);
    }

    private static MediaLeg scripted(MediaLeg real, Call c, Exchanges x) {
        MediaLeg leg = spy(real);
        doAnswer(i -> x.bridgeBrowserOffer(c, i.getArgument(0), i.getArgument(1))).when(leg).bridgeBrowserOffer(any(), any());
        doAnswer(i -> x.bridgeImsAnswer(c, i.getArgument(0))).when(leg).bridgeImsAnswer(any());
        doAnswer(i -> x.bridgeImsOffer(c, i.getArgument(0))).when(leg).bridgeImsOffer(any());
        doAnswer(i -> {
            x.injectDtmfBeforeAnswer(c);
            return null;
        }).when(leg).injectDtmfBeforeAnswer();
        doAnswer(i -> x.bridgeBrowserAnswer(c, i.getArgument(0))).when(leg).bridgeBrowserAnswer(any());
        doAnswer(i -> x.bridgeBrowserReoffer(c, i.getArgument(0))).when(leg).bridgeBrowserReoffer(any());
        doAnswer(i -> x.bridgeImsReanswer(c, i.getArgument(0))).when(leg).bridgeImsReanswer(any());
        doAnswer(i -> x.bridgeImsReoffer(c, i.getArgument(0))).when(leg).bridgeImsReoffer(any());
        doAnswer(i -> x.bridgeBrowserReanswer(c, i.getArgument(0))).when(leg).bridgeBrowserReanswer(any());
        return leg;
    }
}
