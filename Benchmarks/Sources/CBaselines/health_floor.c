#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <stdlib.h>
#include <string.h>
#include "CBaselines.h"

/* The Health export floor (issue 12): xmlTextReader streaming export.xml from a file, reading the
   attributes of every top-level Record and summing the walking distances in metres. No dates are
   parsed, nothing is apportioned or stored: the least any reader of the file must do. */
int fd_health_floor(const char *path, fd_health_totals *totals) {
    memset(totals, 0, sizeof(*totals));
    xmlTextReaderPtr reader = xmlReaderForFile(path, NULL,
        XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_COMPACT);
    if (!reader) return -1;
    const xmlChar *name_record = xmlTextReaderConstString(reader, BAD_CAST "Record");
    const xmlChar *name_type = xmlTextReaderConstString(reader, BAD_CAST "type");
    const xmlChar *name_unit = xmlTextReaderConstString(reader, BAD_CAST "unit");
    const xmlChar *name_value = xmlTextReaderConstString(reader, BAD_CAST "value");
    const char *distance = "HKQuantityTypeIdentifierDistanceWalkingRunning";
    int status;
    while ((status = xmlTextReaderRead(reader)) == 1) {
        if (xmlTextReaderNodeType(reader) != XML_READER_TYPE_ELEMENT || xmlTextReaderDepth(reader) != 1) continue;
        if (xmlTextReaderConstLocalName(reader) != name_record) continue;
        const xmlChar *type = NULL, *unit = NULL, *value = NULL;
        if (xmlTextReaderMoveToFirstAttribute(reader) == 1) {
            do {
                const xmlChar *name = xmlTextReaderConstLocalName(reader);
                if (name == name_type) type = xmlTextReaderConstValue(reader);
                else if (name == name_unit) unit = xmlTextReaderConstValue(reader);
                else if (name == name_value) value = xmlTextReaderConstValue(reader);
            } while (xmlTextReaderMoveToNextAttribute(reader) == 1);
        }
        if (type && strcmp((const char *)type, distance) == 0 && unit && value) {
            double metres = strtod((const char *)value, NULL);
            const char *u = (const char *)unit;
            metres *= strcmp(u, "km") == 0 ? 1000 : strcmp(u, "mi") == 0 ? 1609.344 : strcmp(u, "ft") == 0 ? 0.3048 : 1;
            totals->distance_records++;
            totals->metres += metres;
        } else {
            totals->other_records++;
        }
        xmlTextReaderMoveToElement(reader);
    }
    xmlFreeTextReader(reader);
    return status == 0 ? 0 : -1;
}
