import Foundation

/// A TCP port on 127.0.0.1 bound (and, with `listening`, listened on) by this process until
/// `release()`: the kernel's choice for port 0. Held, it is a port another program has taken; released
/// at once, a port nothing listens on now.
public final class HeldLoopbackPort: @unchecked Sendable {
    public let port: Int
    private var descriptor: Int32

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(listening: Bool = true) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let held = descriptor
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(held, $0, length) == 0 && getsockname(held, $0, &length) == 0 }
        }
        guard bound, !listening || listen(descriptor, 1) == 0 else {
            let problem = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "bind 127.0.0.1:0: \(problem)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closes the socket; the port is free again.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
