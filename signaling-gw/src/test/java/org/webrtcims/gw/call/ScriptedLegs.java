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
        /** MediaLeg#offerFromBrowser; the status lines it would be given are {@code c.qos().offered()}. */
        String offerFromBrowser(Call c, String browserSdp);

        String answerFromIms(Call c, String sdp);

        String offerFromIms(Call c, String sdp);

        void injectDtmfBeforeAnswer(Call c);

        String answerFromBrowser(Call c, String browserSdp);

        String reofferFromBrowser(Call c, String browserSdp);

        String reanswerFromIms(Call c, String sdp);

        String reofferFromIms(Call c, String sdp);

        String reanswerFromBrowser(Call c, String browserSdp);
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
        doAnswer(i -> x.offerFromBrowser(c, i.getArgument(0))).when(leg).offerFromBrowser(any(), any());
        doAnswer(i -> x.answerFromIms(c, i.getArgument(0))).when(leg).answerFromIms(any());
        doAnswer(i -> x.offerFromIms(c, i.getArgument(0))).when(leg).offerFromIms(any());
        doAnswer(i -> {
            x.injectDtmfBeforeAnswer(c);
            return null;
        }).when(leg).injectDtmfBeforeAnswer();
        doAnswer(i -> x.answerFromBrowser(c, i.getArgument(0))).when(leg).answerFromBrowser(any());
        doAnswer(i -> x.reofferFromBrowser(c, i.getArgument(0))).when(leg).reofferFromBrowser(any());
        doAnswer(i -> x.reanswerFromIms(c, i.getArgument(0))).when(leg).reanswerFromIms(any());
        doAnswer(i -> x.reofferFromIms(c, i.getArgument(0))).when(leg).reofferFromIms(any());
        doAnswer(i -> x.reanswerFromBrowser(c, i.getArgument(0))).when(leg).reanswerFromBrowser(any());
        return leg;
    }
}
