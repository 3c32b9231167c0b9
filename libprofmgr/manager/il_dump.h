/* Dumps of instrumented methods for the Dumps log level (il_dump.c). */
#ifndef CLRIE_PM_IL_DUMP_H
#define CLRIE_PM_IL_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "clrie/abi/corprof.h"
#include "clrie/ilgraph.h"
#include "log.h"
#include "method_info.h"

/* Writes, as one Dumps entry, CLRIE's InstrumentedMethod document for the method (its
 * instructions and clauses decoded again from body, the bytes given to the runtime) and then
 * clrie's own lines about the plugins' graph g, each labelled with the module and token. g
 * must have been laid out (encoded) just before. */
void clrie_pm__il_dump_method(struct clrie_pm_log *log, struct method_info *mi,
                              struct clrie_il_graph *g, const uint8_t *body, size_t body_len,
                              const uint8_t *local_sig, size_t local_sig_len, const COR_IL_MAP *map,
                              size_t map_count);

#endif
