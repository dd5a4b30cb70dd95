#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <stdlib.h>
#include <string.h>
#include "CBaselines.h"

enum field { F_NONE, F_TIME, F_STATION, F_PM10, F_PM25 };

long fd_xml_floor(const char *buffer, int size, fd_item *items, long capacity) {
    xmlTextReaderPtr reader = xmlReaderForMemory(buffer, size, "floor.xml", "UTF-8",
        XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_COMPACT);
    if (!reader) return -1;
    const xmlChar *name_item = xmlTextReaderConstString(reader, BAD_CAST "item");
    const xmlChar *name_time = xmlTextReaderConstString(reader, BAD_CAST "dataTime");
    const xmlChar *name_station = xmlTextReaderConstString(reader, BAD_CAST "stationName");
    const xmlChar *name_pm10 = xmlTextReaderConstString(reader, BAD_CAST "pm10Value");
    const xmlChar *name_pm25 = xmlTextReaderConstString(reader, BAD_CAST "pm25Value");
    long count = -1;
    enum field current = F_NONE;
    int status;
    while ((status = xmlTextReaderRead(reader)) == 1) {
        int type = xmlTextReaderNodeType(reader);
        if (type == XML_READER_TYPE_ELEMENT) {
            const xmlChar *name = xmlTextReaderConstLocalName(reader);
            if (name == name_item && xmlTextReaderDepth(reader) == 3) {
                if (count + 1 < capacity) { count++; memset(&items[count], 0, sizeof(fd_item)); }
                current = F_NONE;
            } else if (name == name_time) current = F_TIME;
            else if (name == name_station) current = F_STATION;
            else if (name == name_pm10) current = F_PM10;
            else if (name == name_pm25) current = F_PM25;
            else current = F_NONE;
        } else if (type == XML_READER_TYPE_TEXT && current != F_NONE && count >= 0) {
            const char *value = (const char *)xmlTextReaderConstValue(reader);
            fd_item *item = &items[count];
            switch (current) {
            case F_TIME: strncpy(item->dataTime, value, sizeof(item->dataTime) - 1); break;
            case F_STATION: strncpy(item->stationName, value, sizeof(item->stationName) - 1); break;
            case F_PM10: item->pm10 = value[0] == '-' ? -1 : strtod(value, NULL); break;
            case F_PM25: item->pm25 = value[0] == '-' ? -1 : strtod(value, NULL); break;
            default: break;
            }
        } else if (type == XML_READER_TYPE_END_ELEMENT) {
            current = F_NONE;
        }
    }
    xmlFreeTextReader(reader);
    return status == 0 ? count + 1 : -1;
}
