extension Duration {
    /// The duration in seconds, with its fraction: what `TimeInterval` arithmetic and timeouts take.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
