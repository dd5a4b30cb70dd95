/// A fetched page and where it came from.
public struct FetchedPage: Sendable {
    public var page: MeasurementPage
    public var httpStatus: Int

    public init(page: MeasurementPage, httpStatus: Int) {
        self.page = page
        self.httpStatus = httpStatus
    }
}
