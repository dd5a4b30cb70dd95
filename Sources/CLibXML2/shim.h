#ifndef FINEDUST_CLIBXML2_SHIM_H
#define FINEDUST_CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU; its ICU headers clash with Foundation's own copy.
// Including xmlversion.h first and undefining the switch keeps them out.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>

// libxml2 writes some errors straight to its generic handler, stderr by default ("xmlParseChunk: encoder
// error"): FineDust reports every error in its own words, and nothing of a document reaches a terminal
// but through them. The handler is variadic, which Swift cannot write; set here, for this thread and for
// threads libxml2 has not met yet.
static inline void finedust_xml_silent_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline void finedust_xml_silence_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, finedust_xml_silent_generic_error);
    xmlThrDefSetGenericErrorFunc(NULL, finedust_xml_silent_generic_error);
}

#endif
