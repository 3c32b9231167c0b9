/* The verifier's memory of what the caller's callbacks said during one verify call: each
 * question about a token (its stack effect for an opcode, its signature, whether its row
 * exists, whether its field is static) goes to the callback once, however many
 * instructions name the token and however many times the checks pass over them. */
#include <errno.h>

#include "graph_private.h"

int il_memo_init(struct il_memo *m, struct clrie_il_graph *g, clrie_il_stack_fn resolve,
                 void *resolve_ctx, const struct clrie_il_metadata *md)
{
    /* Room for every token an instruction names, and for ret's 0. */
    uint32_t tokens = 1;
    for (size_t i = 0; i < g->count; i++)
        tokens += il_opcode_infos[g->cur[i]->opcode].operand_kind == CLRIE_IL_OPERAND_TOKEN;
    uint32_t size = 8;
    while (size < 2 * tokens)
        size *= 2;
    *m = (struct il_memo){
        .resolve = resolve,
        .resolve_ctx = resolve_ctx,
        .md = md,
        .slots = il_check_alloc(g, size * sizeof(*m->slots)),
        .mask = size - 1,
        .entries = il_check_take_array(g, tokens, sizeof(*m->entries)),
        .cap = tokens,
    };
    return m->slots && m->entries ? 0 : -ENOMEM;
}

struct il_memo_entry *il_memo_find(struct il_memo *m, uint32_t token)
{
    uint32_t at = (uint32_t)(((uint64_t)token * 0x9E3779B97F4A7C15u) >> 32) & m->mask;
    for (;; at = (at + 1) & m->mask) {
        uint32_t slot = m->slots[at];
        if (slot == 0)
            break;
        if (m->entries[slot - 1].token == token)
            return &m->entries[slot - 1];
    }
    if (m->count == m->cap)
        return NULL;
    struct il_memo_entry *e = &m->entries[m->count];
    *e = (struct il_memo_entry){.token = token};
    m->slots[at] = ++m->count;
    return e;
}

static int ask_resolve(const struct il_memo *m, uint16_t opcode, uint32_t token,
                       struct clrie_il_stack_effect *out)
{
    *out = (struct clrie_il_stack_effect){0, 0};
    return m->resolve ? m->resolve(m->resolve_ctx, opcode, token, out) : -EINVAL;
}

int il_memo_resolve(void *memo, uint16_t opcode, uint32_t token, struct clrie_il_stack_effect *out)
{
    struct il_memo *m = memo;
    struct il_memo_entry *e = il_memo_find(m, token);
    if (!e)
        return ask_resolve(m, opcode, token, out);
    if (!(e->known & IL_MEMO_EFFECT) || e->effect_op != opcode) {
        e->effect_rc = ask_resolve(m, opcode, token, &e->effect);
        e->effect_op = opcode;
        e->known |= IL_MEMO_EFFECT;
    }
    *out = e->effect;
    return e->effect_rc;
}

bool il_memo_token_exists(struct il_memo *m, uint32_t token)
{
    const struct clrie_il_metadata *md = m->md;
    if (!md || !md->token_exists)
        return true;
    struct il_memo_entry *e = il_memo_find(m, token);
    if (!e)
        return md->token_exists(md->ctx, token);
    if (!(e->known & IL_MEMO_EXISTS)) {
        e->exists = md->token_exists(md->ctx, token);
        e->known |= IL_MEMO_EXISTS;
    }
    return e->exists;
}

static const uint8_t *ask_signature(const struct clrie_il_metadata *md, uint32_t token, size_t *len)
{
    const uint8_t *sig = NULL;
    if (!md || !md->signature || md->signature(md->ctx, token, &sig, len) < 0 || !sig || *len == 0)
        return NULL;
    return sig;
}

const uint8_t *il_memo_signature(struct il_memo *m, uint32_t token, size_t *len)
{
    struct il_memo_entry *e = il_memo_find(m, token);
    if (!e)
        return ask_signature(m->md, token, len);
    if (!(e->known & IL_MEMO_SIGNATURE)) {
        e->sig = ask_signature(m->md, token, &e->sig_len);
        e->known |= IL_MEMO_SIGNATURE;
    }
    *len = e->sig_len;
    return e->sig;
}

int il_memo_field_is_static(struct il_memo *m, uint32_t token)
{
    const struct clrie_il_metadata *md = m->md;
    struct il_memo_entry *e = il_memo_find(m, token);
    if (!e)
        return md->field_is_static(md->ctx, token);
    if (!(e->known & IL_MEMO_STATIC)) {
        int r = md->field_is_static(md->ctx, token);
        e->is_static = (int8_t)(r < 0 ? -1 : r != 0);
        e->known |= IL_MEMO_STATIC;
    }
    return e->is_static;
}
