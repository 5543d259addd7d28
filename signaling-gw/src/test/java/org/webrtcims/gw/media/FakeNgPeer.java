package org.webrtcims.gw.media;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A UDP stand-in for rtpengine's ng port: hands each received datagram to the test, replies on demand. */
final class FakeNgPeer implements AutoCloseable {
    record Request(String cookie, Map<String, Object> dict, byte[] raw, SocketAddress from) {
    }

    private final DatagramSocket socket;
    private final BlockingQueue<Request> received = new LinkedBlockingQueue<>();

    FakeNgPeer() throws IOException {
        socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread t = new Thread(this::loop, "fake-ng-peer");
        t.setDaemon(true);
        t.start();
    }

    InetSocketAddress address() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    /** Next request, or null if none arrives within the wait. */
    Request take(long millis) throws InterruptedException {
        return received.poll(millis, TimeUnit.MILLISECONDS);
    }

    Request take() throws InterruptedException {
        Request r = take(5000);
        if (r == null) {
            throw new AssertionError("no ng request received");
        }
        return r;
    }

    void reply(Request to, Map<String, Object> dict) throws IOException {
        replyRaw(to, (to.cookie() + " ").getBytes(StandardCharsets.US_ASCII), Bencode.encode(dict));
    }

    void replyRaw(Request to, byte[]... parts) throws IOException {
        int len = Arrays.stream(parts).mapToInt(p -> p.length).sum();
        byte[] out = new byte[len];
        int pos = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, pos, p.length);
            pos += p.length;
        }
        socket.send(new DatagramPacket(out, out.length, to.from()));
    }

    @SuppressWarnings("unchecked")
    private void loop() {
        byte[] buf = new byte[65535];
        while (!socket.isClosed()) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(p);
            } catch (IOException e) {
                return;
            }
            byte[] raw = Arrays.copyOf(p.getData(), p.getLength());
            String text = new String(raw, StandardCharsets.ISO_8859_1);
            int space = text.indexOf(' ');
            Map<String, Object> dict = (Map<String, Object>) Bencode.decode(Arrays.copyOfRange(raw, space + 1, raw.length));
            received.add(new Request(text.substring(0, space), dict, raw, p.getSocketAddress()));
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
