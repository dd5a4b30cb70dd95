import Foundation

// The weighting of docs/REFERENCE.md §19 for many points against the same stations (a slot's tracked
// positions, a year of them): each station placed and its cos φ computed once, each point's distance to a
// station computed once for both pollutants, only the stations that can be among the nearest three
// measured at all, and the three chosen by insertion, by index. It returns exactly what
// `InverseDistanceWeighting.value(at:candidates:radiusKilometres:)` returns (the reference definition).

/// Stations prepared for weighting many points: their names, positions and cos φ, ordered by latitude.
public struct WeightingStations: Sendable {
    /// The stations, by index.
    public let names: [String]
    private let latitudes: [Double]
    private let longitudes: [Double]
    private let cosines: [Double]
    /// Whether the station has a plausible position (else it is counted as without coordinates).
    private let placed: [Bool]
    /// The station's place among `names` sorted: equal distances go to the first name.
    private let nameRank: [Int]
    /// The placed stations' indices by latitude, and those latitudes.
    private let byLatitude: [Int]
    private let sortedLatitudes: [Double]

    /// `locations[i]` is where `names[i]` stands; nil (or an implausible position) leaves the station
    /// out of every weighting and counts it. Names are unique.
    public init(names: [String], locations: [GeoPoint?]) {
        precondition(names.count == locations.count, "one location per station")
        self.names = names
        var latitudes = [Double](repeating: .nan, count: names.count)
        var longitudes = latitudes
        var cosines = latitudes
        var placed = [Bool](repeating: false, count: names.count)
        for (index, location) in locations.enumerated() {
            guard let location, Station.isPlausibleLocation(latitude: location.latitude, longitude: location.longitude) else { continue }
            latitudes[index] = location.latitude
            longitudes[index] = location.longitude
            cosines[index] = GreatCircle.cosine(ofLatitude: location.latitude)
            placed[index] = true
        }
        var rank = [Int](repeating: 0, count: names.count)
        for (position, index) in names.indices.sorted(by: { names[$0] < names[$1] }).enumerated() { rank[index] = position }
        let ordered = names.indices.filter { placed[$0] }.sorted { latitudes[$0] < latitudes[$1] }
        self.latitudes = latitudes
        self.longitudes = longitudes
        self.cosines = cosines
        self.placed = placed
        nameRank = rank
        byLatitude = ordered
        sortedLatitudes = ordered.map { latitudes[$0] }
    }

    /// How many stations.
    public var count: Int { names.count }

    /// Whether station `index` has a plausible position.
    public func isPlaced(_ index: Int) -> Bool { placed[index] }

    /// One slot's values: which stations have a row for it (the candidates) and their values.
    public struct Readings: Sendable {
        /// Per station: a row for the slot was recorded.
        fileprivate var present: [Bool]
        /// Per station and pollutant, the value; NaN when unknown (nil or not finite, as the weighting skips).
        fileprivate var values: DustPair<[Double]>
        /// The stations recorded, in order, so `clear()` touches only those.
        fileprivate var recorded: [Int] = []
        /// Candidates without a plausible position.
        public fileprivate(set) var withoutCoordinates = 0
        /// Whether a recorded station is placed and has a value (nil or not) for either pollutant.
        public fileprivate(set) var hasPlacedValue = false

        /// How many stations have a row for the slot.
        public var candidateCount: Int { recorded.count }

        fileprivate init(count: Int) {
            present = [Bool](repeating: false, count: count)
            values = DustPair(repeating: [Double](repeating: .nan, count: count))
        }
    }

    /// No station has a row yet.
    public func readings() -> Readings { Readings(count: names.count) }

    /// Records station `index`'s row for the slot; a station recorded twice keeps its first row.
    public func record(_ index: Int, values: DustPair<Double?>, in readings: inout Readings) {
        guard !readings.present[index] else { return }
        readings.present[index] = true
        readings.recorded.append(index)
        readings.values.fineDust[index] = values.fineDust.flatMap { $0.isFinite ? $0 : nil } ?? .nan
        readings.values.ultraFineDust[index] = values.ultraFineDust.flatMap { $0.isFinite ? $0 : nil } ?? .nan
        if !placed[index] {
            readings.withoutCoordinates += 1
        } else if values.fineDust != nil || values.ultraFineDust != nil {
            readings.hasPlacedValue = true
        }
    }

    /// Forgets every recorded row, for the next slot.
    public func clear(_ readings: inout Readings) {
        for index in readings.recorded {
            readings.present[index] = false
            readings.values.fineDust[index] = .nan
            readings.values.ultraFineDust[index] = .nan
        }
        readings.recorded.removeAll(keepingCapacity: true)
        readings.withoutCoordinates = 0
        readings.hasPlacedValue = false
    }

    /// The nearest (at most three) stations with a value within `radiusKilometres` of `point`, per
    /// pollutant, and the weighted value: what `InverseDistanceWeighting.value` gives for each.
    /// `near`, the stations found for a point close by (the previous minute's), are measured first:
    /// they make the search's reach small at once. Which stations it names never changes the result.
    public func nearest(
        to point: GeoPoint, readings: Readings, radiusKilometres: Double, near hint: DustPair<Nearest>? = nil
    ) -> DustPair<Nearest> {
        var fine = Nearest()
        var ultraFine = Nearest()
        let latitude = point.latitude
        let longitude = point.longitude
        let cosine = GreatCircle.cosine(ofLatitude: latitude)
        let fineValues = readings.values.fineDust
        let ultraFineValues = readings.values.ultraFineDust
        // Lower bounds of the distance, each shrunk by a part in a billion so that rounding can never
        // prune a true neighbour. A great circle is never shorter than its change of latitude, R × |Δφ|;
        // and sin(d / 2R) ≥ √(cos φ₁ cos φ₂) × sin(Δλ / 2) ≥ min(cos φ) × (h − h³/6) with h = Δλ / 2
        // (Δλ folded to at most 180°), so d ≥ 2R × min(cos φ) × (h − h³/6).
        let kilometresPerDegree = GreatCircle.earthRadiusMetres / 1000 * (Double.pi / 180) * (1 - 1e-9)
        let diameterKilometres = 2 * GreatCircle.earthRadiusMetres / 1000 * (1 - 1e-9)
        func measure(_ index: Int, reach: Double) {
            let fineValue = fineValues[index]
            let ultraFineValue = ultraFineValues[index]
            guard !fineValue.isNaN || !ultraFineValue.isNaN else { return }
            var longitudeDelta = abs(longitudes[index] - longitude)
            if longitudeDelta > 180 { longitudeDelta = 360 - longitudeDelta }
            let half = longitudeDelta * (Double.pi / 360)
            if diameterKilometres * min(cosine, cosines[index]) * (half - half * half * half / 6) > reach { return }
            let distance =
                GreatCircle.metres(
                    latitude1: latitude, longitude1: longitude, cosineOfLatitude1: cosine, latitude2: latitudes[index],
                    longitude2: longitudes[index], cosineOfLatitude2: cosines[index]) / 1000
            guard distance <= radiusKilometres else { return }
            if !fineValue.isNaN { fine.insert(index, distance: distance, rank: nameRank) }
            if !ultraFineValue.isNaN { ultraFine.insert(index, distance: distance, rank: nameRank) }
        }
        // The hinted stations first (each once), then the others outward in latitude. At most six,
        // kept in plain variables: this runs for every position.
        var hinted = (-1, -1, -1, -1, -1, -1)
        var hintedCount = 0
        func isHinted(_ index: Int) -> Bool {
            index == hinted.0 || index == hinted.1 || index == hinted.2 || index == hinted.3 || index == hinted.4 || index == hinted.5
        }
        func measureFirst(_ nearest: Nearest) {
            for rank in 0..<nearest.count {
                let index = nearest.index(rank)
                guard index < count, placed[index], !isHinted(index) else { continue }
                switch hintedCount {
                case 0: hinted.0 = index
                case 1: hinted.1 = index
                case 2: hinted.2 = index
                case 3: hinted.3 = index
                case 4: hinted.4 = index
                default: hinted.5 = index
                }
                hintedCount += 1
                measure(index, reach: radiusKilometres)
            }
        }
        if let hint {
            measureFirst(hint.fineDust)
            measureFirst(hint.ultraFineDust)
        }
        var above = lowerBound(latitude)
        var below = above - 1
        let stationCount = sortedLatitudes.count
        while true {
            let belowDelta = below >= 0 ? latitude - sortedLatitudes[below] : .infinity
            let aboveDelta = above < stationCount ? sortedLatitudes[above] - latitude : .infinity
            let delta = min(belowDelta, aboveDelta)
            guard delta.isFinite else { break }
            let reach = max(fine.reach(radiusKilometres), ultraFine.reach(radiusKilometres))
            if delta * kilometresPerDegree > reach { break }
            let index: Int
            if belowDelta <= aboveDelta {
                index = byLatitude[below]
                below -= 1
            } else {
                index = byLatitude[above]
                above += 1
            }
            if hintedCount > 0 && isHinted(index) { continue }
            measure(index, reach: reach)
        }
        fine.finish(values: fineValues, readings: readings)
        ultraFine.finish(values: ultraFineValues, readings: readings)
        return DustPair(fineDust: fine, ultraFineDust: ultraFine)
    }

    /// `nearest` in the shape `InverseDistanceWeighting.value` returns, names and all.
    public func weightedValue(_ nearest: Nearest, pollutant: Pollutant, readings: Readings) -> WeightedValue {
        guard nearest.count > 0 else {
            return WeightedValue(outcome: .fallback(nearest.fallback!), stationsWithoutCoordinates: readings.withoutCoordinates)
        }
        let values = readings.values[pollutant]
        let stations = (0..<nearest.count).map { slot in
            let index = nearest.index(slot)
            return InverseDistanceWeighting.weightedStation(
                names[index], distanceKilometres: nearest.distanceKilometres(slot), value: values[index])
        }
        return WeightedValue(
            outcome: .weighted(value: nearest.value!, stations: stations), stationsWithoutCoordinates: readings.withoutCoordinates)
    }

    /// The first position in `sortedLatitudes` at or above `latitude`.
    private func lowerBound(_ latitude: Double) -> Int {
        var low = 0
        var high = sortedLatitudes.count
        while low < high {
            let middle = (low + high) / 2
            if sortedLatitudes[middle] < latitude { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Up to three stations, nearest first (ties by name), and their weighted value; no arrays.
    public struct Nearest: Sendable {
        /// How many stations (0…3).
        public private(set) var count = 0
        private var first = (index: 0, distance: 0.0)
        private var second = (index: 0, distance: 0.0)
        private var third = (index: 0, distance: 0.0)
        /// `Σ wᵢCᵢ / Σ wᵢ`; nil without a station.
        public private(set) var value: Double?
        /// Why there is no value; nil with one.
        public private(set) var fallback: WeightingFallback?

        init() {}

        /// The station index of the `slot`-th nearest (0…count − 1).
        public func index(_ slot: Int) -> Int { slot == 0 ? first.index : slot == 1 ? second.index : third.index }

        /// Its distance, km.
        public func distanceKilometres(_ slot: Int) -> Double {
            slot == 0 ? first.distance : slot == 1 ? second.distance : third.distance
        }

        /// How far a station may still be and be taken: the radius until three are found, then the third's distance.
        fileprivate func reach(_ radius: Double) -> Double { count < 3 ? radius : third.distance }

        /// Keeps the three nearest: a new station goes before the first it is nearer than (or as near
        /// with an earlier name), and the fourth falls off.
        fileprivate mutating func insert(_ index: Int, distance: Double, rank: [Int]) {
            func before(_ other: (index: Int, distance: Double)) -> Bool {
                distance < other.distance || (distance == other.distance && rank[index] < rank[other.index])
            }
            let entry = (index: index, distance: distance)
            if count == 3 && !before(third) { return }
            if count == 0 || before(first) {
                third = second
                second = first
                first = entry
            } else if count == 1 || before(second) {
                third = second
                second = entry
            } else {
                third = entry
            }
            count = min(count + 1, 3)
        }

        fileprivate mutating func finish(values: [Double], readings: Readings) {
            guard count > 0 else {
                fallback =
                    readings.candidateCount == 0
                    ? .noNationalData
                    : readings.withoutCoordinates == readings.candidateCount ? .noStationPositions : .noStationWithinRadius
                return
            }
            // The same sums in the same order as the reference's, so the same bits.
            var weightedSum = 0.0
            var weightSum = 0.0
            for slot in 0..<count {
                let weight = InverseDistanceWeighting.weight(distanceKilometres: distanceKilometres(slot))
                weightedSum += weight * values[index(slot)]
            }
            for slot in 0..<count { weightSum += InverseDistanceWeighting.weight(distanceKilometres: distanceKilometres(slot)) }
            value = weightedSum / weightSum
        }
    }
}
