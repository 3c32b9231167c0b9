/* Helpers shared by the transform_*.c files. */
#ifndef CLRIE_ILGRAPH_TRANSFORM_H
#define CLRIE_ILGRAPH_TRANSFORM_H

#include "graph_private.h"

/* The rets of the current list (skipping those ending a tail call when asked); *out is
 * malloc'd. */
int il_collect_rets(struct clrie_il_graph *g, bool skip_tail_calls, struct clrie_il_instr ***out,
                    size_t *count);
/* Parses m's method signature. */
int il_parse_context(const struct clrie_il_method_context *m, struct clrie_il_method_sig *sig,
                     struct clrie_il_diag *diag);
/* Appends a local of the method's return type: fills res->local_sig/_len/local_index. */
int il_return_local(const struct clrie_il_method_context *m, const struct clrie_il_method_sig *sig,
                    struct clrie_il_transform_result *res, struct clrie_il_diag *diag);

#endif
