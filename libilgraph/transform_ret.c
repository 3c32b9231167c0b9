/* Method-shape transforms a plugin asks for before editing: one shared return point
 * (CLRIE's ISingleRetDefaultInstrumentation) and tiny-to-fat header conversion. */
#include <errno.h>
#include <stdlib.h>

#include "graph_private.h"
#include "transform.h"

#define FAT_FORMAT 0x3u

static bool is_call(uint16_t op)
{
    return op == CLRIE_IL_OP_CALL || op == CLRIE_IL_OP_CALLVIRT || op == CLRIE_IL_OP_CALLI;
}

/* A ret that ends a tail call (tail. call [pop] ret) must stay where it is. */
static bool ends_tail_call(const struct clrie_il_instr *ret)
{
    const struct clrie_il_instr *p = ret->prev;
    if (p && p->opcode == CLRIE_IL_OP_POP)
        p = p->prev;
    return p && is_call(p->opcode) && p->prev && p->prev->opcode == CLRIE_IL_OP_TAIL;
}

int il_collect_rets(struct clrie_il_graph *g, bool skip_tail_calls, struct clrie_il_instr ***out,
                    size_t *count)
{
    size_t n = 0;
    for (struct clrie_il_instr *i = g->first; i; i = i->next)
        n += i->opcode == CLRIE_IL_OP_RET;
    struct clrie_il_instr **rets = malloc((n ? n : 1) * sizeof(*rets));
    if (!rets)
        return -ENOMEM;
    size_t k = 0;
    for (struct clrie_il_instr *i = g->first; i; i = i->next)
        if (i->opcode == CLRIE_IL_OP_RET && !(skip_tail_calls && ends_tail_call(i)))
            rets[k++] = i;
    *out = rets;
    *count = k;
    return 0;
}

int il_return_local(const struct clrie_il_method_context *m, const struct clrie_il_method_sig *sig,
                    struct clrie_il_transform_result *res, struct clrie_il_diag *diag)
{
    /* The local's type is the return type without its custom modifiers. */
    const uint8_t *type = m->method_sig + sig->ret_offset;
    size_t len = sig->ret_len, mods;
    if (clrie_il_sig_skip_custom_mods(type, len, &mods) < 0)
        return il_diag(diag, -EILSEQ, 0, "malformed custom modifier in the return type");
    type += mods;
    len -= mods;
    int r = clrie_il_sig_local_append(m->local_sig, m->local_sig_len, type, len, &res->local_sig,
                                      &res->local_sig_len, &res->local_index);
    if (r == -EILSEQ)
        return il_diag(diag, r, 0, "the local variable signature is malformed");
    if (r == -ERANGE)
        return il_diag(diag, r, 0, "the method already has the maximum number of locals");
    return r;
}

int il_rets_to_branches(struct clrie_il_graph *g, struct clrie_il_instr *const *rets, size_t count,
                        uint16_t opcode, struct clrie_il_instr *exit, bool store, uint32_t local,
                        struct clrie_il_instr **follow)
{
    int r;
    for (size_t i = 0; i < count; i++) {
        struct clrie_il_instr *branch, *st;
        if ((r = clrie_il_instr_create_branch(g, opcode, exit, &branch)) < 0 ||
            (r = clrie_il_graph_replace(g, rets[i], branch)) < 0)
            return r;
        if (follow && rets[i] == *follow)
            *follow = branch;
        if (store && ((r = clrie_il_instr_create_stloc(g, local, &st)) < 0 ||
                      (r = clrie_il_graph_insert_before_retarget(g, branch, st)) < 0))
            return r;
    }
    return 0;
}

int il_append_new(struct clrie_il_graph *g, uint16_t opcode, struct clrie_il_instr **out)
{
    int r = clrie_il_instr_create(g, opcode, out);
    return r < 0 ? r : clrie_il_graph_insert_after(g, g->last, *out);
}

int il_transform_end(struct clrie_il_instr **rets, struct clrie_il_transform_result *res,
                     struct clrie_il_transform_result *out, int r)
{
    free(rets);
    if (r < 0) {
        free(res->local_sig);
        return r;
    }
    *out = *res;
    return 0;
}

int il_parse_context(const struct clrie_il_method_context *m, struct clrie_il_method_sig *sig,
                     struct clrie_il_diag *diag)
{
    if (!m || !m->method_sig)
        return -EINVAL;
    return clrie_il_sig_parse_method(m->method_sig, m->method_sig_len, sig, diag);
}

int clrie_il_transform_single_ret(struct clrie_il_graph *g, const struct clrie_il_method_context *m,
                                  struct clrie_il_transform_result *out, struct clrie_il_diag *diag)
{
    if (!g || !out)
        return -EINVAL;
    struct clrie_il_method_sig sig;
    int r = il_parse_context(m, &sig, diag);
    if (r < 0)
        return r;
    struct clrie_il_instr **rets;
    size_t count;
    r = il_collect_rets(g, true, &rets, &count);
    if (r < 0)
        return r;
    struct clrie_il_transform_result res = {0};
    if (count < 2) {
        res.exit = count ? rets[0] : NULL;
        goto end;
    }
    bool store = !sig.returns_void && !sig.returns_byref;
    if (store && (r = il_return_local(m, &sig, &res, diag)) < 0)
        goto end;
    struct clrie_il_instr *final_ret, *target;
    if ((r = il_append_new(g, CLRIE_IL_OP_RET, &final_ret)) < 0)
        goto end;
    target = final_ret;
    if (store) {
        if ((r = clrie_il_instr_create_ldloc(g, res.local_index, &target)) < 0 ||
            (r = clrie_il_graph_insert_before(g, final_ret, target)) < 0)
            goto end;
    }
    if ((r = il_rets_to_branches(g, rets, count, CLRIE_IL_OP_BR, target, store, res.local_index,
                                 NULL)) < 0)
        goto end;
    res.exit = target;
    res.changed = true;
end:
    return il_transform_end(rets, &res, out, r);
}

int clrie_il_transform_fat_header(struct clrie_il_graph *g, clrie_il_stack_fn resolve, void *ctx,
                                  struct clrie_il_diag *diag)
{
    if (!g)
        return -EINVAL;
    uint32_t max;
    int r = clrie_il_graph_max_stack(g, resolve, ctx, &max, diag);
    if (r < 0)
        return r;
    if (max > UINT16_MAX)
        return il_diag(diag, -ERANGE, 0, "max stack %u does not fit a method header", max);
    if (!g->fat) {
        g->fat = true;
        g->flags = FAT_FORMAT | CLRIE_IL_HEADER_INIT_LOCALS;
    }
    g->max_stack = (uint16_t)max;
    return 0;
}
