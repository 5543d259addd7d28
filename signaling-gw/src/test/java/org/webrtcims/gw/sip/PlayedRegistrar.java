package org.webrtcims.gw.sip;

import javax.sip.ClientTransaction;
import javax.sip.ResponseEvent;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.ArrayList;
import java.util.List;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * A registrar played by a unit test: a mocked {@link SipUserAgent} (real JAIN-SIP factories, {@link SipTestUa})
 * that records every request the code under test sends, with its handler, and answers request i on demand with
 * a real JAIN-SIP response. Call-IDs are {@code prefix1}, {@code prefix2} … in the order they are asked for.
 */
final class PlayedRegistrar {
    // synchronized: the client's own timers (refreshes, keepalives) send while the test reads
    final List<Request> sent = java.util.Collections.synchronizedList(new ArrayList<>());
    final List<ResponseHandler> handlers = java.util.Collections.synchronizedList(new ArrayList<>());
    final SipUserAgent ua;
    private int callIds;
    /** When set, each request is answered with this code inside send(), before it returns (as a fast registrar
     *  whose answer the stack hands to its own thread while the sending thread is still in send()). */
    volatile Integer answerDuringSend;

    PlayedRegistrar(String callIdPrefix) throws Exception {
        ua = SipTestUa.withFactories();
        when(ua.newCallId()).thenAnswer(i -> callIdPrefix + ++callIds);
        when(ua.sendRequest(any(), any())).thenAnswer(i -> {
            sent.add(i.getArgument(0));
            handlers.add(i.getArgument(1));
            Integer code = answerDuringSend;
            if (code != null) answer(sent.size() - 1, code, null);
            return mock(ClientTransaction.class);
        });
    }

    /** Answers sent request {@code index} with {@code code} and, when not null, a WWW-Authenticate header. */
    void answer(int index, int code, String wwwAuthenticate) {
        answer(index, code, wwwAuthenticate, new String[0]);
    }

    /** As above, with further headers given as "Name: value" (e.g. "P-Associated-URI: <sip:a@ims.lab>"). */
    void answer(int index, int code, String wwwAuthenticate, String... headers) {
        Request req = sent.get(index);
        try {
            Response r = SipFixtures.MESSAGES.createResponse(code, req);
            if (wwwAuthenticate != null) r.addHeader(SipFixtures.HEADERS.createHeader("WWW-Authenticate", wwwAuthenticate));
            for (String h : headers) {
                int colon = h.indexOf(':');
                r.addHeader(SipFixtures.HEADERS.createHeader(h.substring(0, colon).strip(), h.substring(colon + 1).strip()));
            }
            ClientTransaction ct = mock(ClientTransaction.class);
            when(ct.getRequest()).thenReturn(req);
            ResponseEvent ev = mock(ResponseEvent.class);
            when(ev.getResponse()).thenReturn(r);
            when(ev.getClientTransaction()).thenReturn(ct);
            handlers.get(index).onResponse(ev);
        } catch (java.text.ParseException e) {
            throw new AssertionError(e);
        }
    }
}
