#!/usr/bin/env python3
"""Writes the synthesized fixtures in Fixtures/synthesized and Fixtures/hostile.

Deterministic: the same script always writes the same bytes. Real recorded responses live in
Fixtures/real (each one's public origin and any change to it in Fixtures/real/PROVENANCE.md);
this script only makes shapes no public capture shows, in the exact XML layout of the real
new-service responses (header first, items with hash-ordered elements, empty *Flag elements).

    python3 scripts/make-fixtures.py
"""
import datetime as dt
import json
import os
import random

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")
SYN = os.path.join(ROOT, "synthesized")
HOSTILE = os.path.join(ROOT, "hostile")
KST = dt.timezone(dt.timedelta(hours=9))

# The hand-picked day that tests compute by hand: 종로구, 2026-11-20 (KST), dataTime 01:00 … 24:00.
# None means AirKorea sent "-"; a (value, flag) pair carries a flag.
JONGNO_DAY_PM10 = [38, 35, 33, 30, 28, ("-", "점검및교정"), 31, 40, 52, 61, 58, 55,
                   49, 47, 44, 46, 50, 57, 63, 66, 60, 54, 48, 45]
JONGNO_DAY_PM25 = [19, 18, 16, 15, 14, ("-", "점검및교정"), 15, 21, 27, 33, 30, 28,
                   24, "-", 22, 23, 26, 30, 34, 36, 31, 27, 24, 22]

GRADE_TABLE = {"pm10": (30, 80, 150), "pm25": (15, 35, 75)}


def grade(pollutant, value):
    if value is None:
        return ""
    bounds = GRADE_TABLE[pollutant]
    v = int(value)
    return str(1 + sum(v > b for b in bounds))


def data_time(end):
    """AirKorea stamps the hour ending at `end`; midnight is written 24:00 of the day before."""
    if end.hour == 0:
        prev = end - dt.timedelta(days=1)
        return prev.strftime("%Y-%m-%d") + " 24:00"
    return end.strftime("%Y-%m-%d %H:%M")


def envelope(items_xml, total, rows=None, page=1):
    rows = total if rows is None else rows
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <header>\n    <resultCode>00</resultCode>\n'
            '    <resultMsg>NORMAL_CODE</resultMsg>\n  </header>\n  <body>\n    <items>\n'
            + items_xml + '    </items>\n'
            f'    <numOfRows>{rows}</numOfRows>\n    <pageNo>{page}</pageNo>\n    <totalCount>{total}</totalCount>\n'
            '  </body>\n</response>\n')


def item_xml(fields, rng):
    keys = list(fields.keys())
    rng.shuffle(keys)  # the new service orders item elements differently from item to item
    lines = []
    for key in keys:
        value = fields[key]
        if value is None or value == "":
            lines.append(f"        <{key}/>")
        else:
            lines.append(f"        <{key}>{value}</{key}>")
    return "      <item>\n" + "\n".join(lines) + "\n      </item>\n"


def new_item(station, code, sido, end, pm10, pm25, flag10=None, flag25=None, avg=None):
    def text(v):
        return "-" if v is None else str(v)
    avg10, avg25 = avg if avg else (pm10, pm25)
    return {
        "so2Grade": "1", "coFlag": flag10, "khaiValue": "-" if pm10 is None else "62", "so2Value": "0.0031",
        "coValue": "0.52", "pm10Flag": flag10, "o3Grade": "1", "pm10Value": text(pm10),
        "khaiGrade": "2", "sidoName": sido, "no2Flag": flag10, "no2Grade": "1", "o3Flag": flag10,
        "so2Flag": flag10, "dataTime": data_time(end), "coGrade": "1", "no2Value": "0.0262",
        "stationName": station, "stationCode": code, "mangName": "도시대기", "pm10Grade": grade("pm10", avg10),
        "o3Value": "0.0184", "pm25Value": text(pm25), "pm25Flag": flag25, "pm10Value24": text(avg10),
        "pm25Value24": text(avg25), "pm25Grade": grade("pm25", avg25), "pm10Grade1h": grade("pm10", pm10),
        "pm25Grade1h": grade("pm25", pm25),
    }


def split(entry):
    if isinstance(entry, tuple):
        return None, entry[1]
    if entry == "-":
        return None, None
    return entry, None


def jongno_series(hours, last_end):
    """Hourly (end, pm10, pm25, flag10, flag25) for 종로구, ending at last_end, oldest first."""
    rng = random.Random(20261120)
    series = []
    episode = 0.0
    for i in range(hours):
        end = last_end - dt.timedelta(hours=hours - 1 - i)
        local = end.astimezone(KST)
        if rng.random() < 0.01:
            episode = rng.uniform(30, 90)  # a yellow-dust or stagnation episode
        episode *= 0.97
        diurnal = 8 * (1 if 7 <= local.hour <= 10 or 18 <= local.hour <= 21 else -0.5)
        pm10 = max(3, round(35 + diurnal + episode + rng.gauss(0, 7)))
        pm25 = max(1, round(pm10 * rng.uniform(0.42, 0.62)))
        flag10 = flag25 = None
        roll = rng.random()
        if roll < 0.006:
            flag10 = flag25 = "통신장애"
            pm10 = pm25 = None
        elif roll < 0.010:
            flag10 = flag25 = "점검및교정"
            pm10 = pm25 = None
        elif roll < 0.014:
            pm25 = None
        series.append([end, pm10, pm25, flag10, flag25])
    # The hand-picked day overrides the generated one.
    day_start = dt.datetime(2026, 11, 20, 1, tzinfo=KST)
    for h in range(24):
        end = day_start + dt.timedelta(hours=h)
        for row in series:
            if row[0] == end:
                pm10, flag = split(JONGNO_DAY_PM10[h])
                pm25, flag25 = split(JONGNO_DAY_PM25[h])
                row[1:] = [pm10, pm25, flag, flag25 if flag25 else flag]
    return series


def rolling_average(series, index, column):
    values = [r[column] for r in series[max(0, index - 23):index + 1] if r[column] is not None]
    return round(sum(values) / len(values)) if values else None


def station_response(series, station, code, sido, rng, hours=None):
    """The newest `hours` rows of the series (all by default), newest first as AirKorea answers;
    24-hour averages always come from the whole series, so overlapping responses agree."""
    parts = []
    first = 0 if hours is None else len(series) - hours
    for index in range(len(series) - 1, first - 1, -1):
        end, pm10, pm25, f10, f25 = series[index]
        avg = (rolling_average(series, index, 1), rolling_average(series, index, 2))
        parts.append(item_xml(new_item(station, code, sido, end, pm10, pm25, f10, f25, avg), rng))
    return envelope("".join(parts), len(series) - first)


def write(path, text, mode="w"):
    with open(path, mode, encoding=None if "b" in mode else "utf-8", newline="" if "b" not in mode else None) as f:
        f.write(text)


def main():
    os.makedirs(SYN, exist_ok=True)
    os.makedirs(HOSTILE, exist_ok=True)
    last_end = dt.datetime(2026, 11, 21, 0, tzinfo=KST)  # dataTime 2026-11-20 24:00
    series = jongno_series(2200, last_end)

    rng = random.Random(1)
    write(os.path.join(SYN, "station-jongno-ver1.5-3MONTH-2026-11-20.xml"),
          station_response(series, "종로구", "111123", "서울", rng))
    rng = random.Random(2)
    write(os.path.join(SYN, "station-jongno-ver1.5-DAILY-2026-11-20.xml"),
          station_response(series, "종로구", "111123", "서울", rng, hours=24))

    # The real 강남구 DAILY capture (JSON) in the XML layout, values unchanged: 24:00, a 통신장애 row,
    # and a row whose 24-hour values are "-" and grades empty.
    with open(os.path.join(ROOT, "real", "rltm-station-newapi-gangnam-ver1.5-DAILY-24h00-tongsinjangae-abridged.json"), encoding="utf-8") as f:
        captured = json.load(f)["response"]["body"]["items"]
    parts = []
    for entry in captured:
        lines = "\n".join(f"        <{k}/>" if v is None else f"        <{k}>{v}</{k}>" for k, v in entry.items())
        parts.append("      <item>\n" + lines + "\n      </item>\n")
    write(os.path.join(SYN, "station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml"), envelope("".join(parts), len(captured)))

    # 전국: 673 stations for dataTime 2026-11-20 24:00, the 8 stations of the real capture first.
    with open(os.path.join(ROOT, "real", "rltm-sido-newapi-jeonguk-ver1.5-2026-08-21-tongsinjangae-abridged.json"), encoding="utf-8") as f:
        nation = json.load(f)["response"]["body"]["items"]
    sidos = ["서울", "부산", "대구", "인천", "전남광주", "대전", "울산", "경기", "강원", "충북", "충남", "전북", "경북", "경남", "제주", "세종"]
    rng = random.Random(3)
    stations = [(n["stationName"], n["stationCode"], n["sidoName"]) for n in nation]
    stations.insert(0, ("종로구", "111123", "서울"))
    number = 0
    while len(stations) < 673:
        sido = sidos[number % len(sidos)]
        stations.append((f"{sido}측정소{number:03d}", str(900000 + number), sido))
        number += 1
    parts = []
    for name, code, sido in stations:
        avg = None
        if name == "종로구":
            pm10, pm25, f10, f25 = series[-1][1:]
            avg = (rolling_average(series, len(series) - 1, 1), rolling_average(series, len(series) - 1, 2))
        elif name == "금천구":
            pm10 = pm25 = None
            f10 = f25 = "통신장애"
        else:
            pm10 = rng.randint(5, 120)
            pm25 = max(1, round(pm10 * rng.uniform(0.35, 0.7)))
            f10 = f25 = None
        parts.append(item_xml(new_item(name, code, sido, last_end, pm10, pm25, f10, f25, avg), rng))
    write(os.path.join(SYN, "sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml"), envelope("".join(parts), 673, rows=1000))

    # Old service, station operation: no stationName, hours 00 (old data) instead of 24.
    old_items = []
    for stamp, pm10, pm25 in [("2016-01-10 02:00", 41, 27), ("2016-01-10 01:00", 39, 25),
                              ("2016-01-10 00:00", 36, 24), ("2016-01-09 23:00", "-", "-")]:
        old_items.append(
            "            <item>\n"
            f"                <dataTime>{stamp}</dataTime>\n                <mangName>도시대기</mangName>\n"
            f"                <so2Value>0.007</so2Value>\n                <pm10Value>{pm10}</pm10Value>\n"
            f"                <pm25Value>{pm25}</pm25Value>\n                <pm10Grade>2</pm10Grade>\n"
            f"                <pm25Grade>2</pm25Grade>\n            </item>\n")
    write(os.path.join(SYN, "station-oldapi-nostationname-00-hours-2016-01-10.xml"),
          '<?xml version="1.0" encoding="UTF-8"?>\n<response>\n    <header>\n        <resultCode>00</resultCode>\n'
          '        <resultMsg>NORMAL SERVICE.</resultMsg>\n    </header>\n    <body>\n        <items>\n'
          + "".join(old_items) + '        </items>\n        <numOfRows>10</numOfRows>\n        <pageNo>1</pageNo>\n'
          '        <totalCount>4</totalCount>\n    </body>\n</response>\n')

    # The two real item fragments (2018, 2016) inside an old-service envelope, items unchanged.
    def wrap_fragment(name):
        with open(os.path.join(ROOT, "real", name), encoding="utf-8") as f:
            body = f.read()
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<response>\n<header>\n<resultCode>00</resultCode>\n'
                '<resultMsg>NORMAL SERVICE.</resultMsg>\n</header>\n<body>\n<items>\n' + body +
                '</items>\n<numOfRows>10</numOfRows>\n<pageNo>1</pageNo>\n<totalCount>2</totalCount>\n</body>\n</response>\n')
    write(os.path.join(SYN, "wrapped-oldapi-dash-values-2018-05-03.xml"), wrap_fragment("rltm-station-oldapi-item-fragment-dash-values-2018-05-03.xml"))
    write(os.path.join(SYN, "wrapped-oldapi-dash-and-stale-station-2016-01-10.xml"), wrap_fragment("rltm-items-oldapi-fragment-dash-and-stale-station-2016-01-10.xml"))

    # Gases at their edges (docs/REFERENCE.md §17), 중구 on 2026-11-20: CAI band edges, `-`, flags set with
    # and without a number, implausible values (coValue 999, a negative SO2, text that is no number), an
    # index outside 0–500 and a grade outside 1–4, and an hour whose item carries no gas element at all.
    rng = random.Random(4)
    day_end = dt.datetime(2026, 11, 21, 0, tzinfo=KST)
    gas_rows = [
        {"o3Value": "0.031", "no2Value": "0.030", "coValue": "9.01", "so2Value": "0.151",
         "o3Flag": None, "no2Flag": None, "coFlag": None, "so2Flag": None, "khaiValue": "501", "khaiGrade": "5"},
        {"o3Value": "-", "no2Value": "-", "coValue": "999", "so2Value": "-0.002",
         "o3Flag": "점검중", "no2Flag": None, "coFlag": None, "so2Flag": None, "khaiValue": "-", "khaiGrade": None},
        {"o3Value": "0.095", "no2Value": "abc", "coValue": "0.4", "so2Value": "0.020",
         "o3Flag": "장비점검", "no2Flag": None, "coFlag": None, "so2Flag": None, "khaiValue": "120", "khaiGrade": "3"},
        {},
    ]
    parts = []
    for hour, gases in enumerate(gas_rows):
        end = day_end - dt.timedelta(hours=hour)
        fields = {"dataTime": data_time(end), "stationName": "중구", "stationCode": "111121", "sidoName": "서울",
                  "mangName": "도시대기", "pm10Value": str(40 + hour), "pm25Value": str(20 + hour), "pm10Flag": None,
                  "pm25Flag": None}
        fields.update(gases)
        parts.append(item_xml(fields, rng))
    write(os.path.join(SYN, "station-junggu-ver1.5-gases-dash-flag-implausible-2026-11-20.xml"),
          envelope("".join(parts), len(gas_rows)))

    write(os.path.join(SYN, "empty-result-totalcount-0.xml"),
          '<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <header>\n    <resultCode>00</resultCode>\n'
          '    <resultMsg>NORMAL_CODE</resultMsg>\n  </header>\n  <body>\n    <items/>\n    <numOfRows>100</numOfRows>\n'
          '    <pageNo>1</pageNo>\n    <totalCount>0</totalCount>\n  </body>\n</response>\n')
    write(os.path.join(SYN, "error-03-nodata.xml"),
          '<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <header>\n    <resultCode>03</resultCode>\n'
          '    <resultMsg>NODATA_ERROR</resultMsg>\n  </header>\n</response>\n')
    write(os.path.join(SYN, "error-gateway-05-servicetimeout.xml"),
          "<OpenAPI_ServiceResponse>\n\t<cmmMsgHeader>\n\t\t<errMsg>SERVICE ERROR</errMsg>\n"
          "\t\t<returnAuthMsg>SERVICETIMEOUT_ERROR</returnAuthMsg>\n\t\t<returnReasonCode>05</returnReasonCode>\n"
          "\t</cmmMsgHeader>\n</OpenAPI_ServiceResponse>\n")
    write(os.path.join(SYN, "error-gateway-22-name-in-errmsg-no-code.xml"),
          "<OpenAPI_ServiceResponse>\n\t<cmmMsgHeader>\n\t\t<errMsg>LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR</errMsg>\n"
          "\t\t<returnAuthMsg>서비스 요청제한횟수 초과에러</returnAuthMsg>\n\t</cmmMsgHeader>\n</OpenAPI_ServiceResponse>\n")
    write(os.path.join(SYN, "html-503-service-unavailable.html"),
          '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>503 Service Temporarily Unavailable</title>\n'
          '</head><body>\n<h1>Service Temporarily Unavailable</h1>\n<p>The server is temporarily unable to service your\n'
          'request due to maintenance downtime or capacity\nproblems. Please try again later.</p>\n</body></html>\n')
    write(os.path.join(SYN, "empty-body.xml"), "")
    with open(os.path.join(SYN, "station-jongno-ver1.5-DAILY-2026-11-20.xml"), encoding="utf-8") as f:
        daily = f.read()
    write(os.path.join(SYN, "truncated-daily.xml"), daily[: len(daily) * 3 // 5])

    # Hostile inputs (docs/REFERENCE.md §10). The larger ones (100k-deep nesting, 10 MB text, 1 GB streams) are
    # generated by the tests themselves.
    write(os.path.join(HOSTILE, "xxe-local-file.xml"),
          '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE response [\n  <!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n'
          '<response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items><item>'
          '<stationName>&xxe;</stationName><dataTime>2026-11-20 10:00</dataTime><pm10Value>30</pm10Value></item></items>'
          '<totalCount>1</totalCount></body></response>\n')
    write(os.path.join(HOSTILE, "parameter-entity.xml"),
          '<?xml version="1.0"?>\n<!DOCTYPE response [\n  <!ENTITY % remote SYSTEM "file:///etc/passwd">\n  %remote;\n]>\n'
          '<response><header><resultCode>00</resultCode></header></response>\n')
    lol = ['<?xml version="1.0"?>', '<!DOCTYPE response [', ' <!ENTITY lol "lol">']
    for level in range(1, 10):
        prev = "lol" if level == 1 else f"lol{level - 1}"
        lol.append(f' <!ENTITY lol{level} "' + f"&{prev};" * 10 + '">')
    lol += [']>', '<response><header><resultCode>00</resultCode></header><body><items><item>'
            '<stationName>&lol9;</stationName></item></items></body></response>', ""]
    write(os.path.join(HOSTILE, "billion-laughs.xml"), "\n".join(lol))
    bad = daily.encode("utf-8").replace("종로구".encode("utf-8"), b"\xff\xfe\xc3\x28", 1)
    write(os.path.join(HOSTILE, "invalid-utf8.xml"), bad, "wb")
    write(os.path.join(HOSTILE, "deep-nesting-1000.xml"),
          '<response>' + "<a>" * 1000 + "</a>" * 1000 + "</response>\n")


if __name__ == "__main__":
    main()
