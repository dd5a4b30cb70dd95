import AirKorea
import Testing

@Suite("Requests: the key is encoded exactly once and never shown")
struct RequestTests {
    let rawKey = "abc+def/ghi=="
    let encodedKey = "abc%2Bdef%2Fghi%3D%3D"

    @Test("A raw (Decoding) key is percent-encoded once")
    func rawKeyEncodedOnce() throws {
        let endpoint = AirKoreaEndpoint(serviceKey: try #require(ServiceKey(self.rawKey)))
        let url = endpoint.url(for: .stationRealtime(station: "종로구", term: .daily))
        #expect(url == "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty?serviceKey=abc%2Bdef%2Fghi%3D%3D&returnType=xml&numOfRows=100&pageNo=1&stationName=%EC%A2%85%EB%A1%9C%EA%B5%AC&dataTerm=DAILY&ver=1.5")
    }

    @Test("An already encoded (Encoding) key is sent as is, not double-encoded")
    func encodedKeySentAsIs() throws {
        let endpoint = AirKoreaEndpoint(serviceKey: try #require(ServiceKey(" \(self.encodedKey)\n")))
        let url = endpoint.url(for: .provinceRealtime(sido: "전국"))
        #expect(url.hasPrefix("https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty?serviceKey=abc%2Bdef%2Fghi%3D%3D&"))
        #expect(url.contains("sidoName=%EC%A0%84%EA%B5%AD"))
        #expect(!url.contains("%25"))
    }

    @Test("Every description of a request or key is redacted")
    func redaction() throws {
        let key = try #require(ServiceKey(rawKey))
        let endpoint = AirKoreaEndpoint(baseURL: "http://127.0.0.1:8080/B552584/", version: "1.5", serviceKey: key)
        let request = AirKoreaRequest.stationRealtime(station: "종로구", term: .threeMonths, page: 2, rows: 1000)
        let redacted = endpoint.redactedURL(for: request)
        #expect(redacted == "http://127.0.0.1:8080/B552584/ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty?serviceKey=***&returnType=xml&numOfRows=1000&pageNo=2&stationName=%EC%A2%85%EB%A1%9C%EA%B5%AC&dataTerm=3MONTH&ver=1.5")
        var dumped = ""
        dump(key, to: &dumped)
        for text in ["\(key)", String(describing: key), String(reflecting: key), dumped, "\(endpoint)", redacted] {
            #expect(!key.occurs(in: text), "key leaked in \(text)")
        }
    }

    @Test("The station list request and paging")
    func stationList() {
        let request = AirKoreaRequest.stationList(address: "서울")
        #expect(request.path == "MsrstnInfoInqireSvc/getMsrstnList")
        #expect(request.page(3).pageNumber == 3)
        #expect(AirKoreaRequest.stationRealtime(station: "a", term: .month).requestedStation == "a")
    }

    @Test("Blank keys are refused")
    func blankKey() {
        #expect(ServiceKey("  \n") == nil)
        #expect(ServiceKey("two words") == nil)
    }
}
