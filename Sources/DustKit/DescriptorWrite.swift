#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes all of `bytes` to a descriptor with write(2), resuming after EINTR and partial writes.
///
/// The one way FineDust's programs write to their standard output and error: `FileHandle.write(_:)`
/// traps on a write error (a full disk under a redirected log, a closed pipe, a terminal hung up:
/// dustd died with SIGILL on its next log line), and `print` goes through a stdio buffer whose failed
/// flush at exit nobody sees (`dustctl week > /dev/full` exited 0 having written nothing). Returns
/// the errno of the failure, or nil.
public func writeAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) -> Int32? {
    let buffer = Array(bytes)
    var written = 0
    while written < buffer.count {
        let count = buffer.withUnsafeBytes { raw in
            write(descriptor, raw.baseAddress! + written, raw.count - written)
        }
        if count < 0 {
            if errno == EINTR { continue }
            return errno
        }
        written += count
    }
    return nil
}
