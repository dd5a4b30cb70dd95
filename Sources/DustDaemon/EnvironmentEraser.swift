import Foundation

/// The process's own environment block, as `/proc/PID/environ` shows it to anyone who may read it.
public enum EnvironmentEraser {
    /// Overwrites the value of the variable `name` where it lies, then removes the variable.
    ///
    /// `unsetenv` alone only drops the pointer from `environ`: the bytes of the initial
    /// environment stay in the process's memory, and `/proc/PID/environ` (readable by root and by
    /// the same user) reads exactly that memory. The value is filled with `*` in place first.
    public static func erase(_ name: String) {
        if let value = getenv(name) {
            memset(value, Int32(UInt8(ascii: "*")), strlen(value))
        }
        unsetenv(name)
    }
}
