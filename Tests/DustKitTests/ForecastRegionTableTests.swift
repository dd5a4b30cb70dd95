import DustKit
import Testing

@Suite("Forecast region of a station (the documented table)", .timeLimit(.minutes(10)))
struct ForecastRegionTableTests {
    @Test(
        "Provinces map one to one, short and long forms",
        arguments: [
            ("서울", ForecastRegion.seoul), ("서울특별시", .seoul), ("부산", .busan), ("부산광역시", .busan),
            ("인천", .incheon), ("광주", .gwangju), ("광주광역시", .gwangju), ("세종특별자치시", .sejong),
            ("충청북도", .chungbuk), ("충남", .chungnam), ("전북특별자치도", .jeonbuk), ("전라북도", .jeonbuk),
            ("전남", .jeonnam), ("경상북도", .gyeongbuk), ("경남", .gyeongnam), ("제주특별자치도", .jeju),
            ("대구", .daegu), ("대전", .daejeon), ("울산", .ulsan),
        ])
    func provinces(sido: String, region: ForecastRegion) throws {
        #expect(try ForecastRegionTable.region(sido: sido, address: nil) == region)
    }

    @Test("경기: 고양 and 김포 are 경기북부, 수원 and 경기 광주 are 경기남부")
    func gyeonggi() throws {
        #expect(try ForecastRegionTable.region(sido: "경기", address: "경기도 고양시 일산동구 중앙로 1275") == .gyeonggiNorth)
        #expect(try ForecastRegionTable.region(sido: "경기", address: "경기도 김포시 사우중로 1") == .gyeonggiNorth)
        #expect(try ForecastRegionTable.region(sido: "경기", address: "경기 의정부시 시민로 1") == .gyeonggiNorth)
        #expect(try ForecastRegionTable.region(sido: "경기", address: "경기도 수원시 장안구 조원로 18") == .gyeonggiSouth)
        // 광주 the 경기 city is not 광주 the metropolitan city.
        #expect(try ForecastRegionTable.region(sido: "경기", address: "경기도 광주시 행정타운로 50") == .gyeonggiSouth)
        // No sidoName (a station known only from the station list): the address starts with it.
        #expect(try ForecastRegionTable.region(sido: nil, address: "경기도 파주시 금촌동 1") == .gyeonggiNorth)
    }

    @Test("강원: 강릉, 속초 and 태백 are 영동; 춘천 and 원주 are 영서 (강원특별자치도 too)")
    func gangwon() throws {
        #expect(try ForecastRegionTable.region(sido: "강원", address: "강원특별자치도 강릉시 옥천동 1") == .yeongdong)
        #expect(try ForecastRegionTable.region(sido: "강원", address: "강원도 속초시 중앙로 183") == .yeongdong)
        #expect(try ForecastRegionTable.region(sido: "강원", address: "강원도 태백시 황지동 1") == .yeongdong)
        #expect(try ForecastRegionTable.region(sido: "강원특별자치도", address: "강원특별자치도 고성군 간성읍 1") == .yeongdong)
        #expect(try ForecastRegionTable.region(sido: "강원", address: "강원특별자치도 춘천시 중앙로 1") == .yeongseo)
        #expect(try ForecastRegionTable.region(sido: "강원", address: "강원도 원주시 명륜동 1") == .yeongseo)
    }

    @Test("An unknown province or a 경기 station without an address asks for forecast.region")
    func unknown() throws {
        #expect(throws: ForecastRegionError.unknownStation(sido: "Atlantis")) {
            try ForecastRegionTable.region(sido: "Atlantis", address: nil)
        }
        #expect(throws: ForecastRegionError.cityNeeded(sido: "경기")) {
            try ForecastRegionTable.region(sido: "경기", address: nil)
        }
        let message = ForecastRegionError.unknownStation(sido: "Atlantis").description
        #expect(message.contains("set forecast.region"))
        #expect(message.contains("DUSTD_FORECAST_REGION"))
        #expect(message.contains("경기북부"))
        #expect(ForecastRegionError.cityNeeded(sido: "강원").description.contains("dustctl stations sync"))
    }

    @Test("Region names: the 19 raw names, 강원영동/강원영서 accepted")
    func names() {
        #expect(ForecastRegion.allCases.count == 19)
        #expect(ForecastRegion(name: "강원영동") == .yeongdong)
        #expect(ForecastRegion(name: " 경기북부 ") == .gyeonggiNorth)
        #expect(ForecastRegion(name: "경기") == nil)
    }
}
