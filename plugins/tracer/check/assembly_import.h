/* An IMetaDataImport over an assembly read by the clrie-il tool's reader (libilgraph/tool), for
 * clrie-tracer-check: the few methods that the matching (match.c) and the parameter text
 * (signature.c) call, so that the tool decides through the same code as the plugin in the
 * runtime. Every other method answers E_NOTIMPL (CloseEnum does nothing). Private to
 * plugins/tracer/check. */
#ifndef CLRIE_TRACER_CHECK_ASSEMBLY_IMPORT_H
#define CLRIE_TRACER_CHECK_ASSEMBLY_IMPORT_H

#include <clrie/abi/metadata.h>

#include "assembly.h"

/* The IMetaDataImport of an opened assembly, which it borrows (the assembly must outlive it);
 * *out is a new reference (Release frees it). 0 or -ENOMEM. Not for several threads at once. */
int clrie_tracer_check_import_new(const struct asm_assembly *assembly, IMetaDataImport **out);

#endif
