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

/* Turns each of rets[0..count) into `opcode exit` (br or leave), preceded by `stloc local`
 * when store (the return value travels through that local). When a ret replaced is *follow,
 * *follow becomes its branch (follow may be NULL). */
int il_rets_to_branches(struct clrie_il_graph *g, struct clrie_il_instr *const *rets, size_t count,
                        uint16_t opcode, struct clrie_il_instr *exit, bool store, uint32_t local,
                        struct clrie_il_instr **follow);
/* A new instruction at the end of the current list. */
int il_append_new(struct clrie_il_graph *g, uint16_t opcode, struct clrie_il_instr **out);
/* How a transform ends: frees rets; on success (r == 0) hands res to out, on failure frees
 * the local signature it made. Returns r. */
int il_transform_end(struct clrie_il_instr **rets, struct clrie_il_transform_result *res,
                     struct clrie_il_transform_result *out, int r);

#endif
