package org.webrtcims.gw.sip;

import org.xbill.DNS.*;
import org.xbill.DNS.Record;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A dnsjava Resolver answering from master-file text (dnsjava's own parser, org.xbill.DNS.Master), as an
 * authoritative server would: NXDOMAIN for an unknown name, an empty NOERROR for a known name without the type.
 * Counts the queries it got.
 */
final class ZoneResolver implements Resolver {
    private final List<Record> records = new ArrayList<>();
    final List<String> queries = new ArrayList<>();

    ZoneResolver(String zone) throws IOException {
        try (Master m = new Master(new ByteArrayInputStream(zone.getBytes(StandardCharsets.UTF_8)), Name.root, 60)) {
            for (Record r; (r = m.nextRecord()) != null; ) records.add(r);
        }
    }

    @Override
    public CompletionStage<Message> sendAsync(Message query, Executor executor) {
        Record q = query.getQuestion();
        queries.add(Type.string(q.getType()) + " " + q.getName());
        Message answer = new Message(query.getHeader().getID());
        answer.getHeader().setFlag(Flags.QR);
        answer.getHeader().setFlag(Flags.AA);
        answer.addRecord(q, Section.QUESTION);
        boolean nameKnown = false;
        for (Record r : records) {
            if (!r.getName().equals(q.getName())) continue;
            nameKnown = true;
            if (r.getType() == q.getType()) answer.addRecord(r, Section.ANSWER);
        }
        answer.getHeader().setRcode(nameKnown ? Rcode.NOERROR : Rcode.NXDOMAIN);
        return CompletableFuture.completedFuture(answer);
    }

    @Override public CompletionStage<Message> sendAsync(Message query) { return sendAsync(query, Runnable::run); }
    @Override public Message send(Message query) throws IOException { return sendAsync(query).toCompletableFuture().join(); }
    @Override public void setPort(int port) { }
    @Override public void setTCP(boolean flag) { }
    @Override public void setIgnoreTruncation(boolean flag) { }
    @Override public void setEDNS(int version, int payloadSize, int flags, List<EDNSOption> options) { }
    @Override public void setTSIGKey(TSIG key) { }
    @Override public void setTimeout(Duration timeout) { }
}
