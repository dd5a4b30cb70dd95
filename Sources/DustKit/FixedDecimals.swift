import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `value` with exactly `decimals` digits after the point, as C's `printf("%.*f")` writes it:
/// the exact binary value rounded to nearest, ties to even, `-` on every negative value (also
/// `-0.0`), `.` as the separator whatever the locale.
///
/// Foundation's `String(format:)` does the same through CoreFoundation's formatter, which on
/// first use sets up locales and asks the Swift runtime whether `Double` is a `CVarArg` (a scan of
/// every protocol conformance in the binary): 4 % of a `dustctl week` (docs/PERFORMANCE.md).
/// Values whose scaled magnitude reaches 2⁵³, and NaN and infinities, still go to `String(format:)`.
public func fixedDecimals(_ value: Double, _ decimals: Int) -> String {
    precondition((0...6).contains(decimals), "fixedDecimals supports 0–6 decimals")
    let magnitude = abs(value)
    var scale = 1.0
    var scaleInteger: UInt64 = 1
    for _ in 0..<decimals {
        scale *= 10
        scaleInteger *= 10
    }
    // magnitude × scale = product + error exactly (the error of one rounding, found by a fused
    // multiply-add), so the rounding below decides on the exact value, as printf does.
    let product = magnitude * scale
    guard product.isFinite, product < 9_007_199_254_740_992 else { return String(format: "%.\(decimals)f", value) }
    let error = fma(magnitude, scale, -product)
    let whole = product.rounded(.down)
    let fraction = product - whole  // exact: both lie in the same binade below 2⁵³
    var units = UInt64(whole)
    if fraction > 0.5 || (fraction == 0.5 && (error > 0 || (error == 0 && units % 2 == 1))) {
        units += 1
    }
    let sign = value.sign == .minus ? "-" : ""
    guard decimals > 0 else { return sign + String(units) }
    let digits = String(units % scaleInteger)
    return sign + String(units / scaleInteger) + "." + String(repeating: "0", count: decimals - digits.count) + digits
}
