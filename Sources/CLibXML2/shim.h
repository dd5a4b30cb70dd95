#ifndef FINEDUST_CLIBXML2_SHIM_H
#define FINEDUST_CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU; its ICU headers clash with Foundation's own copy.
// Including xmlversion.h first and undefining the switch keeps them out.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>

// Where a thread's libxml2 errors go while one of FineDust's readers runs. Errors of its input layer (an
// encoding that does not decode) have no parser to report to and go to the thread's structured handler,
// given here as the reader's own sink; a few go straight to the generic handler, stderr by default
// ("xmlParseChunk: encoder error"), silenced here (it is variadic, which Swift cannot write), for this
// thread and for threads libxml2 has not met yet. FineDust says every error in its own words, and nothing
// of a document reaches a terminal but through them.
static inline void finedust_xml_silent_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline void finedust_xml_silent_structured_error(void *context, xmlErrorPtr error) {
    (void)context;
    (void)error;
}

/// Before a read on this thread: every error to `handler(context)`, none to stderr.
static inline void finedust_xml_errors_begin(void *context, xmlStructuredErrorFunc handler) {
    xmlSetStructuredErrorFunc(context, handler);
    xmlSetGenericErrorFunc(NULL, finedust_xml_silent_generic_error);
    xmlThrDefSetGenericErrorFunc(NULL, finedust_xml_silent_generic_error);
}

/// After the read: the sink is no longer there; errors go nowhere until the next read sets one.
static inline void finedust_xml_errors_end(void) {
    xmlSetStructuredErrorFunc(NULL, finedust_xml_silent_structured_error);
}

#endif
