#!/usr/bin/env python3
"""Writes the demo walk's fixtures (docs/REFERENCE.md §19, §6), deterministically:

- Fixtures/synthesized/msrstn-list-seoul-walk-8.xml: a getMsrstnList answer for 8 서울 stations along the
  walk (dmX = latitude, dmY = longitude). 종로구, 중구 and 용산구 stand where docs/REFERENCE.md §19's worked
  example puts them; the other five positions are synthesized (plausible, not surveyed).
- Fixtures/synthesized/sido-seoul-walk-2026-11-20-16h00-17h00.xml: a getCtprvnRltmMesureDnsty answer
  (sidoName 서울) for dataTimes 2026-11-20 16:00 and 17:00 of the 7 stations other than 종로구 (whose
  hours the DAILY fixture already stores: 46/23 and 50/26); the stations south-west of it are dirtier. Gases
  and the index are `-` (not measured), so no gas the demo's pages show comes from them.
- Fixtures/activity/demo-walk-jongno-2026-11-20.gpx: jiho's walk, GPX 1.1, a point every 15 s from
  15:10:00 to 15:49:45 KST (06:10:00Z…06:49:45Z): from 종로구's station west along 종로 to 종각, then
  south-west down 남대문로 to 숭례문 (about 3.3 km in 40 minutes).

With --print, prints each tracked minute's IDW value at 15:00–16:00 (the hour of dataTime 16:00), as the
test's hand computation: k = 3, weights 1 / max(d, 0.1 km)^2, haversine with R = 6371.0088 km.
"""
import math
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")

# name, address, latitude, longitude, synthesized position?
STATIONS = [
    ("종로구", "서울 종로구 종로35가길 19 종로5,6가 동 주민센터", 37.572025, 127.005028, False),
    ("중구", "서울 중구 덕수궁길 15 시청서소문별관 3동", 37.564263, 126.974676, False),
    ("용산구", "서울 용산구 한남대로 136 서울특별시 중부기술교육원", 37.540033, 127.004850, False),
    ("서대문구", "서울 서대문구 세검정로4길 32 홍제3동 주민센터", 37.593742, 126.949679, True),
    ("마포구", "서울 마포구 포은로6길 10 망원1동 주민센터", 37.555580, 126.905597, True),
    ("성북구", "서울 성북구 삼양로2길 70 길음2동 주민센터", 37.606720, 127.027337, True),
    ("동대문구", "서울 동대문구 천호대로13길 43 용두동 주민센터", 37.575743, 127.028885, True),
    ("성동구", "서울 성동구 뚝섬로3길 18 성수1가1동 주민센터", 37.542036, 127.049685, True),
]

# dataTime → station → (pm10, pm25); 종로구's are the DAILY fixture's for those hours (46/23, 50/26).
VALUES = {
    "2026-11-20 16:00": {"종로구": (46, 23), "중구": (70, 41), "용산구": (62, 35), "서대문구": (55, 30),
                         "마포구": (66, 38), "성북구": (40, 20), "동대문구": (44, 22), "성동구": (52, 27)},
    "2026-11-20 17:00": {"종로구": (50, 26), "중구": (74, 44), "용산구": (65, 37), "서대문구": (58, 31),
                         "마포구": (69, 40), "성북구": (43, 21), "동대문구": (47, 24), "성동구": (55, 29)},
}

# The route's corners (latitude, longitude) and the minute each is reached, from 15:10.
ROUTE = [
    (0, 37.572025, 127.005028),   # 종로구's station (종로5·6가)
    (6, 37.570960, 126.998100),   # 종로4가
    (12, 37.570500, 126.991800),  # 종로3가
    (19, 37.570200, 126.983000),  # 종각
    (24, 37.567700, 126.981300),  # 광교
    (30, 37.564100, 126.978800),  # 명동입구 (남대문로)
    (35, 37.561800, 126.976900),  # 남대문시장
    (40, 37.560000, 126.975300),  # 숭례문
]


def haversine(a, b):
    r = 6371.0088
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))


def point(seconds):
    """The walk's position `seconds` after 15:10:00, interpolated between the route's corners."""
    minute = seconds / 60
    for (m0, la0, lo0), (m1, la1, lo1) in zip(ROUTE, ROUTE[1:]):
        if m0 <= minute <= m1:
            t = (minute - m0) / (m1 - m0)
            return (la0 + (la1 - la0) * t, lo0 + (lo1 - lo0) * t)
    return ROUTE[-1][1:]


def points():
    return [(s, point(s)) for s in range(0, 40 * 60, 15)]


def station_list():
    items = "".join(
        f"""            <item>
                <stationName>{name}</stationName>
                <addr>{addr}</addr>
                <year>2026</year>
                <oper>서울특별시보건환경연구원</oper>
                <vrml></vrml>
                <mangName>도시대기</mangName>
                <item>SO2, CO, O3, NO2, PM10, PM2.5</item>
                <dmX>{lat:.6f}</dmX>
                <dmY>{lon:.6f}</dmY>
            </item>
"""
        for name, addr, lat, lon, _ in STATIONS)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<response>
    <header>
        <resultCode>00</resultCode>
        <resultMsg>NORMAL SERVICE.</resultMsg>
    </header>
    <body>
        <items>
{items}        </items>
        <numOfRows>100</numOfRows>
        <pageNo>1</pageNo>
        <totalCount>{len(STATIONS)}</totalCount>
    </body>
</response>
"""


def archive():
    items = []
    for time, stations in VALUES.items():
        for name, _, _, _, _ in STATIONS[1:]:
            pm10, pm25 = stations[name]
            items.append(f"""      <item>
        <stationName>{name}</stationName>
        <mangName>도시대기</mangName>
        <sidoName>서울</sidoName>
        <dataTime>{time}</dataTime>
        <so2Value>-</so2Value>
        <coValue>-</coValue>
        <o3Value>-</o3Value>
        <no2Value>-</no2Value>
        <pm10Value>{pm10}</pm10Value>
        <pm10Value24>{pm10}</pm10Value24>
        <pm25Value>{pm25}</pm25Value>
        <pm25Value24>{pm25}</pm25Value24>
        <khaiValue>-</khaiValue>
        <khaiGrade/>
        <so2Grade/>
        <coGrade/>
        <o3Grade/>
        <no2Grade/>
        <pm10Grade>2</pm10Grade>
        <pm25Grade>2</pm25Grade>
        <pm10Grade1h>2</pm10Grade1h>
        <pm25Grade1h>2</pm25Grade1h>
        <so2Flag/>
        <coFlag/>
        <o3Flag/>
        <no2Flag/>
        <pm10Flag/>
        <pm25Flag/>
      </item>
""")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<response>
  <header>
    <resultCode>00</resultCode>
    <resultMsg>NORMAL_CODE</resultMsg>
  </header>
  <body>
    <items>
{"".join(items)}    </items>
    <numOfRows>100</numOfRows>
    <pageNo>1</pageNo>
    <totalCount>{len(items)}</totalCount>
  </body>
</response>
"""


def gpx():
    trkpts = "".join(
        f'   <trkpt lat="{lat:.6f}" lon="{lon:.6f}"><ele>30.0</ele><time>2026-11-20T06:{10 + s // 60:02d}:{s % 60:02d}Z</time></trkpt>\n'
        for s, (lat, lon) in points())
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="FineDust scripts/make-walk-fixtures.py" xmlns="http://www.topografix.com/GPX/1/1">
 <metadata>
  <time>2026-11-20T06:10:00Z</time>
 </metadata>
 <trk>
  <name>종로 to 숭례문, 2026-11-20 15:10</name>
  <trkseg>
{trkpts}  </trkseg>
 </trk>
</gpx>
"""


def idw(p, values, k=3, radius=10.0):
    placed = {name: (lat, lon) for name, _, lat, lon, _ in STATIONS}
    candidates = sorted((haversine(p, placed[n]), n, v) for n, v in values.items())
    used = [c for c in candidates if c[0] <= radius][:k]
    weights = [1 / max(d, 0.1) ** 2 for d, _, _ in used]
    return sum(w * v for w, (_, _, v) in zip(weights, used)) / sum(weights), used


def main():
    if "--print" in sys.argv:
        values = VALUES["2026-11-20 16:00"]
        for index, pollutant in ((0, "pm10"), (1, "pm25")):
            total = 0.0
            for minute in range(40):
                # The stored position of a minute is its last point (the one at :45).
                p = tuple(round(x, 6) for x in point(minute * 60 + 45))
                c, used = idw(p, {n: v[index] for n, v in values.items()})
                total += c
                print(f"{pollutant} 15:{10 + minute:02d} {p[0]:.6f}/{p[1]:.6f} C={c:.6f} "
                      + ", ".join(f"{n} {d:.6f} km" for d, n, _ in used))
            print(f"{pollutant} C_T = {total / 40:.9f}")
        return
    files = {
        "synthesized/msrstn-list-seoul-walk-8.xml": station_list(),
        "synthesized/sido-seoul-walk-2026-11-20-16h00-17h00.xml": archive(),
        "activity/demo-walk-jongno-2026-11-20.gpx": gpx(),
    }
    for path, text in files.items():
        with open(os.path.join(ROOT, path), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
