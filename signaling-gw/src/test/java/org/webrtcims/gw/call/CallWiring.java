package org.webrtcims.gw.call;

import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.ContactUsers;
import org.webrtcims.gw.sip.RegistrationClient;
import org.webrtcims.gw.sip.SipReplies;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** The call layer wired as Spring wires it, around the (usually mocked) SIP stack, rtpengine, timers and watch. */
record CallWiring(CallContext ctx, CallTeardown teardown, Preconditions preconditions, MidCallOffers midCall,
                  IncomingCalls incoming, OutgoingCalls outgoing, DialogRequests sip, RegistrationClient registration,
                  ContactUsers contactUsers) {

    static CallWiring of(SipUserAgent ua, SipRequests requests, CallMedia media, CallEventSink sink, CallRegistry registry,
                         UserDirectory users, LocalMediaWatch watch, CallTimers timers, GatewayProperties props) {
        CallReplies replies = new CallReplies(new SipReplies(ua, requests));
        CallTeardown teardown = new CallTeardown(ua, replies, media, sink, registry);
        CallContext ctx = new CallContext(ua, requests, replies, media, teardown, sink, registry, timers, props);
        InviteServer inviteServer = new InviteServer(replies, teardown);
        Preconditions preconditions = new Preconditions(ctx, watch, inviteServer);
        MidCallOffers midCall = new MidCallOffers(ctx);
        CallQuotas quotas = new CallQuotas(registry, props);
        SessionTimers sessionTimers = new SessionTimers(ctx);
        ContactUsers contactUsers = new ContactUsers();
        IncomingCalls incoming = new IncomingCalls(ctx, users, contactUsers, preconditions, inviteServer, quotas, sessionTimers);
        // a registration whose only identity is sip:USER@ims.lab (a test stubs others)
        RegistrationClient registration = mock(RegistrationClient.class);
        when(registration.callerIdentity(anyString(), any())).thenAnswer(i -> "sip:" + i.getArgument(0) + "@ims.lab");
        when(registration.contactUser(anyString())).thenAnswer(i -> java.util.Optional.of("w-contact-of-" + i.getArgument(0)));
        OutgoingCalls outgoing = new OutgoingCalls(ctx, preconditions, registration, sessionTimers);
        DialogRequests sip = new DialogRequests(ctx, incoming, midCall, preconditions, quotas, sessionTimers);
        return new CallWiring(ctx, teardown, preconditions, midCall, incoming, outgoing, sip, registration, contactUsers);
    }
}
