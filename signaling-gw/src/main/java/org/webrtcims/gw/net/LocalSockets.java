package org.webrtcims.gw.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Who sent a datagram or opened a connection on this host: the kernel's socket tables (/proc/net/udp, tcp and
 * their IPv6 twins) give the inode of the peer's socket, /proc/PID/fd which process holds it. A sender on the
 * loopback can pick any source port, but it cannot put its socket into another process: "the socket that sent
 * this is held by the process that listens at the service's address" (or by another process of the same
 * program instance: a child of the same main process running the same executable, as Kamailio's workers and
 * its TCP manager) holds on one host (docs/security.md,
 * "SIP sources" and "DTMF from rtpengine"). It needs the same network namespace and the right to read the other
 * process's fd table (the same user, or root); where it cannot tell, the answer is no.
 */
public final class LocalSockets {
    private final Path proc;
    /** Peer sockets already found in a process with a service socket (inode → that service socket's inode). */
    private final java.util.Map<Long, Long> verified = new java.util.concurrent.ConcurrentHashMap<>();

    public LocalSockets() { this(Path.of("/proc")); }

    /** Over another /proc tree (tests). */
    public LocalSockets(Path proc) { this.proc = proc; }

    /**
     * Whether the socket bound at {@code peer} (for TCP: the end of the connection whose other end is
     * {@code connectedTo}; null = any) belongs to a process that also holds a socket bound at {@code service}
     * (the listening address of rtpengine, Kamailio …; a wildcard bind counts). proto: "udp" or "tcp".
     */
    public boolean sameProcess(String proto, InetSocketAddress peer, InetSocketAddress connectedTo, InetSocketAddress service) {
        if (peer == null || service == null || peer.getAddress() == null || service.getAddress() == null) return false;
        Set<Long> peerInodes = new HashSet<>();
        Set<Long> serviceInodes = new HashSet<>();
        for (String table : List.of(proto, proto + "6")) {
            for (Entry e : entries(table)) {
                if (e.inode == 0) continue;
                if (e.local.equals(peer) && (connectedTo == null || e.remote.equals(connectedTo))) peerInodes.add(e.inode);
                if (e.local.getPort() == service.getPort()
                        && (e.local.getAddress().equals(service.getAddress()) || e.local.getAddress().isAnyLocalAddress())
                        && (!proto.equals("tcp") || e.state == 0x0A)) { // TCP: the listening socket
                    serviceInodes.add(e.inode);
                }
            }
        }
        if (peerInodes.isEmpty() || serviceInodes.isEmpty()) return false;
        for (Long p : peerInodes) { // a socket lives under one inode: once seen with the service, it stays its
            Long s = verified.get(p);
            if (s != null && serviceInodes.contains(s)) return true;
        }
        java.util.Map<Long, Long> peerHolders = new java.util.HashMap<>(); // pid → the peer socket's inode it holds
        java.util.Map<Long, Long> serviceHolders = new java.util.HashMap<>();
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path pid : pids) {
                Set<Long> held = socketsOf(pid);
                long id = Long.parseLong(pid.getFileName().toString());
                held.stream().filter(peerInodes::contains).findFirst().ifPresent(i -> peerHolders.put(id, i));
                held.stream().filter(serviceInodes::contains).findFirst().ifPresent(i -> serviceHolders.put(id, i));
            }
        } catch (IOException e) {
            return false;
        }
        // one program: the same process, or processes of one program instance (a forking server such as Kamailio:
        // a worker opens the connection, another child holds the listening socket; both descend from its main
        // process through parents running the same executable)
        for (var p : peerHolders.entrySet()) {
            long peerRoot = root(p.getKey());
            for (var sv : serviceHolders.entrySet()) {
                if (p.getKey().equals(sv.getKey()) || (peerRoot > 0 && peerRoot == root(sv.getKey()))) {
                    if (verified.size() > 1024) verified.clear();
                    verified.put(p.getValue(), sv.getValue());
                    return true;
                }
            }
        }
        return false;
    }

    /** The topmost ancestor of pid that runs the same executable (pid itself when its parent runs another); -1 unknown. */
    long root(long pid) {
        String exe = exe(pid);
        if (exe == null) return -1;
        long at = pid;
        for (int depth = 0; depth < 64; depth++) {
            long parent = parent(at);
            if (parent <= 1 || !exe.equals(exe(parent))) return at;
            at = parent;
        }
        return at;
    }

    private String exe(long pid) {
        try {
            return Files.readSymbolicLink(proc.resolve(pid + "/exe")).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    private long parent(long pid) {
        try {
            for (String line : Files.readAllLines(proc.resolve(pid + "/status"))) {
                if (line.startsWith("PPid:")) return Long.parseLong(line.substring(5).trim());
            }
        } catch (IOException | NumberFormatException e) {
            // gone
        }
        return -1;
    }

    /** Whether {@code address} is one of this host's own (loopback or an interface's): only then can /proc tell. */
    public static boolean isLocal(InetAddress address) {
        if (address == null) return false;
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) return true;
        try {
            return java.net.NetworkInterface.getByInetAddress(address) != null;
        } catch (java.net.SocketException e) {
            return false;
        }
    }

    private Set<Long> socketsOf(Path pid) {
        Set<Long> out = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(pid.resolve("fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[") && target.endsWith("]")) {
                        out.add(Long.parseLong(target.substring(8, target.length() - 1)));
                    }
                } catch (IOException | NumberFormatException | UnsupportedOperationException e) {
                    // a descriptor closed meanwhile, or not a link: not a socket of interest
                }
            }
        } catch (IOException e) {
            // a process that ended, or one we may not look into
        }
        return out;
    }

    record Entry(InetSocketAddress local, InetSocketAddress remote, int state, long inode) { }

    List<Entry> entries(String table) {
        List<String> lines;
        try {
            lines = Files.readAllLines(proc.resolve("net").resolve(table));
        } catch (IOException e) {
            return List.of();
        }
        List<Entry> out = new java.util.ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).trim().split("\\s+");
            if (f.length < 10) continue;
            try {
                out.add(new Entry(address(f[1]), address(f[2]), Integer.parseInt(f[3], 16), Long.parseLong(f[9])));
            } catch (RuntimeException | UnknownHostException e) {
                // a line of another shape: skipped
            }
        }
        return out;
    }

    /** "0100007F:13C4" (IPv4, the kernel's 32-bit words in host order, little-endian here) or the IPv6 form. */
    static InetSocketAddress address(String field) throws UnknownHostException {
        int colon = field.indexOf(':');
        String hex = field.substring(0, colon);
        int port = Integer.parseInt(field.substring(colon + 1), 16);
        byte[] raw = new byte[hex.length() / 2];
        for (int word = 0; word < raw.length / 4; word++) {
            for (int b = 0; b < 4; b++) { // each 32-bit word is printed as a number: its bytes reversed (little-endian)
                raw[word * 4 + b] = (byte) Integer.parseInt(hex.substring(word * 8 + (3 - b) * 2, word * 8 + (3 - b) * 2 + 2), 16);
            }
        }
        InetAddress a = InetAddress.getByAddress(raw); // an IPv4-mapped IPv6 address comes back as the IPv4 one
        return new InetSocketAddress(a, port);
    }
}
