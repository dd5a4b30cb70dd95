import ArgumentParser
import DustKit

// How option values are read and shown. Dates and weeks are parsed once, by the argument parser;
// a bad one is a usage error (exit 64) that names the option, the expected form and the supported
// dates (`The value '1999-12-31' is invalid for '--end <YYYY-MM-DD>': 1999-12-31 is outside the
// dates FineDust keeps; give a day from 2000-01-01 to 2099-12-31.`).
//
// Each type says how it is written back (`defaultValueDescription`, `allValueStrings`) rather
// than leaving it to the argument parser's defaults, which print the value with `"\(value)"`:
// that asks the Swift runtime, by reflection, which printing protocols the type conforms to, and
// each first question scans every protocol conformance in the binary (about 7,000). Every command
// paid it for every such option on every run (docs/PERFORMANCE.md, "Start-up").

/// The one way a date or week enters `dustctl`: `@Option(…, transform: PeriodArgument.date)`.
///
/// `LocalDate` and `ISOWeek` are deliberately not `ExpressibleByArgument`, so an option added later
/// cannot take a date outside `SupportedPeriod` (year 0001, 9999) and hand it to the week arithmetic
/// (docs/RELIABILITY.md); a transform's error is what the usage line prints after the value, in the
/// locale's language (`TypedPeriodRefusal`).
enum PeriodArgument {
    @Sendable static func date(_ text: String) throws -> LocalDate {
        do { return try SupportedPeriod.date(text) } catch { throw TypedPeriodRefusal(error: error) }
    }

    /// The last day of a rolling week (`week --end`): a date whose week begins on a supported day too.
    @Sendable static func weekEnd(_ text: String) throws -> LocalDate {
        do { return try SupportedPeriod.weekEnd(text) } catch { throw TypedPeriodRefusal(error: error) }
    }

    @Sendable static func week(_ text: String) throws -> ISOWeek {
        do { return try SupportedPeriod.week(text) } catch { throw TypedPeriodRefusal(error: error) }
    }
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
