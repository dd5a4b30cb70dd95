import DustServices
import Synchronization

/// A sink that fails its first `failures` attempts, then takes every event; remembers them.
public final class RecordingSink: AlertSink {
    public let name: String
    private let failuresLeft: Mutex<Int>
    private let received = Mutex<[AlertEvent]>([])

    public init(name: String = "fake", failures: Int = 0) {
        self.name = name
        failuresLeft = Mutex(failures)
    }

    public var events: [AlertEvent] { received.withLock { $0 } }

    public func deliver(_ event: AlertEvent) async throws(AlertSinkError) {
        let fail = failuresLeft.withLock { left in
            defer { left -= 1 }
            return left > 0
        }
        if fail { throw AlertSinkError("the fake refused (\u{1B}[31mred\u{1B}[0m)") }
        received.withLock { $0.append(event) }
    }
}
