extension Duration {
    /// The duration in seconds, with its fraction.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
