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
record CallWiring(CallTeardown teardown, Preconditions preconditions, MidCallOffers midCall,
                  IncomingCalls incoming, OutgoingCalls outgoing, DialogRequests sip, RegistrationClient registration,
                  ContactUsers contactUsers, MediaStartWatch mediaStart, DialogExtensions extensions) {

    static CallWiring of(SipUserAgent ua, SipRequests requests, CallMedia media, CallEventSink sink, CallRegistry registry,
                         UserDirectory users, LocalMediaWatch watch, CallTimers timers, GatewayProperties props) {
        SipReplies sipReplies = new SipReplies(ua, requests);
        CallReplies replies = new CallReplies(sipReplies);
        CallTeardown teardown = new CallTeardown(ua, replies, media, sink, registry);
        SessionTimers sessionTimers = new SessionTimers(ua, requests, sipReplies, teardown, sink, timers, props);
        MediaStartWatch mediaStart = new MediaStartWatch(media, teardown, timers, props);
        MaxCallLength maxLength = new MaxCallLength(teardown, timers, props);
        ConfirmedCalls confirmed = new ConfirmedCalls(mediaStart, maxLength, sessionTimers);
        InviteServer inviteServer = new InviteServer(replies, teardown, sink, confirmed);
        ReliableProvisionals reliable = new ReliableProvisionals(ua, sipReplies, replies, sink, inviteServer);
        Preconditions preconditions = new Preconditions(ua, requests, sipReplies, teardown, sink, props, watch, inviteServer,
                reliable);
        MidCallOffers midCall = new MidCallOffers(requests, replies, teardown, sink, timers, props);
        DialogExtensions extensions = new DialogExtensions(reliable, preconditions, sessionTimers, midCall,
                new EarlyMedia(sink, teardown, preconditions), new Forking(ua), new Updates(replies),
                new Dtmf(registry, sink));
        ContactUsers contactUsers = new ContactUsers();
        IncomingCalls incoming = new IncomingCalls(ua, media, sink, registry, users, contactUsers, inviteServer, extensions);
        // a registration whose only identity is sip:USER@ims.lab (a test stubs others)
        RegistrationClient registration = mock(RegistrationClient.class);
        when(registration.callerIdentity(anyString(), any())).thenAnswer(i -> "sip:" + i.getArgument(0) + "@ims.lab");
        when(registration.contactUser(anyString())).thenAnswer(i -> java.util.Optional.of("w-contact-of-" + i.getArgument(0)));
        OutgoingCalls outgoing = new OutgoingCalls(ua, requests, media, teardown, sink, registry, registration,
                extensions, confirmed, new InviteTimeout(teardown, timers, props));
        DialogRequests sip = new DialogRequests(ua, sipReplies, replies, teardown, registry, incoming, inviteServer,
                extensions);
        return new CallWiring(teardown, preconditions, midCall, incoming, outgoing, sip, registration, contactUsers, mediaStart,
                extensions);
    }
}
