#ifndef FINEDUST_CLIBXML2_SHIM_H
#define FINEDUST_CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU; its ICU headers clash with Foundation's own copy.
// Including xmlversion.h first and undefining the switch keeps them out.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>

#endif
