"""The station list of the benchmarks that follow people across the country (Benchmarks/track-week.sh,
Benchmarks/liveness.sh): a getMsrstnList response of the 673 stations of
Fixtures/synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml and the eight of
Fixtures/synthesized/msrstn-list-seoul-walk-8.xml (680 names; those eight at their real coordinates, the
others spread around their 시도, 서울's within the city), for `dustctl stations import`."""
import math
import xml.etree.ElementTree as ET


def write_station_list(root, path):
    """Writes the response to `path`; returns each station's (name, 시도) in the list's order."""
    nation = ET.parse(f"{root}/Fixtures/synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml").getroot()
    real = {item.findtext("stationName"): (float(item.findtext("dmX")), float(item.findtext("dmY")))
            for item in ET.parse(f"{root}/Fixtures/synthesized/msrstn-list-seoul-walk-8.xml").getroot().iter("item")
            if item.findtext("dmX")}
    # Each 시도's centre and how far (degrees) its stations spread from it.
    centres = {"서울": (37.5550, 126.9900, 0.10), "부산": (35.1796, 129.0756, 0.15), "대구": (35.8714, 128.6014, 0.15),
               "인천": (37.4563, 126.7052, 0.15), "전남광주": (35.0000, 126.9000, 0.45), "대전": (36.3504, 127.3845, 0.12),
               "울산": (35.5384, 129.3114, 0.15), "세종": (36.4800, 127.2890, 0.10), "경기": (37.4138, 127.5183, 0.45),
               "강원": (37.8228, 128.1555, 0.50), "충북": (36.6357, 127.4917, 0.40), "충남": (36.5184, 126.8000, 0.40),
               "전북": (35.7175, 127.1530, 0.40), "경북": (36.4919, 128.8889, 0.55), "경남": (35.4606, 128.2132, 0.45),
               "제주": (33.4000, 126.5600, 0.20)}
    listed = [(item.findtext("stationName"), item.findtext("sidoName")) for item in nation.iter("item")]
    listed += [(name, "서울") for name in real if name not in {name for name, _ in listed}]
    seen = {}
    items = []
    for name, sido in listed:
        if name in real:
            lat, lon = real[name]
        else:
            # A sunflower spiral: the n-th station of a 시도 at radius ∝ √n, turned by the golden angle.
            n = seen.get(sido, 0)
            seen[sido] = n + 1
            lat0, lon0, spread = centres[sido]
            r = spread * math.sqrt((n + 0.5) / 45)
            angle = n * math.pi * (3 - math.sqrt(5))
            lat, lon = lat0 + r * math.sin(angle), lon0 + r * math.cos(angle) / math.cos(math.radians(lat0))
        items.append(f"<item><stationName>{name}</stationName><addr>{sido} {name}</addr><year>2026</year>"
                     f"<mangName>도시대기</mangName><item>SO2, CO, O3, NO2, PM10, PM2.5</item>"
                     f"<dmX>{lat:.6f}</dmX><dmY>{lon:.6f}</dmY></item>")
    with open(path, "w") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<response><header><resultCode>00</resultCode>'
                  "<resultMsg>NORMAL SERVICE.</resultMsg></header><body><items>\n")
        out.write("\n".join(items))
        out.write(f"\n</items><numOfRows>1000</numOfRows><pageNo>1</pageNo><totalCount>{len(items)}</totalCount></body></response>\n")
    return listed
