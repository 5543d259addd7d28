package org.webrtcims.gw.failover;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.webrtcims.gw.call.DialogStore;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.config.HostPort;
import org.webrtcims.gw.media.RtpEngineClient;
import org.webrtcims.gw.sip.ResponseHandler;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

import javax.sip.ResponseEvent;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The gateway failover (docs/scale-out.md), only with lab.failover.redis (host:port of the Redis the gateways share):
 * a lease ({@link GatewayLease}), the dialog store ({@link RedisDialogStore}, the {@link DialogStore} the call layer
 * tells) and the takeover rounds ({@link GatewayTakeover}) every third of lab.failover.lease-ms. Without the property
 * none of these beans exists and the call layer's hooks do nothing.
 */
@Configuration
@ConditionalOnExpression("!'${lab.failover.redis:}'.isBlank()")
public class FailoverConfig {
    private static final Logger log = LoggerFactory.getLogger(FailoverConfig.class);

    @Bean(destroyMethod = "close")
    UnifiedJedis failoverRedis(@Value("${lab.failover.redis}") String redis) {
        HostPort hp = HostPort.parse(redis);
        return new JedisPooled(hp.host(), hp.port());
    }

    @Bean
    GatewayLease gatewayLease(UnifiedJedis failoverRedis, GatewayProperties props,
                              @Value("${lab.failover.gateway-id:}") String id, @Value("${lab.failover.lease-ms:3000}") long leaseMs) {
        if (leaseMs < 300 || leaseMs > 60000) throw new IllegalArgumentException("lab.failover.lease-ms must be 300-60000: " + leaseMs);
        String name = id.isBlank() ? new HostPort(props.getSip().getHost(), props.getSip().getPort()).toString() : id;
        return new GatewayLease(failoverRedis, name, leaseMs);
    }

    @Bean(destroyMethod = "stop")
    RedisDialogStore dialogStore(UnifiedJedis failoverRedis, GatewayLease lease, GatewayProperties props, ObjectMapper json) {
        String prefix = props.getRtpengine().getSessionPrefix();
        if (prefix.isBlank()) prefix = "gw" + props.getSip().getPort() + "-"; // MediaConfig's default
        return new RedisDialogStore(failoverRedis, lease.id(), prefix, json);
    }

    @Bean
    RedisContactHandover contactHandover(UnifiedJedis failoverRedis, GatewayLease lease) {
        return new RedisContactHandover(failoverRedis, lease);
    }

    @Bean
    GatewayTakeover gatewayTakeover(UnifiedJedis failoverRedis, GatewayLease lease, SipUserAgent ua, SipRequests requests,
                                    RtpEngineClient rtp, ObjectMapper json) {
        GatewayTakeover.ByeSender bye = d -> ua.sendRequest(d.bye(requests, ua.addresses(), ua.headers()), new ResponseHandler() {
            @Override
            public void onResponse(ResponseEvent e) {
                int code = e.getResponse().getStatusCode();
                if (code >= 200) log.info("failover BYE of call {}: {} {}", d.callId(), code, e.getResponse().getReasonPhrase());
            }

            @Override
            public void onTimeout() { log.warn("failover BYE of call {}: no answer", d.callId()); }
        });
        return new GatewayTakeover(failoverRedis, lease, bye, () -> rtp.relays().all(), json);
    }

    @Bean(destroyMethod = "shutdownNow")
    ScheduledExecutorService failoverRounds(GatewayTakeover takeover, GatewayLease lease) {
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "failover-rounds");
            t.setDaemon(true);
            return t;
        });
        s.scheduleWithFixedDelay(takeover::round, 0, Math.max(100, lease.leaseMs() / 3), TimeUnit.MILLISECONDS);
        return s;
    }
}
