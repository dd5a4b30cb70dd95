#!/usr/bin/env python3
"""Writes the synthesized advisory fixtures Fixtures/synthesized/advisories-*.xml and
error-gateway-20-advisory-service-access-denied.xml (docs/REFERENCE.md §17).

Deterministic: the same script always writes the same bytes. The envelope is AirKorea's XML answer
(header, then body/items/item, then numOfRows/pageNo/totalCount); the item elements are in the
order §17 lists them: for getUlfptcaAlarmInfo sn, dataDate, districtName, moveName, itemCode,
issueGbn, issueDate, issueTime, issueVal, clearDate, clearTime, clearVal; for getOzAdvsryOccrrncInfo
dataDate, districtName, moveName, issueTime, issueVal, clearTime, clearVal, maxVal, issueLvl (no sn).
An unapproved service answers in the gateway's OpenAPI_ServiceResponse envelope, as the real
error-gateway-30 fixture does, with reason code 20.

advisories-pm10-2026.xml has a 서울 도심권 PM10 경보 issued at 13:00 on 2026-11-20 and still in force
(the parser's and the live fake's: a banner to test). The demo replays demo-advisories-*.xml instead,
one story with its day: 종로구 read 28-66 µg/m³ of PM10 and at most 36 of PM2.5 on 2026-11-20 and the
forecast said 좋음-보통, so nothing is in force for its 권역 then; its year holds a spring 황사 주의보
and a winter PM2.5 주의보 of 도심권, both cleared, and the 경기 one of the day before.

    python3 scripts/make-advisory-fixtures.py
"""
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "synthesized")


def element(name, value):
    return f"<{name}>{value}</{name}>" if value != "" else f"<{name}/>"


def pm_item(sn, data_date, district, area, code, gbn, issue_date, issue_time, issue_val, clear_date="", clear_time="",
            clear_val=""):
    fields = [("sn", sn), ("dataDate", data_date), ("districtName", district), ("moveName", area), ("itemCode", code),
              ("issueGbn", gbn), ("issueDate", issue_date), ("issueTime", issue_time), ("issueVal", issue_val),
              ("clearDate", clear_date), ("clearTime", clear_time), ("clearVal", clear_val)]
    return "<item>" + "".join(element(n, v) for n, v in fields) + "</item>"


def ozone_item(data_date, district, area, issue_time, issue_val, clear_time, clear_val, max_val, level):
    fields = [("dataDate", data_date), ("districtName", district), ("moveName", area), ("issueTime", issue_time),
              ("issueVal", issue_val), ("clearTime", clear_time), ("clearVal", clear_val), ("maxVal", max_val),
              ("issueLvl", level)]
    return "<item>" + "".join(element(n, v) for n, v in fields) + "</item>"


def document(items, rows=100):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <header>\n    <resultCode>00</resultCode>\n'
            '    <resultMsg>NORMAL_CODE</resultMsg>\n  </header>\n  <body>\n    <items>\n'
            + "".join(f"      {i}\n" for i in items)
            + f'    </items>\n    <numOfRows>{rows}</numOfRows>\n    <pageNo>1</pageNo>\n'
            f'    <totalCount>{len(items)}</totalCount>\n  </body>\n</response>\n')


def write(name, text):
    with open(os.path.join(ROOT, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    # Newest first, as AirKorea lists them.
    write("advisories-pm10-2026.xml", document([
        pm_item("87", "2026-11-20", "서울", "도심권", "PM10", "경보", "2026-11-20", "13:00", "312"),
        pm_item("86", "2026-11-20", "서울", "도심권", "PM10", "주의보", "2026-11-20", "09:00", "168",
                "2026-11-20", "13:00", "312"),
        pm_item("79", "2026-11-19", "경기", "남부권", "PM10", "주의보", "2026-11-19", "15:00", "158",
                "2026-11-19", "22:00", "95"),
    ]))
    # The demo's year (DemoReplay.advisoryFiles): nothing in force on its day, the advisories cleared.
    write("demo-advisories-pm10-2026.xml", document([
        pm_item("79", "2026-11-19", "경기", "남부권", "PM10", "주의보", "2026-11-19", "15:00", "158",
                "2026-11-19", "22:00", "95"),
        pm_item("23", "2026-03-14", "서울", "도심권", "PM10", "주의보", "2026-03-14", "11:00", "176",
                "2026-03-15", "02:00", "88"),
    ]))
    write("demo-advisories-pm25-2026.xml", document([
        pm_item("4", "2026-01-09", "서울", "도심권", "PM25", "주의보", "2026-01-09", "07:00", "82",
                "2026-01-09", "19:00", "34"),
    ]))
    write("advisories-pm25-2026.xml", document([
        pm_item("41", "2026-11-20", "서울", "서남권", "PM25", "주의보", "2026-11-20", "10:00", "78",
                "2026-11-20", "20:00", "31"),
    ]))
    # An issue date that is no date (skipped and counted), and values that are not numbers (unknown).
    write("advisories-pm10-unparsable-date-2026.xml", document([
        pm_item("90", "2026-11-20", "부산", "중부권", "PM10", "주의보", "2026-11-3O", "11:00", "171"),
        pm_item("89", "2026-11-20", "부산", "동부권", "PM10", "주의보", "2026-11-20", "11:00", "-",
                "2026-11-20", "18:00", "점검중"),
    ]))
    write("advisories-o3-2026.xml", document([
        ozone_item("2026-06-12", "서울", "동남권", "2026-06-12 15:00", "0.128", "2026-06-12 18:00", "0.092", "0.134",
                   "주의보"),
        ozone_item("2026-06-11", "경기", "중부권", "2026-06-11 14:00", "0.131", "2026-06-11 24:00", "0.088", "0.152",
                   "특별경보"),
    ]))
    write("error-gateway-20-advisory-service-access-denied.xml",
          "<OpenAPI_ServiceResponse>\n\t<cmmMsgHeader>\n\t\t<errMsg>SERVICE ERROR</errMsg>\n"
          "\t\t<returnAuthMsg>SERVICE_ACCESS_DENIED_ERROR</returnAuthMsg>\n\t\t<returnReasonCode>20</returnReasonCode>\n"
          "\t</cmmMsgHeader>\n</OpenAPI_ServiceResponse>\n")


if __name__ == "__main__":
    main()
