package org.webrtcims.gw.failover;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.SipFactory;
import javax.sip.address.AddressFactory;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ContactHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.header.ReasonHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** The BYE another gateway sends on a dead gateway's stored dialog, and the record's way through JSON. */
class StoredDialogTest {
    static final StoredDialog MO = new StoredDialog("c1", "g1.tok", "alice", "abc@198.18.16.101",
            "<sip:alice@ims.lab>", "ft1", "<sip:ue1@ims.lab>", "tt1", "sip:ue1@198.18.16.2:5080",
            List.of("<sip:198.18.16.2:5060;lr>", "<sip:198.18.16.2:5062;lr>"), 3, "gw1-c1");

    @Test
    void theByeCarriesTheStoredDialogTheNextCseqItsRouteSetAndAReason() throws Exception {
        SipFactory f = SipFactory.getInstance();
        f.setPathName("gov.nist");
        AddressFactory af = f.createAddressFactory();
        HeaderFactory hf = f.createHeaderFactory();
        MessageFactory mf = f.createMessageFactory();
        SipUserAgent ua = mock(SipUserAgent.class);
        when(ua.addresses()).thenReturn(af);
        when(ua.headers()).thenReturn(hf);
        when(ua.messages()).thenReturn(mf);
        when(ua.transport()).thenReturn("udp");
        GatewayProperties props = new GatewayProperties();
        props.getSip().setHost("198.18.16.102");
        SipRequests requests = new SipRequests(ua, props);

        Request bye = MO.bye(requests, af, hf);

        assertEquals("BYE", bye.getMethod());
        assertEquals("sip:ue1@198.18.16.2:5080", bye.getRequestURI().toString(), "Request-URI: the stored remote target");
        assertEquals("abc@198.18.16.101", ((CallIdHeader) bye.getHeader(CallIdHeader.NAME)).getCallId(), "the dialog's Call-ID");
        FromHeader from = (FromHeader) bye.getHeader(FromHeader.NAME);
        ToHeader to = (ToHeader) bye.getHeader(ToHeader.NAME);
        assertEquals("ft1", from.getTag(), "From tag: the dialog's local tag");
        assertEquals("sip:alice@ims.lab", from.getAddress().getURI().toString());
        assertEquals("tt1", to.getTag(), "To tag: the dialog's remote tag");
        assertEquals("sip:ue1@ims.lab", to.getAddress().getURI().toString());
        CSeqHeader cseq = (CSeqHeader) bye.getHeader(CSeqHeader.NAME);
        assertEquals(4, cseq.getSeqNumber(), "CSeq: one above the last stored local CSeq (RFC 3261 §12.2.1.1)");
        assertEquals("BYE", cseq.getMethod());
        List<String> routes = new ArrayList<>();
        for (Iterator<?> it = bye.getHeaders(RouteHeader.NAME); it.hasNext(); ) {
            routes.add(((RouteHeader) it.next()).getAddress().getURI().toString());
        }
        assertEquals(List.of("sip:198.18.16.2:5060;lr", "sip:198.18.16.2:5062;lr"), routes, "the stored route set, in order");
        assertNull(bye.getHeader(ContactHeader.NAME), "a BYE carries no Contact");
        assertEquals("198.18.16.102", ((ViaHeader) bye.getHeader(ViaHeader.NAME)).getHost(), "the Via is the sending gateway's");
        ReasonHeader reason = (ReasonHeader) bye.getHeader(ReasonHeader.NAME);
        assertEquals(503, reason.getCause(), "Reason (RFC 3326) says why: " + reason);
        assertEquals("Reason: SIP;cause=503;text=\"gateway failed\"", reason.toString().trim(), "the Reason header as sent");
    }

    @Test
    void aDialogAsTheStackHoldsItIsStoredSoThatItsByeCanBeBuilt() throws Exception {
        SipFactory f = SipFactory.getInstance();
        f.setPathName("gov.nist");
        AddressFactory af = f.createAddressFactory();
        HeaderFactory hf = f.createHeaderFactory();
        javax.sip.Dialog d = mock(javax.sip.Dialog.class);
        CallIdHeader cid = hf.createCallIdHeader("abc@198.18.16.101");
        when(d.getCallId()).thenReturn(cid);
        when(d.getLocalParty()).thenReturn(af.createAddress("<sip:erin@ims.lab>"));
        when(d.getRemoteParty()).thenReturn(af.createAddress("<sip:ue1@ims.lab>"));
        when(d.getLocalTag()).thenReturn("lt");
        when(d.getRemoteTag()).thenReturn("rt");
        // JAIN-SIP's remote target is an Address: its text has angle brackets, which a Request-URI must not
        when(d.getRemoteTarget()).thenReturn(af.createAddress("<sip:ue1@198.18.16.2:5080;transport=UDP>"));
        when(d.getRouteSet()).thenReturn(List.of(hf.createRouteHeader(af.createAddress("<sip:198.18.16.2:5060;lr>"))).iterator());
        when(d.getLocalSeqNumber()).thenReturn(7L);
        StoredDialog s = StoredDialog.of("c9", "owner", "erin", d, "gw1-c9");
        assertEquals("sip:ue1@198.18.16.2:5080;transport=UDP", s.remoteTarget(), "the remote target is stored as a URI");
        SipUserAgent ua = mock(SipUserAgent.class);
        when(ua.addresses()).thenReturn(af);
        when(ua.headers()).thenReturn(hf);
        when(ua.messages()).thenReturn(f.createMessageFactory());
        when(ua.transport()).thenReturn("udp");
        Request bye = s.bye(new SipRequests(ua, new GatewayProperties()), af, hf);
        assertEquals("sip:ue1@198.18.16.2:5080;transport=UDP", bye.getRequestURI().toString());
        assertEquals(8, ((CSeqHeader) bye.getHeader(CSeqHeader.NAME)).getSeqNumber());
        assertEquals("sip:198.18.16.2:5060;lr", ((RouteHeader) bye.getHeader(RouteHeader.NAME)).getAddress().getURI().toString());
    }

    @Test
    void aRecordComesBackFromItsJsonAsItWent() throws Exception {
        ObjectMapper json = new ObjectMapper();
        assertEquals(MO, json.readValue(json.writeValueAsString(MO), StoredDialog.class));
    }
}
