/* Shared by the libilgraph fuzz targets: a resolver that needs no metadata and the
 * round-trip invariant every encoded body must keep. */
#ifndef CLRIE_ILGRAPH_FUZZ_COMMON_H
#define CLRIE_ILGRAPH_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"

/* A call's stack effect comes from its token's low bits; ret pops *(int *)ctx. */
static inline int fuzz_resolver(void *ctx, uint16_t opcode, uint32_t token,
                                struct clrie_il_stack_effect *out)
{
    if (opcode == CLRIE_IL_OP_RET) {
        out->pop = (uint32_t) * (int *)ctx;
        out->push = 0;
        return 0;
    }
    if (token == 0xFFFFFFFF)
        return -2;
    out->pop = token & 3;
    out->push = (token >> 2) & 1;
    return 0;
}

static inline void fuzz_ignore(void *ctx, uint32_t offset, const char *message)
{
    size_t len = strlen(message); /* the message must be a terminated string */
    if (len == 0 || len >= 200)
        abort();
}

/* Encodes g with flags; the result must decode, and encoding that decoded graph again in
 * PRESERVE mode must give the same bytes (the other modes may legitimately re-choose forms:
 * a branch pinned long by expand_branch is written long, then shrinks when re-encoded). */
static inline void fuzz_round_trip(struct clrie_il_graph *g, unsigned flags)
{
    uint8_t *body = NULL, *again = NULL;
    size_t len = 0, again_len = 0;
    struct clrie_il_diag d;
    if (clrie_il_graph_encode(g, flags, &body, &len, &d) != 0)
        return;
    struct clrie_il_graph *h = NULL;
    if (clrie_il_graph_decode(body, len, &h, &d) != 0)
        abort();
    if (clrie_il_graph_count(h) != clrie_il_graph_count(g) ||
        clrie_il_graph_clause_count(h) != clrie_il_graph_clause_count(g))
        abort();
    /* Same instructions in the same order, branches to the same positions. */
    struct clrie_il_instr *a = clrie_il_graph_first(g), *b = clrie_il_graph_first(h);
    for (; a && b; a = clrie_il_instr_next(a), b = clrie_il_instr_next(b)) {
        if (clrie_il_instr_opcode(a) != clrie_il_instr_opcode(b) ||
            clrie_il_instr_offset(a) != clrie_il_instr_original_offset(b))
            abort();
        struct clrie_il_instr *ta = clrie_il_instr_branch_target(a);
        struct clrie_il_instr *tb = clrie_il_instr_branch_target(b);
        if ((ta == NULL) != (tb == NULL) ||
            (ta && clrie_il_instr_offset(ta) != clrie_il_instr_original_offset(tb)))
            abort();
    }
    if (clrie_il_graph_encode(h, flags | CLRIE_IL_ENCODE_PRESERVE, &again, &again_len, &d) != 0)
        abort();
    if (again_len != len || memcmp(again, body, len) != 0)
        abort();
    /* The IL map of h (unedited) is the identity. */
    struct clrie_il_map_entry *map = NULL;
    size_t n = 0;
    if (clrie_il_graph_il_map(h, &map, &n) != 0 || n != clrie_il_graph_count(h))
        abort();
    for (size_t i = 0; i < n; i++)
        if (map[i].old_offset != map[i].new_offset)
            abort();
    free(map);
    free(again);
    free(body);
    clrie_il_graph_free(h);
}

#endif
