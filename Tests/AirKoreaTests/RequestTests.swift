import AirKorea
import Foundation
import Testing

@Suite("Requests: the key is encoded exactly once and never shown", .timeLimit(.minutes(10)))
struct RequestTests {
    let rawKey = "abc+def/ghi=="
    let encodedKey = "abc%2Bdef%2Fghi%3D%3D"

    @Test("A raw (Decoding) key is percent-encoded once")
    func rawKeyEncodedOnce() throws {
        let endpoint = AirKoreaEndpoint(serviceKey: try #require(ServiceKey(self.rawKey)))
        let url = endpoint.url(for: .stationRealtime(station: "종로구", term: .daily))
        #expect(
            url
                == "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty?serviceKey=abc%2Bdef%2Fghi%3D%3D&returnType=xml&numOfRows=100&pageNo=1&stationName=%EC%A2%85%EB%A1%9C%EA%B5%AC&dataTerm=DAILY&ver=1.5"
        )
    }

    @Test("An already encoded (Encoding) key is sent as is, not double-encoded")
    func encodedKeySentAsIs() throws {
        let endpoint = AirKoreaEndpoint(serviceKey: try #require(ServiceKey(" \(self.encodedKey)\n")))
        let url = endpoint.url(for: .provinceRealtime(sido: "전국"))
        #expect(
            url.hasPrefix("https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty?serviceKey=abc%2Bdef%2Fghi%3D%3D&")
        )
        #expect(url.contains("sidoName=%EC%A0%84%EA%B5%AD"))
        #expect(!url.contains("%25"))
    }

    @Test("Every description of a request or key is redacted")
    func redaction() throws {
        let key = try #require(ServiceKey(rawKey))
        let endpoint = AirKoreaEndpoint(baseURL: "http://127.0.0.1:8080/B552584/", version: "1.5", serviceKey: key)
        let request = AirKoreaRequest.stationRealtime(station: "종로구", term: .threeMonths, page: 2, rows: 1000)
        let redacted = endpoint.redactedURL(for: request)
        #expect(
            redacted
                == "http://127.0.0.1:8080/B552584/ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty?serviceKey=***&returnType=xml&numOfRows=1000&pageNo=2&stationName=%EC%A2%85%EB%A1%9C%EA%B5%AC&dataTerm=3MONTH&ver=1.5"
        )
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

@Suite("The key is found and removed in every encoding an echo may use", .timeLimit(.minutes(10)))
struct KeyRedactionTests {
    let key = ServiceKey("abc+def/ghi==")!

    @Test(
        "Raw, upper- and lower-case hex, mixed, double-encoded, + as space and character references are all redacted",
        arguments: [
            "abc+def/ghi==", "abc%2Bdef%2Fghi%3D%3D", "abc%2bdef%2fghi%3d%3d", "abc%2Bdef/ghi%3d=",
            "abc%252Bdef%252Fghi%253D%253D", "abc def/ghi==", "abc&#43;def&#x2F;ghi&#61;&#x3d;",
        ])
    func encodings(_ form: String) {
        let text = "before \(form) after"
        #expect(key.occurs(in: text))
        #expect(key.redacting(text) == "before *** after")
        #expect(key.redacting(Data(text.utf8)) == Data("before *** after".utf8))
    }

    @Test("A key given in its Encoding form is found decoded too")
    func encodedForm() {
        let encoded = ServiceKey("abc%2Bdef%2Fghi%3D%3D")!
        #expect(encoded.redacting("x abc+def/ghi== y") == "x *** y")
    }

    @Test("Any serviceKey= parameter value is redacted, even a key cut short or unknown")
    func parameters() {
        #expect(key.redacting("GET /x?serviceKey=abc%2Bde&pageNo=1") == "GET /x?serviceKey=***&pageNo=1")
        #expect(ServiceKey.redactingKeyParameters("/B552584/x?SERVICEKEY%3DZZZ%2F99 end") == "/B552584/x?SERVICEKEY%3D*** end")
        #expect(ServiceKey.redactingKeyParameters("serviceKey=***") == "serviceKey=***")
        #expect(ServiceKey.redactingKeyParameters("nothing to see") == "nothing to see")
    }

    @Test("Text without the key is returned unchanged")
    func untouched() {
        let text = "<response><header><resultCode>00</resultCode></header></response> abc+def/ghi= %2B &amp;"
        #expect(key.redacting(text) == text)
        #expect(!key.occurs(in: text))
    }
}
