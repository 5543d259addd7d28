package org.webrtcims.gw.failover;

import org.webrtcims.gw.sip.SipRequests;

import javax.sip.address.Address;
import javax.sip.address.AddressFactory;
import javax.sip.header.ContactHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A confirmed call's dialog as another gateway needs it to end the call after this one died: the SIP dialog
 * (Call-ID, both tags and parties, the remote target, the route set, the last local CSeq, RFC 3261 §12) and the
 * relay's session (rtpengine call-id with this gateway's session prefix); {@code owner} is the SHA-256 of the browser
 * session's token (RedisDialogStore#ownerKey), never the token. Written to Redis as JSON.
 */
public record StoredDialog(String callId, String owner, String user, String sipCallId, String localParty, String localTag,
                           String remoteParty, String remoteTag, String remoteTarget, List<String> routes, long localCseq,
                           String ngCallId) {

    public StoredDialog {
        routes = routes == null ? List.of() : List.copyOf(routes);
    }

    /** The dialog of a confirmed call, as the stack holds it now. */
    static StoredDialog of(String callId, String owner, String user, javax.sip.Dialog d, String ngCallId) {
        List<String> routes = new ArrayList<>();
        for (Iterator<?> it = d.getRouteSet(); it != null && it.hasNext(); ) {
            routes.add(((RouteHeader) it.next()).getAddress().toString());
        }
        return new StoredDialog(callId, owner, user, d.getCallId().getCallId(), d.getLocalParty().toString(), d.getLocalTag(),
                d.getRemoteParty().toString(), d.getRemoteTag(), d.getRemoteTarget().getURI().toString(), routes,
                d.getLocalSeqNumber(), ngCallId);
    }

    /**
     * The BYE that ends this dialog from another gateway (RFC 3261 §15.1.1 with the stored dialog: same Call-ID, tags,
     * route set, the next CSeq; its own Via), with a Reason (RFC 3326) saying why.
     */
    Request bye(SipRequests requests, AddressFactory af, HeaderFactory hf) throws Exception {
        Address from = af.createAddress(localParty);
        Address to = af.createAddress(remoteParty);
        Request r = requests.newRequest(Request.BYE, af.createURI(remoteTarget), from, localTag, to, sipCallId,
                localCseq + 1, "gw");
        ((ToHeader) r.getHeader(ToHeader.NAME)).setTag(remoteTag);
        r.removeHeader(ContactHeader.NAME);
        if (!routes.isEmpty()) {
            r.removeHeader(RouteHeader.NAME);
            for (String route : routes) r.addHeader(hf.createRouteHeader(af.createAddress(route)));
        }
        r.addHeader(hf.createReasonHeader("SIP", 503, "gateway failed"));
        return r;
    }
}
