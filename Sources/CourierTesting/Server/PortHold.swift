#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket bound to a down server's port and not listening: a connect is refused, as it
/// should be, and no other server (another test's, bound to port 0) can take the port meanwhile
/// and answer in its place.
final class PortHold: Sendable {
    private let descriptor: Int32

    /// Holds `port` on the IPv4 `host`; nil where that can't be done (an IPv6 host, a failed bind),
    /// which leaves the port free, as it was before holding existed.
    init?(host: String, port: Int) {
        var address = sockaddr_in()
        guard !host.contains(":"), inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        // SO_REUSEADDR, so that connections the server closed, lingering in TIME_WAIT, don't keep
        // the port from being held. A server picks its port without it (`MockServer.start`), so
        // no other server's port-0 bind can share this one's; no outgoing connection takes a
        // bound port as its own either.
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    /// Frees the port, for the server to listen on it again.
    func release() {
        close(descriptor)
    }
}
