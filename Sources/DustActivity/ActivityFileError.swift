import DustKit
import Foundation

/// Why an Apple Health export or a GPX file cannot be read; each description says what to do.
public enum ActivityFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file holds nothing but white space.
    case emptyFile
    /// Reading the bytes failed (the operating system's reason).
    case unreadable(reason: String)
    /// UTF-16 or UTF-32: neither Apple Health nor GPX producers write it.
    case unsupportedEncoding
    /// The document type declares or references an entity (`<!ENTITY`, `%name;`).
    case entityInDocumentType(line: Int)
    /// The document type names an outside resource (`SYSTEM`, `PUBLIC`, `<!NOTATION`).
    case externalIdentifier(line: Int)
    /// A declaration other than `<!ELEMENT`, `<!ATTLIST` or a comment in the internal subset.
    case unexpectedDeclaration(line: Int)
    /// Everything before the root element is longer than `limit` bytes.
    case prologTooLong(limit: Int)
    /// An attribute value or text run longer than `limit` bytes.
    case attributeTooLong(line: Int, limit: Int)
    /// An element with more than `limit` attributes (`AttributeBound`).
    case tooManyAttributes(line: Int, limit: Int)
    /// Elements nested deeper than `limit`.
    case nestingTooDeep(line: Int, limit: Int)
    /// libxml2 found the document not well-formed (its words, made safe to print).
    case malformedXML(line: Int, reason: String)
    /// The root element is not `HealthData`.
    case notAHealthExport(root: String)
    /// The root element is not `gpx`.
    case notAGPXFile(root: String)
    /// A `HKQuantityTypeIdentifierDistanceWalkingRunning` record that cannot be used.
    case invalidRecord(line: Int, record: HealthRecordKind, problem: String)
    /// A GPX `trkpt` that cannot be used.
    case invalidTrackPoint(line: Int, problem: String)
    /// More `WorkoutRoute` file references than `limit`.
    case tooManyWorkoutRoutes(limit: Int)
    /// The content is none of the formats FineDust reads (zip, Health export.xml, GPX, CSV).
    case unrecognizedFormat
    /// The zip's directory cannot be read: cut off, damaged, or not a zip.
    case unreadableZip(reason: String)
    /// A zip entry's name is absolute or climbs out of the archive (`../`).
    case unsafeZipEntry(name: String)
    /// Two entries of the zip have one name: which one is meant cannot be told.
    case duplicateZipEntry(name: String)
    /// A zip entry would inflate past `limit` bytes, or more than `ratio` times its compressed size.
    case zipEntryTooLarge(name: String, limit: Int64, ratio: Int64)
    /// A zip entry's data is damaged (bad checksum, broken compressed stream).
    case damagedZipEntry(name: String, reason: String)
    /// More entries in the zip than `limit`.
    case tooManyZipEntries(limit: Int)
    /// The entries read from the zip, together, would inflate past one of the archive's bounds.
    case zipArchiveTooLarge(ArchiveLimit)
    /// No `.xml` entry at the top of the zip or one folder down has the root `HealthData`.
    case noHealthExportInZip
    /// More than one entry has the root `HealthData`: the zip holds several exports.
    case severalHealthExports(names: [String])
    /// More `.xml` entries to look into for the export than `limit`.
    case tooManyExportCandidates(limit: Int)
    /// The file gives distance to more than `limit` (source, hour) pairs.
    case tooManySourceHours(limit: Int)
    /// The export's walking distance comes from more than `limit` distinct `sourceName`s.
    case tooManyHealthSources(limit: Int)
    /// The file's tracks give a position to more than `limit` minutes across its sources.
    case tooManyTrackedMinutes(limit: Int)
    /// One of a zip's workout routes could not be read: its path in the zip, and why.
    indirect case inWorkoutRoute(path: String, ActivityFileError)

    /// The whole-archive bound a zip broke.
    public enum ArchiveLimit: Sendable, Hashable {
        /// `ActivityReaderLimits.maxArchiveInflatedBytes` (`activity.maxInflatedBytes`).
        case inflatedBytes(Int64)
        /// `ActivityReaderLimits.maxArchiveCompressionRatio`.
        case compressionRatio(Int64)
    }

    /// `error`, met reading the zip's workout route at `path`, naming the route (of hundreds) when
    /// the fault is the route's own; a bound of the whole zip stays the zip's.
    public static func naming(route path: String, _ error: ActivityFileError) -> ActivityFileError {
        switch error {
        // The zip's own bounds, and faults that name the entry (or the zip) already.
        case .zipArchiveTooLarge, .tooManySourceHours, .tooManyTrackedMinutes, .inWorkoutRoute, .damagedZipEntry, .zipEntryTooLarge,
            .unreadableZip, .unreadable:
            error
        default: .inWorkoutRoute(path: entryName(path), error)
        }
    }

    /// A zip entry's name as an error shows it: safe to print, at most 200 characters (`TerminalSafeText.prefix`).
    static func entryName(_ name: String) -> String {
        String(TerminalSafeText.prefix(TerminalSafeText.sanitized(name), characters: 200).shown)
    }

    public var description: String {
        switch self {
        case .emptyFile:
            "the file is empty; export the data again (Health app → profile → Export All Health Data)"
        case .unreadable(let reason):
            "the file could not be read (\(reason)); check that it exists and is readable, then try again"
        case .unsupportedEncoding:
            "the file is UTF-16 or UTF-32; FineDust reads UTF-8 exports and GPX files — convert it to UTF-8 (iconv -t UTF-8)"
        case .entityInDocumentType(let line):
            "line \(line): the document type declares or uses an entity (<!ENTITY or %name;); FineDust refuses entities, which can expand without bound or read local files — a real Health export declares none, so export it again from the Health app"
        case .externalIdentifier(let line):
            "line \(line): the document type points to an outside resource (SYSTEM, PUBLIC or <!NOTATION); FineDust never loads one — a real Health export has only an internal subset, so export it again from the Health app"
        case .unexpectedDeclaration(let line):
            "line \(line): the document type holds a declaration other than <!ELEMENT and <!ATTLIST; FineDust accepts only those — export the data again from the Health app"
        case .prologTooLong(let limit):
            "the file has more than \(limit / 1024) KiB before its first element; a Health export's document type is about 10 KB — this is not an export FineDust reads"
        case .attributeTooLong(let line, let limit):
            "line \(line): an attribute value or text longer than \(limit / 1024) KiB; Health exports and GPX files never hold one — the file is damaged or not an export"
        case .tooManyAttributes(let line, let limit):
            "line \(line): an element with more than \(limit) attributes; Health exports and GPX files have a few on each — the file is damaged or not an export"
        case .nestingTooDeep(let line, let limit):
            "line \(line): elements nested more than \(limit) deep; Health exports and GPX tracks nest a few levels — the file is damaged or not an export"
        case .malformedXML(let line, let reason):
            // Line 0: libxml2 knows none (an error of its input layer, such as an encoding that does not decode).
            "\(line > 0 ? "line \(line): " : "")the file is not well-formed XML (\(reason)); if it was cut off, copy or export it again"
        case .notAHealthExport(let root):
            "the root element is <\(root)>, not <HealthData>; give the export.xml (or export.zip) the Health app wrote"
        case .notAGPXFile(let root):
            "the root element is <\(root)>, not <gpx>; give a GPX 1.0 or 1.1 track"
        case .invalidRecord(let line, let record, let problem):
            "line \(line): a \(record.rawValue) record \(problem); the export is damaged — export it again from the Health app"
        case .invalidTrackPoint(let line, let problem):
            "line \(line): a track point \(problem); fix or remove the point, or export the track again"
        case .tooManyWorkoutRoutes(let limit):
            "the export holds more than \(limit) workout routes (the Health app writes one a workout: ten years of five a day are 18,250); this is not an export the Health app writes"
        case .unrecognizedFormat:
            "the file is not a format FineDust reads: give the Health app's export.zip or its export.xml, a GPX 1.0/1.1 track, or a CSV with the header start,distance_m (the content decides, not the file name)"
        case .unreadableZip(let reason):
            "the zip cannot be read (\(reason)); it may be cut off — copy or export it again"
        case .unsafeZipEntry(let name):
            "the zip holds an entry named \"\(name)\", which climbs out of the archive or is absolute; the Health app never writes one, so the zip was not read"
        case .duplicateZipEntry(let name):
            "the zip holds two entries named \"\(name)\"; the Health app writes each file once, and which of the two is meant cannot be told, so the zip was not read"
        case .zipEntryTooLarge(let name, let limit, let ratio):
            "the zip entry \"\(name)\" inflates to more than \(limit / (1024 * 1024)) MiB or more than \(ratio) times its compressed size; a Health export never does — this looks like a zip bomb, and nothing was stored"
        case .damagedZipEntry(let name, let reason):
            "the zip entry \"\(name)\" is damaged (\(reason)); copy or export the zip again"
        case .tooManyZipEntries(let limit):
            "the zip holds more than \(limit) entries; this is not an export the Health app writes"
        case .tooManySourceHours(let limit):
            "the file gives walking distance to more than \(limit) hours across its sources; no real export or track does — it was not imported"
        case .tooManyHealthSources(let limit):
            "the export's walking distance comes from more than \(limit) devices and apps (sourceName); a real export names a handful — it was not imported"
        case .tooManyTrackedMinutes(let limit):
            "the file's tracks give a position to more than \(limit) minutes across their sources; split the tracks into several files — it was not imported"
        case .zipArchiveTooLarge(.inflatedBytes(let limit)):
            "the zip's entries inflate to more than \(limit >= 1 << 30 ? "\(limit >> 30) GiB" : "\(limit) bytes") together, the limit activity.maxInflatedBytes sets; nothing was stored — if this is a real export, raise activity.maxInflatedBytes in the configuration"
        case .zipArchiveTooLarge(.compressionRatio(let ratio)):
            "the zip's entries together inflate to more than \(ratio) times the zip's compressed size; a Health export never does — this looks like a zip bomb, and nothing was stored"
        case .noHealthExportInZip:
            "the zip holds no Health export (an .xml file whose root element is <HealthData>, at its top or one folder down); give the export.zip the Health app wrote (Health → profile → Export All Health Data)"
        case .severalHealthExports(let names):
            "the zip holds more than one Health export (\(names.map { "\"\($0)\"" }.joined(separator: " and "))); unzip it and import the export.xml you mean"
        case .inWorkoutRoute(let path, let error):
            "the workout route \"\(path)\" in the zip: \(error) — or unzip it and import its export.xml alone, without the routes' positions"
        case .tooManyExportCandidates(let limit):
            "the zip holds more than \(limit) .xml files at its top or one folder down; the Health app writes two — this is not an export FineDust reads"
        }
    }
}

/// The kinds of Health record FineDust reads, as its errors name them.
public enum HealthRecordKind: String, Sendable, Hashable {
    case distance = "walking distance"
    case heartRate = "heart-rate"
    case restingHeartRate = "resting heart-rate"
    case sleep = "sleep"
}
