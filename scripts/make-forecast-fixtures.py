#!/usr/bin/env python3
"""Writes the synthesized forecast fixtures Fixtures/synthesized/forecast-*.xml and the weekly
outlook's Fixtures/synthesized/weekly-outlook-*.xml.

Deterministic: the same script always writes the same bytes. The layout follows the real
new-service getMinuDustFrcstDspth XML answer: header first, then body/items/item with the
elements in AirKorea's hash order (imageUrl4, informCode, imageUrl5, imageUrl6, actionKnack,
informCause, informOverall, informData, informGrade, dataTime, imageUrl3, imageUrl7, imageUrl2,
imageUrl1, imageUrl8, imageUrl9), then numOfRows/pageNo/totalCount. The weekly outlook
(getMinuDustWeekFrcstDspth) uses the same envelope, one item per publication with its elements in
the service's hash order (frcstFourDt, frcstThreeDt, frcstTwoCn, frcstFourCn, gwthcnd, frcstThreeCn,
presnatnDt, frcstOneDt, frcstOneCn, frcstTwoDt) and its regions in the order and spelling it uses
(강원영서/강원영동), the confidence (신뢰도) last.

    python3 scripts/make-forecast-fixtures.py
"""
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "synthesized")

# informGrade order as AirKorea writes it.
REGIONS = ["서울", "제주", "전남", "전북", "광주", "경남", "경북", "울산", "대구", "부산",
           "충남", "충북", "세종", "대전", "영동", "영서", "경기남부", "경기북부", "인천"]
WORDS = {1: "좋음", 2: "보통", 3: "나쁨", 4: "매우나쁨"}

# Grades per region (REGIONS order) for (pollutant, issue hour, forecast date).
PLAN = {
    ("PM10", "05", "2026-11-22"): [2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2],
    ("PM10", "05", "2026-11-23"): [3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 2, 2, 1, 2, 3, 2, 2],
    ("PM10", "11", "2026-11-22"): [2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2],
    ("PM10", "11", "2026-11-23"): [3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 2, 2, 1, 2, 3, 2, 2],
    ("PM10", "17", "2026-11-22"): [2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2],
    ("PM10", "17", "2026-11-23"): [3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 2, 2, 2, 2, 3, 2, 3],
    ("PM10", "17", "2026-11-24"): [2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 1, 2, 2, 2, 2],
    # PM2.5 on 2026-11-23 from the 17시 issue uses all four words, so one item covers every grade.
    ("PM25", "05", "2026-11-22"): [2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2],
    ("PM25", "05", "2026-11-23"): [3, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 2, 1, 2, 3, 3, 3],
    ("PM25", "11", "2026-11-22"): [2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 3, 2, 2],
    ("PM25", "11", "2026-11-23"): [3, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 2, 1, 2, 3, 3, 3],
    ("PM25", "17", "2026-11-22"): [2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 3, 2, 2],
    ("PM25", "17", "2026-11-23"): [4, 1, 2, 2, 3, 2, 2, 2, 2, 2, 3, 3, 3, 3, 1, 2, 4, 3, 3],
    ("PM25", "17", "2026-11-24"): [2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 1, 2, 2, 2, 2],
}

CAUSE = {
    "PM10": "○ [미세먼지] 대기 정체로 국내 미세먼지가 축적되고, 국외 미세먼지가 유입되어 농도가 높을 것으로 예상됩니다.",
    "PM25": "○ [초미세먼지] 대기 정체로 국내 미세먼지가 축적되고, 국외 미세먼지가 유입되어 농도가 높을 것으로 예상됩니다.",
}
ACTION = "○ 나쁨 이상: 장시간 또는 무리한 실외활동 제한, 특히 천식을 앓고 있는 사람이 실외에 있는 경우 흡입기를 더 자주 사용할 필요가 있음"


def grade_string(grades, drop=None, replace=None):
    parts = []
    for region, value in zip(REGIONS, grades):
        if region == drop:
            continue
        word = replace[1] if replace and replace[0] == region else WORDS[value]
        parts.append(f"{region} : {word}")
    return ",".join(parts)


def overall(code, grades):
    """The sentence AirKorea writes beside the grades, from the grades themselves: the regions
    graded 매우나쁨, then those graded 나쁨, each group named with its particle (은 after a final
    consonant, 는 after a vowel), so a demo's chip and its sentence never disagree."""
    label = "[미세먼지]" if code == "PM10" else "[초미세먼지]"
    groups = [([r for r, g in zip(REGIONS, grades) if g == value], word) for value, word in ((4, "매우나쁨"), (3, "나쁨"))]
    parts = []
    for regions, word in groups:
        if not regions:
            continue
        last = ord(regions[-1][-1]) - 0xAC00
        topic = "은" if last % 28 else "는"  # 은 after a final consonant (인천은), 는 after a vowel (경기남부는)
        parts.append(f"{'·'.join(regions)}{topic} '{word}'")
    if not parts:
        return f"○ {label} 전 권역이 '좋음'∼'보통'으로 예상됩니다."
    return f"○ {label} {', '.join(parts)}, 그 밖의 권역은 '보통'으로 예상됩니다."


def image_urls(code, issue_date, hour):
    stamp = issue_date.replace("-", "")
    kind = "PM10" if code == "PM10" else "PM2P5"
    urls = []
    for n in range(1, 10):
        if n <= 6:
            urls.append(f"https://www.airkorea.or.kr/file/proxyImage?fileName={issue_date.replace('-', '/')}/AQF.{stamp}.NIER_09_01.{kind}.1hsp.{stamp}{hour}.{n}.png")
        else:
            urls.append(f"https://www.airkorea.or.kr/file/proxyImage?fileName={issue_date.replace('-', '/')}/AQF.{stamp}.NIER_09_01.{kind}.ani.{stamp}{hour}.gif" if n == 7 else "")
    return urls


def item(code, data_time, inform_data, grade_text, overall_text, issue_date, hour, action=ACTION):
    urls = image_urls(code, issue_date, hour)

    def url(n):
        value = urls[n - 1]
        return f"<imageUrl{n}>{value}</imageUrl{n}>" if value else f"<imageUrl{n}/>"
    parts = [
        url(4), f"<informCode>{code}</informCode>", url(5), url(6),
        f"<actionKnack>{action}</actionKnack>" if action else "<actionKnack/>",
        f"<informCause>{CAUSE[code]}</informCause>", f"<informOverall>{overall_text}</informOverall>",
        f"<informData>{inform_data}</informData>", f"<informGrade>{grade_text}</informGrade>",
        f"<dataTime>{data_time}</dataTime>", url(3), url(7), url(2), url(1), url(8), url(9),
    ]
    return "<item>" + "".join(parts) + "</item>"


def document(items, message="NORMAL_CODE", rows=100):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <header>\n    <resultCode>00</resultCode>\n'
            f'    <resultMsg>{message}</resultMsg>\n  </header>\n  <body>\n    <items>\n'
            + "".join(f"      {i}\n" for i in items)
            + f'    </items>\n    <numOfRows>{rows}</numOfRows>\n    <pageNo>1</pageNo>\n'
            f'    <totalCount>{len(items)}</totalCount>\n  </body>\n</response>\n')


def shifted(day, days):
    """`day` (YYYY-MM-DD) moved by `days`."""
    import datetime as dt
    return (dt.date.fromisoformat(day) + dt.timedelta(days=days)).isoformat()


def normal(code, shift=0):
    """searchDate 2026-11-22 (or `shift` days from it: the demo's copy is for 2026-11-20)."""
    items = []
    issue_date = shifted("2026-11-22", shift)
    # Newest issue first, as AirKorea lists them.
    for hour in ["17", "11", "05"]:
        for (c, h, day), grades in PLAN.items():
            if c == code and h == hour:
                items.append(item(code, f"{issue_date} {hour}시 발표", shifted(day, shift), grade_string(grades), overall(code, grades),
                                  issue_date, hour, action=ACTION if day == "2026-11-22" else None))
    return document(items)


# The weekly outlook: its 19 regions as it writes them, then each of its four days (3 to 6 days
# after the publication) as the regions marked 높음 and the confidence.
WEEKLY_REGIONS = ["서울", "인천", "경기북부", "경기남부", "강원영서", "강원영동", "대전", "세종", "충남", "충북",
                  "광주", "전북", "전남", "부산", "대구", "울산", "경북", "경남", "제주"]
WEEKLY_PLAN = [
    ({"서울", "인천", "경기북부", "경기남부", "충남"}, "높음"),
    ({"서울", "경기남부"}, "높음"),
    (set(), "낮음"),
    (set(), "낮음"),
]
WEEKLY_CONDITIONS = ("○ 3일 후에는 대기 정체로 국내 생성 미세먼지가 축적되어 수도권·충남은 농도가 높을 것으로 예상되고, "
                     "4일 후부터는 북서풍이 불어 대기 확산이 원활할 것으로 예상됩니다.")


def weekly_outlook(published):
    """The weekly outlook published on `published` (YYYY-MM-DD): its four days start 3 days later."""
    days = []
    for n, (high, confidence) in enumerate(WEEKLY_PLAN):
        text = ", ".join(f"{r} : {'높음' if r in high else '낮음'}" for r in WEEKLY_REGIONS) + f", 신뢰도 : {confidence}"
        days.append((shifted(published, 3 + n), text))
    (d1, c1), (d2, c2), (d3, c3), (d4, c4) = days
    parts = [
        f"<frcstFourDt>{d4}</frcstFourDt>", f"<frcstThreeDt>{d3}</frcstThreeDt>", f"<frcstTwoCn>{c2}</frcstTwoCn>",
        f"<frcstFourCn>{c4}</frcstFourCn>", f"<gwthcnd>{WEEKLY_CONDITIONS}</gwthcnd>", f"<frcstThreeCn>{c3}</frcstThreeCn>",
        f"<presnatnDt>{published}</presnatnDt>", f"<frcstOneDt>{d1}</frcstOneDt>", f"<frcstOneCn>{c1}</frcstOneCn>",
        f"<frcstTwoDt>{d2}</frcstTwoDt>",
    ]
    return document(["<item>" + "".join(parts) + "</item>"], rows=10)


def write(name, text):
    with open(os.path.join(ROOT, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    write("forecast-pm10-2026-11-22.xml", normal("PM10"))
    write("forecast-pm25-2026-11-22.xml", normal("PM25"))
    # The demo's day (2026-11-20, its clock at 00:20 the next morning): the same forecasts two days earlier.
    write("forecast-pm10-2026-11-20.xml", normal("PM10", shift=-2))
    write("forecast-pm25-2026-11-20.xml", normal("PM25", shift=-2))
    write("weekly-outlook-2026-11-22.xml", weekly_outlook("2026-11-22"))
    # The demo's day: the outlook published on 2026-11-20.
    write("weekly-outlook-2026-11-20.xml", weekly_outlook("2026-11-20"))
    g = PLAN[("PM10", "17", "2026-11-23")]
    write("forecast-pm10-missing-region-2026-11-22.xml", document([
        item("PM10", "2026-11-22 17시 발표", "2026-11-23", grade_string(g, drop="세종"), overall("PM10", g), "2026-11-22", "17"),
    ]))
    g = PLAN[("PM25", "17", "2026-11-23")]
    write("forecast-pm25-unknown-grade-2026-11-22.xml", document([
        item("PM25", "2026-11-22 17시 발표", "2026-11-23", grade_string(g, replace=("경기북부", "높음")), overall("PM25", g),
             "2026-11-22", "17"),
    ]))
    old = [2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2]
    write("forecast-pm10-old-datatime-2020-01-01.xml", document([
        item("PM10", "2020-01-01 23시 발표", "2020-01-02", grade_string(old), overall("PM10", old), "2020-01-01", "23"),
        item("PM10", "2020-01-01 5시", "2020-01-01", grade_string(old), overall("PM10", old), "2020-01-01", "05"),
        item("PM10", "2020-01-01 11", "2020-01-01", grade_string(old), overall("PM10", old), "2020-01-01", "11"),
        item("PM10", "2020-01-01 오후", "2020-01-01", grade_string(old), overall("PM10", old), "2020-01-01", "17"),
    ], message="NORMAL SERVICE."))


if __name__ == "__main__":
    main()
