package org.webrtcims.gw.media;

import org.webrtcims.gw.sdp.DataChannelSdp;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A stand-in data-channel endpoint (FakeNgPeer answering its control commands) and one call's door to it, "c1", as
 * the gateway's DataChannelLegs opens it (session prefix "gw5070-"): the frame of DataChannelLegsTest and
 * DataChannelLegsTextTest.
 */
final class EndpointStandIn implements AutoCloseable {
    final FakeNgPeer endpoint;
    final DataChannelLegs legs;
    final DataChannelSdp.Endpoint c1;

    EndpointStandIn() throws Exception {
        endpoint = new FakeNgPeer();
        legs = new DataChannelLegs(new DataChannelClient(new NgClient(endpoint.address(), Duration.ofMillis(300), 1), "gw5070-"));
        c1 = legs.forCall("c1");
    }

    /**
     * Runs a step that talks to the endpoint; the stand-in checks its one command (the name, the call-id with the
     * gateway's session prefix, each key of {@code expect}) and answers it with {@code reply}; returns the step's result.
     */
    <T> T withEndpoint(Supplier<T> step, String command, Map<String, Object> reply, Map<String, Object> expect) throws Exception {
        CompletableFuture<T> f = CompletableFuture.supplyAsync(step);
        FakeNgPeer.Request r = endpoint.take();
        assertEquals(command, r.dict().get("command"), "the endpoint's command");
        assertEquals("gw5070-c1", r.dict().get("call-id"), "the call-id carries the gateway's session prefix");
        expect.forEach((k, v) -> assertEquals(v, r.dict().get(k), "the " + command + " command's '" + k + "': " + r.dict()));
        endpoint.reply(r, reply);
        return f.get(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() { endpoint.close(); }
}
