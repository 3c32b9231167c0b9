/* Wrapping a whole method body in try/finally or try/catch: the building block of timing
 * and tracing plugins, which need code to run however the method exits. */
#include <errno.h>
#include <stdlib.h>

#include "graph_private.h"
#include "transform.h"

int clrie_il_transform_wrap(struct clrie_il_graph *g, uint32_t kind, uint32_t class_token,
                            const struct clrie_il_method_context *m,
                            struct clrie_il_transform_result *out, struct clrie_il_diag *diag)
{
    if (!g || !out || (kind != CLRIE_IL_EH_FINALLY && kind != CLRIE_IL_EH_CATCH))
        return -EINVAL;
    if (!g->first)
        return il_diag(diag, -EINVAL, 0, "the method has no instructions to wrap");
    struct clrie_il_method_sig sig;
    int r = il_parse_context(m, &sig, diag);
    if (r < 0)
        return r;
    r = il_layout_current(g, diag);
    if (r < 0)
        return r;
    for (struct clrie_il_instr *n = g->first; n; n = n->next)
        if (n->opcode == CLRIE_IL_OP_JMP)
            return il_diag(diag, -ENOTSUP, n->offset,
                           "jmp at IL offset %u cannot be inside a try block", n->offset);

    struct clrie_il_transform_result res = {0};
    struct clrie_il_instr **rets = NULL;
    size_t count;
    /* A tail call cannot sit in a try block: drop the prefix, keep the call. */
    for (struct clrie_il_instr *n = g->first, *next; n; n = next) {
        next = n->next;
        if (n->opcode == CLRIE_IL_OP_TAIL && n->next && (r = clrie_il_graph_remove(g, n)) < 0)
            goto end;
    }
    if (!sig.returns_void && (r = il_return_local(m, &sig, &res, diag)) < 0)
        goto end;
    if ((r = il_collect_rets(g, false, &rets, &count)) < 0)
        goto end;

    struct clrie_il_instr *body_last = g->last, *h_first, *h_last, *exit, *ret;
    if (kind == CLRIE_IL_EH_FINALLY) {
        if ((r = il_append_new(g, CLRIE_IL_OP_NOP, &h_first)) < 0 ||
            (r = il_append_new(g, CLRIE_IL_OP_ENDFINALLY, &h_last)) < 0)
            goto end;
    } else {
        if ((r = il_append_new(g, CLRIE_IL_OP_POP, &h_first)) < 0 ||
            (r = il_append_new(g, CLRIE_IL_OP_RETHROW, &h_last)) < 0)
            goto end;
    }
    if (sig.returns_void) {
        if ((r = il_append_new(g, CLRIE_IL_OP_RET, &exit)) < 0)
            goto end;
    } else {
        if ((r = clrie_il_instr_create_ldloc(g, res.local_index, &exit)) < 0 ||
            (r = clrie_il_graph_insert_after(g, g->last, exit)) < 0 ||
            (r = il_append_new(g, CLRIE_IL_OP_RET, &ret)) < 0)
            goto end;
    }
    if ((r = il_rets_to_branches(g, rets, count, CLRIE_IL_OP_LEAVE, exit, !sig.returns_void,
                                 res.local_index, &body_last)) < 0)
        goto end;
    struct clrie_il_clause_info info = {
        .flags = kind,
        .try_first = g->first,
        .try_last = body_last,
        .handler_first = h_first,
        .handler_last = h_last,
        .class_token = kind == CLRIE_IL_EH_CATCH ? class_token : 0,
    };
    if ((r = clrie_il_graph_add_clause(g, &info, &res.clause)) < 0)
        goto end;
    res.changed = true;
    res.exit = exit;
    res.handler_first = h_first;
    res.handler_last = h_last;
end:
    return il_transform_end(rets, &res, out, r);
}
