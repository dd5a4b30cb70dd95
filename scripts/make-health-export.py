#!/usr/bin/env python3
"""Writes a synthesized Apple Health export (issue 12): invented data in the shape the Health app
writes, deterministic (same arguments, same bytes).

    scripts/make-health-export.py                       # the small fixtures into Fixtures/activity/
    scripts/make-health-export.py --out DIR             # the same fixtures into DIR
    scripts/make-health-export.py --size-mb 600 --out /tmp/big   # a ≥600 MB export.xml and its zip

The small export (2026-11-20, Asia/Seoul, numbers the end-to-end test computes by hand):
  * Apple Watch  12:10–12:40 +0900  2.4 km            -> slot 12:00: 2400 m
  * iPhone       12:05–12:45 +0900  1.25 mi           -> slot 12:00: 2011.68 m (overlaps, smaller)
  * Apple Watch  13:50–14:10 +0900  1200 m            -> 600 m in 13:00, 600 m in 14:00
  * iPhone       2026-11-19 23:40 -0500 … 23:50 -0500  3280.84 ft -> 2026-11-20 13:40–13:50 KST, 1000.00003 m
  * a Workout with a WorkoutRoute whose GPX (inside the zip) walks 12:10–12:40 north along
    127.0° E, three steps of 0.01° latitude: 3 × R × 0.01 × π/180 m (R = 6,371,008.8 m)
  * StepCount, HeartRate, ActiveEnergyBurned records, a Correlation, ActivitySummary, Me, ExportDate.
A second GPX in Strava's shape (route-strava-evening.gpx) walks 18:05–18:35 +0900, two steps of 0.01°.

With --heart-rate and/or --sleep (docs/REFERENCE.md §18), the export also holds what an Apple Watch
records of the body, in Apple's shapes, and is written to Fixtures/activity/generated-watch/ unless
--out says otherwise (the fixtures above stay byte for byte as they are):
  * --heart-rate: HKQuantityTypeIdentifierHeartRate samples (unit count/min, a MetadataEntry
    HKMetadataKeyHeartRateMotionContext child) every 5–10 minutes while awake on 2026-11-20,
    06:50–20:50 +0900, 62–84 beats/min, and every 2–3 minutes at 104–128 during the two walks
    (12:10–12:40, 13:50–14:10); HKQuantityTypeIdentifierRestingHeartRate for 2026-11-19 (58) and 2026-11-20 (57).
  * --sleep: the night of 2026-11-19 to 20 as the Watch writes it: AsleepCore, AsleepDeep, AsleepREM
    segments (HKCategoryTypeIdentifierSleepAnalysis, a MetadataEntry HKTimeZone child) from 23:20 to
    06:40 +0900 with a short Awake, inside an InBed record from the iPhone, 23:05–06:48.

    scripts/make-health-export.py --heart-rate --sleep                      # Fixtures/activity/generated-watch/
    scripts/make-health-export.py --size-mb 1000 --heart-rate-samples 2000000 --sleep --out /tmp/big

With --demo-week, the adult's Apple Watch export of `dustctl demo` and `dustd --demo`
(docs/REFERENCE.md §6) is written to Fixtures/activity/demo-week-watch/export.xml (no zip): the week
2026-11-14 … 2026-11-20 (Asia/Seoul), deterministic like the rest:
  * DistanceWalkingRunning from the Watch, one record per walk and hour, the walks of
    jongno-week-walks.csv: Sat and Sun 15:00–16:00 4000 m and 16:00–16:35 2600 m; Mon–Fri
    08:00–08:25 1800 m and 18:00–18:30 2400 m;
  * HeartRate every 5 minutes from 06:50 to 22:50 each day, 112–128 beats/min while walking (a sample
    at 08:00 … 08:20 covers 08:00–08:25) and 62–84 otherwise; RestingHeartRate 56–60 for each day;
  * each night from 23:05–23:35 to 06:25–06:55 as the Watch stages it (AsleepCore/Deep/REM and a
    4-minute Awake), inside the iPhone's InBed record.
  With a resting rate of 56–60 and 38 years (HRmax 181.4), 62–84 is always a reserve below 0.30
  (sedentary) and 112–128 always 0.40–0.60 (moderate), so an hour's ventilation is hand-computable.

    scripts/make-health-export.py --demo-week                               # Fixtures/activity/demo-week-watch/

With --size-mb, --heart-rate-samples N puts N heart-rate samples (every 20–130 s from 2021-01-01
+0900, 45–180 beats/min) first, and --sleep one night of segments per day over the same span, before
the mix of records that fills the rest of the size.

Standard library only.
"""
import argparse
import datetime
import os
import random
import sys
import zipfile

SUBSET = """<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 13 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT ExportDate EMPTY>
<!ATTLIST ExportDate
  value CDATA #REQUIRED
>
<!ELEMENT Me EMPTY>
<!ATTLIST Me
  HKCharacteristicTypeIdentifierDateOfBirth         CDATA #REQUIRED
  HKCharacteristicTypeIdentifierBiologicalSex       CDATA #REQUIRED
  HKCharacteristicTypeIdentifierBloodType           CDATA #REQUIRED
  HKCharacteristicTypeIdentifierFitzpatrickSkinType CDATA #REQUIRED
  HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!-- Note: Any Records that appear as children of a correlation also appear as top-level records in this document. -->
<!ELEMENT Correlation ((MetadataEntry|Record)*)>
<!ATTLIST Correlation
  type          CDATA #REQUIRED
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
<!ATTLIST Workout
  workoutActivityType   CDATA #REQUIRED
  duration              CDATA #IMPLIED
  durationUnit          CDATA #IMPLIED
  sourceName            CDATA #REQUIRED
  sourceVersion         CDATA #IMPLIED
  device                CDATA #IMPLIED
  creationDate          CDATA #IMPLIED
  startDate             CDATA #REQUIRED
  endDate               CDATA #REQUIRED
>
<!ELEMENT WorkoutStatistics EMPTY>
<!ATTLIST WorkoutStatistics
  type                  CDATA #REQUIRED
  startDate             CDATA #REQUIRED
  endDate               CDATA #REQUIRED
  sum                   CDATA #IMPLIED
  unit                  CDATA #IMPLIED
>
<!ELEMENT WorkoutRoute ((MetadataEntry|FileReference)*)>
<!ATTLIST WorkoutRoute
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!ELEMENT FileReference EMPTY>
<!ATTLIST FileReference
  path CDATA #REQUIRED
>
<!ELEMENT ActivitySummary EMPTY>
<!ATTLIST ActivitySummary
  dateComponents           CDATA #IMPLIED
  activeEnergyBurned       CDATA #IMPLIED
  activeEnergyBurnedGoal   CDATA #IMPLIED
  activeEnergyBurnedUnit   CDATA #IMPLIED
  appleExerciseTime        CDATA #IMPLIED
  appleExerciseTimeGoal    CDATA #IMPLIED
  appleStandHours          CDATA #IMPLIED
  appleStandHoursGoal      CDATA #IMPLIED
>
<!ELEMENT MetadataEntry EMPTY>
<!ATTLIST MetadataEntry
  key   CDATA #REQUIRED
  value CDATA #REQUIRED
>
]>
"""

WATCH = ("Apple Watch", "10.1",
         "&lt;&lt;HKDevice: 0x28a3c5e50&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,14, software:10.1&gt;")
IPHONE = ("iPhone", "17.1",
          "&lt;&lt;HKDevice: 0x28a3c4f00&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.1&gt;")
DISTANCE = "HKQuantityTypeIdentifierDistanceWalkingRunning"
ROUTE_NAME = "route_2026-11-20_12.10pm.gpx"
FIXED_ZIP_TIME = (2026, 11, 20, 21, 0, 0)


def record(kind, source, unit, value, start, end, extra=""):
    name, version, device = source
    return (f' <Record type="{kind}" sourceName="{name}" sourceVersion="{version}" device="{device}" '
            f'unit="{unit}" creationDate="{end}" startDate="{start}" endDate="{end}" value="{value}"{extra}/>\n')


def record_with_children(kind, source, unit, value, start, end, children, created=None):
    """A record with MetadataEntry children; a category record (sleep) has no unit."""
    name, version, device = source
    unit_attribute = f'unit="{unit}" ' if unit is not None else ""
    lines = [f' <Record type="{kind}" sourceName="{name}" sourceVersion="{version}" device="{device}" '
             f'{unit_attribute}creationDate="{created or end}" startDate="{start}" endDate="{end}" value="{value}">\n']
    for key, entry in children:
        lines.append(f'  <MetadataEntry key="{key}" value="{entry}"/>\n')
    lines.append(' </Record>\n')
    return "".join(lines)


HEART_RATE = "HKQuantityTypeIdentifierHeartRate"
RESTING_HEART_RATE = "HKQuantityTypeIdentifierRestingHeartRate"
SLEEP = "HKCategoryTypeIdentifierSleepAnalysis"
SLEEP_VALUE = "HKCategoryValueSleepAnalysis"
KST = datetime.timezone(datetime.timedelta(hours=9))


def health_date(moment):
    return moment.strftime("%Y-%m-%d %H:%M:%S +0900")


def heart_rate_record(moment, bpm, context):
    text = health_date(moment)
    return record_with_children(HEART_RATE, WATCH, "count/min", str(bpm), text, text,
                                [("HKMetadataKeyHeartRateMotionContext", context)],
                                created=health_date(moment + datetime.timedelta(seconds=7)))


def sleep_records(night_start, rng):
    """One night as a Watch (stages) and the iPhone (in bed) write it, from night_start (KST)."""
    minute = datetime.timedelta(minutes=1)
    bed_start = night_start - 15 * minute
    lines = []
    moment = night_start
    end = night_start + datetime.timedelta(hours=7, minutes=20)
    stages = ["AsleepCore", "AsleepDeep", "AsleepCore", "AsleepREM"]
    index = 0
    while moment < end:
        stage = stages[index % len(stages)]
        if index == 5:
            stage = "Awake"
        length = (4 if stage == "Awake" else rng.randint(20, 50)) * minute
        stop = min(moment + length, end)
        lines.append(record_with_children(SLEEP, WATCH, None, SLEEP_VALUE + stage, health_date(moment), health_date(stop),
                                          [("HKTimeZone", "Asia/Seoul")]))
        moment = stop
        index += 1
    bed = record_with_children(SLEEP, IPHONE, None, SLEEP_VALUE + "InBed", health_date(bed_start), health_date(end + 8 * minute),
                               [("HKTimeZone", "Asia/Seoul")])
    return [bed] + lines


def watch_day_records(heart_rate, sleep):
    """2026-11-20's heart rate and resting rates, and the night before's sleep (docstring above)."""
    rng = random.Random(22)
    lines = []
    if sleep:
        lines += sleep_records(datetime.datetime(2026, 11, 19, 23, 20, tzinfo=KST), rng)
    if heart_rate:
        walks = [(datetime.datetime(2026, 11, 20, 12, 10, tzinfo=KST), datetime.datetime(2026, 11, 20, 12, 40, tzinfo=KST)),
                 (datetime.datetime(2026, 11, 20, 13, 50, tzinfo=KST), datetime.datetime(2026, 11, 20, 14, 10, tzinfo=KST))]
        moment = datetime.datetime(2026, 11, 20, 6, 50, tzinfo=KST)
        last = datetime.datetime(2026, 11, 20, 20, 50, tzinfo=KST)
        while moment <= last:
            walking = any(start <= moment < stop for start, stop in walks)
            if walking:
                lines.append(heart_rate_record(moment, rng.randint(104, 128), 2))
                moment += datetime.timedelta(minutes=rng.randint(2, 3))
            else:
                lines.append(heart_rate_record(moment, rng.randint(62, 84), 1))
                following = moment + datetime.timedelta(minutes=rng.randint(5, 10))
                # A walk's first sample is at its start.
                moment = min([following] + [start for start, _ in walks if moment < start < following])
        for day, bpm in ((19, 58), (20, 57)):
            lines.append(record(RESTING_HEART_RATE, WATCH, "count/min", str(bpm),
                                f"2026-11-{day:02d} 00:00:12 +0900", f"2026-11-{day:02d} 20:41:00 +0900"))
    return lines


def head(export_date="2026-11-20 21:00:00 +0900"):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + SUBSET +
            '<HealthData locale="ko_KR">\n'
            f' <ExportDate value="{export_date}"/>\n'
            ' <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet"'
            ' HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet"'
            ' HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>\n')


def small_export_xml(heart_rate=False, sleep=False):
    body = [
        record("HKQuantityTypeIdentifierStepCount", IPHONE, "count", "412", "2026-11-20 07:58:12 +0900", "2026-11-20 08:05:40 +0900"),
        record(DISTANCE, WATCH, "km", "2.4", "2026-11-20 12:10:00 +0900", "2026-11-20 12:40:00 +0900"),
        record(DISTANCE, IPHONE, "mi", "1.25", "2026-11-20 12:05:00 +0900", "2026-11-20 12:45:00 +0900"),
        record("HKQuantityTypeIdentifierHeartRate", WATCH, "count/min", "96", "2026-11-20 12:20:00 +0900", "2026-11-20 12:20:00 +0900"),
        record(DISTANCE, WATCH, "m", "1200", "2026-11-20 13:50:00 +0900", "2026-11-20 14:10:00 +0900"),
        record(DISTANCE, IPHONE, "ft", "3280.84", "2026-11-19 23:40:00 -0500", "2026-11-19 23:50:00 -0500"),
        record("HKQuantityTypeIdentifierActiveEnergyBurned", WATCH, "Cal", "35.2", "2026-11-20 12:10:00 +0900", "2026-11-20 12:40:00 +0900"),
        *watch_day_records(heart_rate, sleep),
        ' <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="iPhone" sourceVersion="17.1" creationDate="2026-11-20 09:00:00 +0900" startDate="2026-11-20 09:00:00 +0900" endDate="2026-11-20 09:00:00 +0900">\n'
        '  <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="iPhone" unit="mmHg" startDate="2026-11-20 09:00:00 +0900" endDate="2026-11-20 09:00:00 +0900" value="118"/>\n'
        ' </Correlation>\n',
        ' <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="30" durationUnit="min" sourceName="Apple Watch" sourceVersion="10.1" '
        f'device="{WATCH[2]}" creationDate="2026-11-20 12:40:05 +0900" startDate="2026-11-20 12:10:00 +0900" endDate="2026-11-20 12:40:00 +0900">\n'
        '  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n'
        '  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2026-11-20 12:10:00 +0900" endDate="2026-11-20 12:40:00 +0900" sum="2.4" unit="km"/>\n'
        '  <WorkoutRoute sourceName="Apple Watch" sourceVersion="10.1" creationDate="2026-11-20 12:40:10 +0900" startDate="2026-11-20 12:10:00 +0900" endDate="2026-11-20 12:40:00 +0900">\n'
        '   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>\n'
        f'   <FileReference path="/workout-routes/{ROUTE_NAME}"/>\n'
        '  </WorkoutRoute>\n'
        ' </Workout>\n',
        ' <ActivitySummary dateComponents="2026-11-20" activeEnergyBurned="412.5" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="Cal" '
        'appleExerciseTime="42" appleExerciseTimeGoal="30" appleStandHours="9" appleStandHoursGoal="12"/>\n',
    ]
    return head() + "".join(body) + "</HealthData>\n"


def apple_route_gpx(points):
    """A workout route as the Health app writes it (GPX 1.1, Apple's extensions)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>\n',
             '<gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" '
             'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">\n',
             '<metadata><time>2026-11-20T03:40:10Z</time></metadata>\n',
             '<trk><name>Route 2026-11-20 12:10pm</name><trkseg>\n']
    for lat, lon, time in points:
        lines.append(f'<trkpt lon="{lon:.6f}" lat="{lat:.6f}"><ele>38.2</ele><time>{time}</time>'
                     '<extensions><speed>1.85</speed><course>0.0</course><hAcc>4.2</hAcc><vAcc>3.1</vAcc></extensions></trkpt>\n')
    lines.append('</trkseg></trk>\n</gpx>\n')
    return "".join(lines)


def strava_gpx(points):
    """A track in Strava's shape: namespaces, a type, Garmin's TrackPointExtension."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>\n',
             '<gpx creator="StravaGPX" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd '
             'http://www.garmin.com/xmlschemas/GpxExtensions/v3 http://www.garmin.com/xmlschemas/GpxExtensionsv3.xsd '
             'http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www.garmin.com/xmlschemas/TrackPointExtensionv1.xsd" '
             'version="1.1" xmlns="http://www.topografix.com/GPX/1/1" '
             'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" '
             'xmlns:gpxx="http://www.garmin.com/xmlschemas/GpxExtensions/v3">\n',
             ' <metadata>\n  <time>2026-11-20T09:05:00Z</time>\n </metadata>\n',
             ' <trk>\n  <name>Evening Walk</name>\n  <type>walking</type>\n  <trkseg>\n']
    for lat, lon, time in points:
        lines.append(f'   <trkpt lat="{lat:.7f}" lon="{lon:.7f}">\n    <ele>41.0</ele>\n    <time>{time}</time>\n'
                     '    <extensions>\n     <gpxtpx:TrackPointExtension>\n      <gpxtpx:hr>104</gpxtpx:hr>\n'
                     '     </gpxtpx:TrackPointExtension>\n    </extensions>\n   </trkpt>\n')
    lines.append('  </trkseg>\n </trk>\n</gpx>\n')
    return "".join(lines)


# 12:10, 12:20, 12:30, 12:40 KST = 03:10 … 03:40 Z, 0.01° north each step along 127.0° E.
ROUTE_POINTS = [(37.57 + 0.01 * i, 127.0, f"2026-11-20T03:{10 + 10 * i:02d}:00Z") for i in range(4)]
# 18:05, 18:20, 18:35 KST = 09:05 … 09:35 Z, along 126.98° E.
STRAVA_POINTS = [(37.55 + 0.01 * i, 126.98, f"2026-11-20T09:{5 + 15 * i:02d}:00Z") for i in range(3)]


def write_zip(path, members):
    """members: (name, bytes or path of a file to stream in)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, content in members:
            info = zipfile.ZipInfo(name, date_time=FIXED_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            if isinstance(content, bytes):
                archive.writestr(info, content)
            else:
                with open(content, "rb") as source, archive.open(info, "w", force_zip64=True) as target:
                    while True:
                        chunk = source.read(1 << 20)
                        if not chunk:
                            break
                        target.write(chunk)


def write_small(out, heart_rate=False, sleep=False):
    os.makedirs(out, exist_ok=True)
    xml = small_export_xml(heart_rate, sleep).encode()
    route = apple_route_gpx(ROUTE_POINTS).encode()
    with open(os.path.join(out, "export.xml"), "wb") as f:
        f.write(xml)
    with open(os.path.join(out, "route-strava-evening.gpx"), "wb") as f:
        f.write(strava_gpx(STRAVA_POINTS).encode())
    write_zip(os.path.join(out, "export.zip"), [
        ("apple_health_export/export.xml", xml),
        ("apple_health_export/export_cda.xml", b'<?xml version="1.0" encoding="UTF-8"?>\n<ClinicalDocument xmlns="urn:hl7-org:v3"/>\n'),
        (f"apple_health_export/workout-routes/{ROUTE_NAME}", route),
    ])


def large_watch_records(heart_rate_samples, sleep):
    """heart_rate_samples samples from 2021-01-01 +0900, and with sleep a night per day over their span."""
    rng = random.Random(2022)
    moment = datetime.datetime(2021, 1, 1, 0, 0, tzinfo=KST)
    nights = datetime.datetime(2021, 1, 1, 23, 10, tzinfo=KST)
    buffer = []
    for _ in range(heart_rate_samples):
        buffer.append(heart_rate_record(moment, rng.randint(45, 180), rng.choice((0, 1, 2))))
        moment += datetime.timedelta(seconds=rng.randint(20, 130))
        if len(buffer) >= 4096:
            yield "".join(buffer)
            buffer = []
    if sleep:
        last = moment if heart_rate_samples else nights + datetime.timedelta(days=365)
        while nights < last:
            buffer += sleep_records(nights, rng)
            nights += datetime.timedelta(days=1)
            if len(buffer) >= 4096:
                yield "".join(buffer)
                buffer = []
    yield "".join(buffer)


def write_large(out, size_mb, heart_rate_samples=0, sleep=False):
    """An export.xml of at least size_mb MB (10^6 bytes), streamed, with a year of records of
    many types from two sources, and its zip. Memory stays small whatever the size. Heart-rate
    samples and sleep, when asked for, come first and count toward the size."""
    os.makedirs(out, exist_ok=True)
    target = size_mb * 1_000_000
    rng = random.Random(12)
    xml_path = os.path.join(out, "export.xml")
    skipped_types = [("HKQuantityTypeIdentifierStepCount", "count"), ("HKQuantityTypeIdentifierHeartRate", "count/min"),
                     ("HKQuantityTypeIdentifierActiveEnergyBurned", "Cal"), ("HKQuantityTypeIdentifierBasalEnergyBurned", "Cal"),
                     ("HKQuantityTypeIdentifierFlightsClimbed", "count")]
    written = 0
    minute = 0
    distance_records = 0
    with open(xml_path, "w", encoding="utf-8", newline="\n") as f:
        text = head("2026-11-20 21:00:00 +0900")
        f.write(text)
        written += len(text.encode())
        if heart_rate_samples or sleep:
            for chunk in large_watch_records(heart_rate_samples, sleep):
                f.write(chunk)
                written += len(chunk.encode())
        buffer = []
        while written < target:
            minute += rng.randint(1, 7)
            day, rest = divmod(minute, 1440)
            start = f"{2020 + day // 365:04d}-{1 + (day % 365) // 31 % 12:02d}-{1 + (day % 365) % 28:02d} {rest // 60:02d}:{rest % 60:02d}:00 +0900"
            end_minute = rest + rng.randint(1, 9)
            end_minute = min(end_minute, 1439)
            end = start[:11] + f"{end_minute // 60:02d}:{end_minute % 60:02d}:00 +0900"
            source = WATCH if rng.random() < 0.6 else IPHONE
            if rng.random() < 0.25:
                line = record(DISTANCE, source, "km", f"{rng.uniform(0.01, 0.9):.6f}", start, end)
                distance_records += 1
            else:
                kind, unit = skipped_types[rng.randrange(len(skipped_types))]
                line = record(kind, source, unit, f"{rng.uniform(1, 200):.3f}", start, end)
            buffer.append(line)
            written += len(line.encode())
            if len(buffer) >= 4096:
                f.write("".join(buffer))
                buffer = []
        f.write("".join(buffer))
        f.write("</HealthData>\n")
    write_zip(os.path.join(out, "export.zip"), [("apple_health_export/export.xml", xml_path)])
    print(f"{xml_path}: {os.path.getsize(xml_path)} bytes, {distance_records} distance records", file=sys.stderr)


# The demo week's walks (jongno-week-walks.csv), as (day, start hour, start minute, minutes, metres) per hour.
DEMO_WALKS = [(day, 15, 0, 60, 4000) for day in (14, 15)] + [(day, 16, 0, 35, 2600) for day in (14, 15)] + \
    [(day, 8, 0, 25, 1800) for day in range(16, 21)] + [(day, 18, 0, 30, 2400) for day in range(16, 21)]


def demo_week_xml():
    """The demo adult's week (docstring above): walks, heart rate every 5 minutes awake, resting rates, nights."""
    rng = random.Random(2211)
    minute = datetime.timedelta(minutes=1)
    lines = []
    walks = []
    for day, hour, start_minute, minutes, metres in sorted(DEMO_WALKS):
        start = datetime.datetime(2026, 11, day, hour, start_minute, tzinfo=KST)
        walks.append((start, start + minutes * minute))
        lines.append(record(DISTANCE, WATCH, "m", str(metres), health_date(start), health_date(start + minutes * minute)))
    for day in range(14, 21):
        lines += sleep_records(datetime.datetime(2026, 11, day - 1, 23, 5 + rng.randint(0, 30), tzinfo=KST), rng)
        lines.append(record(RESTING_HEART_RATE, WATCH, "count/min", str(rng.randint(56, 60)),
                            f"2026-11-{day:02d} 00:00:12 +0900", f"2026-11-{day:02d} 21:41:00 +0900"))
        moment = datetime.datetime(2026, 11, day, 6, 50, tzinfo=KST)
        while moment <= datetime.datetime(2026, 11, day, 22, 50, tzinfo=KST):
            walking = any(start <= moment < stop for start, stop in walks)
            lines.append(heart_rate_record(moment, rng.randint(112, 128) if walking else rng.randint(62, 84), 2 if walking else 1))
            moment += 5 * minute
    return head("2026-11-21 00:10:00 +0900") + "".join(lines) + "</HealthData>\n"


def write_demo_week(out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "export.xml"), "wb") as f:
        f.write(demo_week_xml().encode())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "activity")
    parser.add_argument("--out", help="the directory to write to (default Fixtures/activity/generated, or generated-watch with "
                        "--heart-rate or --sleep)")
    parser.add_argument("--size-mb", type=int, default=0, help="write a large export.xml of at least this many MB and its zip")
    parser.add_argument("--heart-rate", action="store_true", help="add a day of heart-rate samples and resting rates")
    parser.add_argument("--sleep", action="store_true", help="add a night of sleep (a night per day with --size-mb)")
    parser.add_argument("--heart-rate-samples", type=int, default=0, help="with --size-mb: this many heart-rate samples")
    parser.add_argument("--demo-week", action="store_true", help="the demo adult's week (Fixtures/activity/demo-week-watch/)")
    arguments = parser.parse_args()
    if arguments.demo_week:
        write_demo_week(arguments.out or os.path.join(fixtures, "demo-week-watch"))
        return
    watch = arguments.heart_rate or arguments.sleep
    out = arguments.out or os.path.join(fixtures, "generated-watch" if watch else "generated")
    if arguments.size_mb > 0:
        write_large(out, arguments.size_mb, arguments.heart_rate_samples, arguments.sleep)
    else:
        write_small(out, arguments.heart_rate, arguments.sleep)


if __name__ == "__main__":
    main()
