import DustKit
import Foundation

/// A station name checked against what AirKorea and the database know, with the nearest real names
/// when it is not one (docs/REFERENCE.md §7, §15): the most likely setup mistake must not pass as
/// "0 new".
public enum StationNames {
    /// How many names a sentence suggests.
    public static let suggestions = 5

    /// What dustd logs and `dustctl status` shows when AirKorea returns no hour for `name`.
    public static func unknownToAirKorea(_ name: String, known: [String]) -> String {
        let shown = TerminalSafeText.shown(name, characters: 80)
        let nearest = SpellingDistance.nearest(suggestions, to: name, among: known.filter { $0 != name })
        let hint =
            nearest.isEmpty
            ? "run dustctl stations sync, then dustctl stations list shows every name"
            : "the nearest stored names: \(nearest.joined(separator: ", ")) (dustctl stations list shows them all)"
        return
            "AirKorea knows no station named \(shown): it returned no hour for it; set station.name (or the fallback or the person's station) to a real name; \(hint)"
    }

    /// What dustd logs and `dustctl status` shows when AirKorea returns no hour for `name`, whose hours it
    /// used to return (the newest stored ends at `newest`): not a mistyped name but a station closed,
    /// renamed or out of service.
    public static func noLongerAnswered(_ name: String, newest: Slot) -> String {
        let shown = TerminalSafeText.shown(name, characters: 80)
        let last = KoreaStandardTime.dataTime(of: newest)
        return "AirKorea returned no hour for \(shown), whose hours it sent before (the newest stored is \(last) KST): the "
            + "station may be closed, renamed or out of service; the fallbacks are polled meanwhile. AirKorea's list "
            + "(dustctl stations sync, then dustctl stations nearest --lat LAT --lon LON) names the stations near you; set "
            + "station.name (or the fallback or the person's station) to one of them"
    }

    /// What dustctl says when a command is asked about `name` and the database holds no hour of it.
    public static func notStored(_ name: String, known: [String]) -> String {
        let shown = TerminalSafeText.shown(name, characters: 80)
        let nearest = SpellingDistance.nearest(suggestions, to: name, among: known)
        let list = known.count <= suggestions ? "stations with readings: " : "the nearest with readings: "
        return "No readings of a station \(shown) are stored; \(list)\(nearest.joined(separator: ", "))"
    }
}
