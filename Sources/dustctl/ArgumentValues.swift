import ArgumentParser
import DustKit

// How option values are read and shown. Dates and weeks are parsed once, by the argument parser;
// a bad one is a usage error that names the option and the expected form
// (`The value 'tomorrow' is invalid for '--end <YYYY-MM-DD>'`).
//
// Each type says how it is written back (`defaultValueDescription`, `allValueStrings`) rather
// than leaving it to the argument parser's defaults, which print the value with `"\(value)"`:
// that asks the Swift runtime, by reflection, which printing protocols the type conforms to, and
// each first question scans every protocol conformance in the binary (about 7,000). Every command
// paid it for every such option on every run (docs/PERFORMANCE.md, "Start-up").

extension LocalDate: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public var defaultValueDescription: String { description }
}

extension ISOWeek: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public var defaultValueDescription: String { description }
}

/// A closed set of words (`--per day|week`, `--chart pm10|pm25`), written as its raw values.
protocol NamedArgumentValue: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {}

extension NamedArgumentValue {
    public init?(argument: String) { self.init(rawValue: argument) }
    public var defaultValueDescription: String { rawValue }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
    public static var allValueDescriptions: [String: String] { [:] }
    public static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

extension Pollutant: NamedArgumentValue {}
