import AirKorea
import DustConfig

extension AirKoreaClient {
    /// The client the `api.*` settings describe, sending `key`.
    init(api: APISettings, key: ServiceKey, transport: any HTTPTransport) {
        self.init(
            endpoint: AirKoreaEndpoint(baseURL: api.baseURL, version: api.version, serviceKey: key),
            transport: transport, timeout: .milliseconds(Int64(api.timeoutSeconds * 1000)))
    }
}
