/* Readable dumps of instrumented methods for the Dumps log level (il_dump.c). */
#ifndef CLRIE_PM_IL_DUMP_H
#define CLRIE_PM_IL_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "clrie/abi/corprof.h"
#include "clrie/ilgraph.h"
#include "log.h"

/* Writes the method's final header, every instruction (current offset, opcode, operand, and
 * where it came from), its EH clauses, locals signature and IL map to the log as Dumps lines.
 * The graph must have been laid out (encoded) just before. */
void clrie_pm__il_dump_method(struct clrie_pm_log *log, const char *name, uint32_t token,
                              struct clrie_il_graph *g, const uint8_t *local_sig,
                              size_t local_sig_len, const COR_IL_MAP *map, size_t map_count);

#endif
