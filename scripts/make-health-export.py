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

Standard library only.
"""
import argparse
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


def head(export_date="2026-11-20 21:00:00 +0900"):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + SUBSET +
            '<HealthData locale="ko_KR">\n'
            f' <ExportDate value="{export_date}"/>\n'
            ' <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet"'
            ' HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet"'
            ' HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>\n')


def small_export_xml():
    body = [
        record("HKQuantityTypeIdentifierStepCount", IPHONE, "count", "412", "2026-11-20 07:58:12 +0900", "2026-11-20 08:05:40 +0900"),
        record(DISTANCE, WATCH, "km", "2.4", "2026-11-20 12:10:00 +0900", "2026-11-20 12:40:00 +0900"),
        record(DISTANCE, IPHONE, "mi", "1.25", "2026-11-20 12:05:00 +0900", "2026-11-20 12:45:00 +0900"),
        record("HKQuantityTypeIdentifierHeartRate", WATCH, "count/min", "96", "2026-11-20 12:20:00 +0900", "2026-11-20 12:20:00 +0900"),
        record(DISTANCE, WATCH, "m", "1200", "2026-11-20 13:50:00 +0900", "2026-11-20 14:10:00 +0900"),
        record(DISTANCE, IPHONE, "ft", "3280.84", "2026-11-19 23:40:00 -0500", "2026-11-19 23:50:00 -0500"),
        record("HKQuantityTypeIdentifierActiveEnergyBurned", WATCH, "Cal", "35.2", "2026-11-20 12:10:00 +0900", "2026-11-20 12:40:00 +0900"),
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


def write_small(out):
    os.makedirs(out, exist_ok=True)
    xml = small_export_xml().encode()
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


def write_large(out, size_mb):
    """An export.xml of at least size_mb MB (10^6 bytes), streamed, with a year of records of
    many types from two sources, and its zip. Memory stays small whatever the size."""
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "activity", "generated"))
    parser.add_argument("--size-mb", type=int, default=0, help="write a large export.xml of at least this many MB and its zip")
    arguments = parser.parse_args()
    if arguments.size_mb > 0:
        write_large(arguments.out, arguments.size_mb)
    else:
        write_small(arguments.out)


if __name__ == "__main__":
    main()
