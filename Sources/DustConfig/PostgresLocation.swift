/// Where a PostgreSQL database is (`storage.url`, docs/REFERENCE.md §20), never with its password.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// How to reach the server.
    public enum Endpoint: Sendable, Hashable {
        /// A TCP host and port (5432 unless the URL names another).
        case tcp(host: String, port: Int)
        /// The directory holding the server's Unix socket (`?host=/run/postgresql`); the socket
        /// is `.s.PGSQL.<port>` in it.
        case unixSocket(directory: String, port: Int)
    }

    /// `?sslmode=`, as libpq spells it (`prefer` when the URL does not say).
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable
        case allow
        case prefer
        case require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var endpoint: Endpoint
    public var user: String
    public var database: String
    public var tls: TLSMode

    public init(endpoint: Endpoint, user: String, database: String, tls: TLSMode = .prefer) {
        self.endpoint = endpoint
        self.user = user
        self.database = database
        self.tls = tls
    }

    /// `USER@HOST:PORT/DB` (or `USER@SOCKETDIR:PORT/DB`): what messages and `dustctl status` name.
    public var description: String {
        switch endpoint {
        case .tcp(let host, let port): "\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
        case .unixSocket(let directory, let port): "\(user)@\(directory):\(port)/\(database)"
        }
    }
}
