/* Instruction nodes: what a node says about itself (opcode, operand, offsets, links,
 * targets) and creating new nodes, including the shortest-form helpers. A node's memory comes
 * from store.c; its current offset, from layout.c. */
#include <errno.h>
#include <string.h>

#include "graph_private.h"

uint16_t clrie_il_instr_opcode(const struct clrie_il_instr *n)
{
    return n->opcode;
}

const struct clrie_il_opcode_info *clrie_il_instr_info(const struct clrie_il_instr *n)
{
    return &il_opcode_infos[n->opcode];
}

uint32_t clrie_il_instr_offset(struct clrie_il_instr *n)
{
    if (n->attached && n->graph->stale)
        /* Offsets only: no node order array. On failure the old offsets stand. */
        (void)clrie_il_graph_layout(n->graph, n->graph->layout_flags, NULL);
    return n->offset;
}

uint32_t clrie_il_instr_original_offset(const struct clrie_il_instr *n)
{
    return n->orig_offset;
}

uint32_t clrie_il_instr_size(const struct clrie_il_instr *n)
{
    return il_instr_size(n);
}

bool clrie_il_instr_is_new(const struct clrie_il_instr *n)
{
    return n->state == IL_NEW;
}

bool clrie_il_instr_is_removed(const struct clrie_il_instr *n)
{
    return n->removed != IL_IN_LIST;
}

struct clrie_il_instr *clrie_il_instr_current(struct clrie_il_instr *n)
{
    return il_current(n);
}

struct clrie_il_instr *clrie_il_instr_next(const struct clrie_il_instr *n)
{
    return n->next;
}

struct clrie_il_instr *clrie_il_instr_prev(const struct clrie_il_instr *n)
{
    return n->prev;
}

struct clrie_il_instr *clrie_il_instr_original_next(const struct clrie_il_instr *n)
{
    if (n->state != IL_ORIGINAL || n->orig_index + 1 >= n->graph->orig_count)
        return NULL;
    return &n->graph->orig[n->orig_index + 1];
}

struct clrie_il_instr *clrie_il_instr_original_prev(const struct clrie_il_instr *n)
{
    if (n->state != IL_ORIGINAL || n->orig_index == 0)
        return NULL;
    return &n->graph->orig[n->orig_index - 1];
}

static uint8_t kind_of(const struct clrie_il_instr *n)
{
    return (&il_opcode_infos[n->opcode])->operand_kind;
}

static bool is_int_kind(uint8_t kind)
{
    return kind == CLRIE_IL_OPERAND_INT8 || kind == CLRIE_IL_OPERAND_UINT8 ||
           kind == CLRIE_IL_OPERAND_UINT16 || kind == CLRIE_IL_OPERAND_INT32 ||
           kind == CLRIE_IL_OPERAND_INT64 || kind == CLRIE_IL_OPERAND_TOKEN;
}

static bool int_fits(uint8_t kind, int64_t v)
{
    switch (kind) {
    case CLRIE_IL_OPERAND_INT8:
        return v >= INT8_MIN && v <= INT8_MAX;
    case CLRIE_IL_OPERAND_UINT8:
        return v >= 0 && v <= UINT8_MAX;
    case CLRIE_IL_OPERAND_UINT16:
        return v >= 0 && v <= UINT16_MAX;
    case CLRIE_IL_OPERAND_INT32:
        return v >= INT32_MIN && v <= INT32_MAX;
    case CLRIE_IL_OPERAND_TOKEN:
        return v >= 0 && v <= UINT32_MAX;
    default:
        return true;
    }
}

int clrie_il_instr_operand_int(const struct clrie_il_instr *n, int64_t *out)
{
    if (!n || !out || !is_int_kind(kind_of(n)))
        return -EINVAL;
    *out = n->u.i;
    return 0;
}

int clrie_il_instr_set_operand_int(struct clrie_il_instr *n, int64_t value)
{
    if (!n || !is_int_kind(kind_of(n)))
        return -EINVAL;
    if (!int_fits(kind_of(n), value))
        return -ERANGE;
    n->u.i = value;
    n->graph->edited = true; /* the code changed, its layout did not */
    return 0;
}

int clrie_il_instr_operand_real(const struct clrie_il_instr *n, double *out)
{
    if (!n || !out)
        return -EINVAL;
    if (kind_of(n) == CLRIE_IL_OPERAND_FLOAT32)
        *out = n->u.r4;
    else if (kind_of(n) == CLRIE_IL_OPERAND_FLOAT64)
        *out = n->u.r8;
    else
        return -EINVAL;
    return 0;
}

int clrie_il_instr_operand_bytes(const struct clrie_il_instr *n, uint8_t buf[8])
{
    if (!n || !buf)
        return -EINVAL;
    uint8_t kind = kind_of(n);
    int len = (&il_opcode_infos[n->opcode])->operand_len;
    uint64_t bits;
    if (kind == CLRIE_IL_OPERAND_FLOAT32) {
        uint32_t b32;
        memcpy(&b32, &n->u.r4, 4);
        bits = b32;
    } else if (kind == CLRIE_IL_OPERAND_FLOAT64) {
        memcpy(&bits, &n->u.r8, 8);
    } else if (is_int_kind(kind) || kind == CLRIE_IL_OPERAND_NONE) {
        bits = (uint64_t)n->u.i;
    } else {
        return -EINVAL;
    }
    for (int i = 0; i < 8; i++)
        buf[i] = i < len ? (uint8_t)(bits >> (8 * i)) : 0;
    return len;
}

int clrie_il_instr_set_operand_bytes(struct clrie_il_instr *n, const uint8_t *buf, size_t len)
{
    if (!n || !buf)
        return -EINVAL;
    uint8_t kind = kind_of(n);
    size_t want = (&il_opcode_infos[n->opcode])->operand_len;
    if (len != want || want == 0 ||
        !(is_int_kind(kind) || kind == CLRIE_IL_OPERAND_FLOAT32 ||
          kind == CLRIE_IL_OPERAND_FLOAT64))
        return -EINVAL;
    uint64_t bits = 0;
    for (size_t i = 0; i < len; i++)
        bits |= (uint64_t)buf[i] << (8 * i);
    switch (kind) {
    case CLRIE_IL_OPERAND_INT8:
        n->u.i = (int8_t)(uint8_t)bits;
        break;
    case CLRIE_IL_OPERAND_INT32:
        n->u.i = (int32_t)(uint32_t)bits;
        break;
    case CLRIE_IL_OPERAND_INT64:
        n->u.i = (int64_t)bits;
        break;
    case CLRIE_IL_OPERAND_FLOAT32: {
        uint32_t b32 = (uint32_t)bits;
        memcpy(&n->u.r4, &b32, 4);
        break;
    }
    case CLRIE_IL_OPERAND_FLOAT64:
        memcpy(&n->u.r8, &bits, 8);
        break;
    default: /* UINT8, UINT16, TOKEN: unsigned */
        n->u.i = (int64_t)bits;
        break;
    }
    n->graph->edited = true; /* the code changed, its layout did not */
    return 0;
}

struct clrie_il_instr *clrie_il_instr_branch_target(const struct clrie_il_instr *n)
{
    return n && il_is_branch(n->opcode) ? n->u.branch->target : NULL;
}

static bool same_graph(const struct clrie_il_instr *a, const struct clrie_il_instr *b)
{
    return b == NULL || a->graph == b->graph;
}

int clrie_il_instr_set_branch_target(struct clrie_il_instr *n, struct clrie_il_instr *target)
{
    if (!n || !il_is_branch(n->opcode) || !same_graph(n, target))
        return -EINVAL;
    il_ref_set(n->u.branch, target);
    il_graph_edited(n->graph);
    return 0;
}

int clrie_il_instr_expand_branch(struct clrie_il_instr *n)
{
    if (!n || !il_is_branch(n->opcode))
        return -EINVAL;
    n->keep_long = true;
    if (il_is_short_branch(n->opcode))
        n->opcode = il_long_form(n->opcode);
    il_graph_edited(n->graph); /* a long one too: the shortest layout may no longer shrink it */
    return 0;
}

uint32_t clrie_il_instr_switch_count(const struct clrie_il_instr *n)
{
    return n && n->opcode == CLRIE_IL_OP_SWITCH ? n->u.sw->count : 0;
}

struct clrie_il_instr *clrie_il_instr_switch_target(const struct clrie_il_instr *n, uint32_t i)
{
    if (!n || n->opcode != CLRIE_IL_OP_SWITCH || i >= n->u.sw->count)
        return NULL;
    return n->u.sw->targets[i].target;
}

int clrie_il_instr_set_switch_target(struct clrie_il_instr *n, uint32_t i,
                                     struct clrie_il_instr *target)
{
    if (!n || n->opcode != CLRIE_IL_OP_SWITCH || i >= n->u.sw->count || !same_graph(n, target))
        return -EINVAL;
    il_ref_set(&n->u.sw->targets[i], target);
    il_graph_edited(n->graph);
    return 0;
}

int clrie_il_instr_remove_switch_target(struct clrie_il_instr *n, uint32_t i)
{
    if (!n || n->opcode != CLRIE_IL_OP_SWITCH || i >= n->u.sw->count)
        return -EINVAL;
    /* References are linked by address: unlink the ones that move, then relink them. */
    struct il_ref *refs = n->u.sw->targets;
    for (uint32_t k = i; k < n->u.sw->count; k++) {
        struct clrie_il_instr *t = refs[k].target;
        il_ref_set(&refs[k], NULL);
        if (k > i)
            il_ref_set(&refs[k - 1], t);
    }
    n->u.sw->count--;
    il_graph_edited(n->graph);
    return 0;
}

/* ---- Creating nodes ---- */

static int create(struct clrie_il_graph *g, uint16_t opcode, uint8_t want,
                  struct clrie_il_instr **out)
{
    if (!g || !out)
        return -EINVAL;
    const struct clrie_il_opcode_info *info = clrie_il_opcode_info(opcode);
    if (!info)
        return -EINVAL;
    bool ok = want == 0xFF ? is_int_kind(info->operand_kind) : info->operand_kind == want;
    if (want == CLRIE_IL_OPERAND_BRANCH32)
        ok = info->operand_kind == CLRIE_IL_OPERAND_BRANCH8 ||
             info->operand_kind == CLRIE_IL_OPERAND_BRANCH32;
    if (want == CLRIE_IL_OPERAND_FLOAT64)
        ok = info->operand_kind == CLRIE_IL_OPERAND_FLOAT32 ||
             info->operand_kind == CLRIE_IL_OPERAND_FLOAT64;
    if (!ok)
        return -EINVAL;
    struct clrie_il_instr *n = il_instr_alloc(g, opcode);
    if (!n)
        return -ENOMEM;
    *out = n;
    return 0;
}

int clrie_il_instr_create(struct clrie_il_graph *g, uint16_t opcode, struct clrie_il_instr **out)
{
    return create(g, opcode, CLRIE_IL_OPERAND_NONE, out);
}

int clrie_il_instr_create_int(struct clrie_il_graph *g, uint16_t opcode, int64_t value,
                              struct clrie_il_instr **out)
{
    const struct clrie_il_opcode_info *info = clrie_il_opcode_info(opcode);
    if (info && is_int_kind(info->operand_kind) && !int_fits(info->operand_kind, value))
        return -ERANGE;
    struct clrie_il_instr *n;
    int r = create(g, opcode, 0xFF, &n);
    if (r < 0)
        return r;
    n->u.i = value;
    *out = n;
    return 0;
}

int clrie_il_instr_create_real(struct clrie_il_graph *g, uint16_t opcode, double value,
                               struct clrie_il_instr **out)
{
    struct clrie_il_instr *n;
    int r = create(g, opcode, CLRIE_IL_OPERAND_FLOAT64, &n);
    if (r < 0)
        return r;
    if (opcode == CLRIE_IL_OP_LDC_R4)
        n->u.r4 = (float)value;
    else
        n->u.r8 = value;
    *out = n;
    return 0;
}

int clrie_il_instr_create_branch(struct clrie_il_graph *g, uint16_t opcode,
                                 struct clrie_il_instr *target, struct clrie_il_instr **out)
{
    if (target && target->graph != g)
        return -EINVAL;
    struct clrie_il_instr *n;
    int r = create(g, opcode, CLRIE_IL_OPERAND_BRANCH32, &n);
    if (r < 0)
        return r;
    il_ref_set(n->u.branch, target);
    *out = n;
    return 0;
}

int clrie_il_instr_create_switch(struct clrie_il_graph *g, uint32_t count,
                                 struct clrie_il_instr *const *targets, struct clrie_il_instr **out)
{
    if (!g || !out || (count && !targets) || count > (UINT32_MAX - 5) / 4)
        return -EINVAL;
    for (uint32_t i = 0; i < count; i++)
        if (targets[i] && targets[i]->graph != g)
            return -EINVAL;
    struct clrie_il_instr *n = il_instr_alloc(g, CLRIE_IL_OP_SWITCH);
    struct il_switch *sw = n ? il_switch_alloc(g, count) : NULL;
    if (!sw)
        return -ENOMEM;
    n->u.sw = sw;
    for (uint32_t i = 0; i < count; i++)
        il_ref_set(&sw->targets[i], targets[i]);
    *out = n;
    return 0;
}

int clrie_il_instr_create_ldc_i4(struct clrie_il_graph *g, int32_t value,
                                 struct clrie_il_instr **out)
{
    if (value >= -1 && value <= 8)
        return clrie_il_instr_create(g, (uint16_t)(CLRIE_IL_OP_LDC_I4_0 + value), out);
    if (value >= INT8_MIN && value <= INT8_MAX)
        return clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I4_S, value, out);
    return clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I4, value, out);
}

/* Picks the macro form (index < 4, when there is one), the .s form (<= 255) or the long form
 * (<= 65534; 65535 is not a valid local or argument number). */
static int create_indexed(struct clrie_il_graph *g, uint32_t index, int macro0, uint16_t s_form,
                          uint16_t long_form, struct clrie_il_instr **out)
{
    if (index > 65534)
        return -ERANGE;
    if (macro0 >= 0 && index < 4)
        return clrie_il_instr_create(g, (uint16_t)(macro0 + (int)index), out);
    if (index <= 255)
        return clrie_il_instr_create_int(g, s_form, index, out);
    return clrie_il_instr_create_int(g, long_form, index, out);
}

int clrie_il_instr_create_ldloc(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out)
{
    return create_indexed(g, index, CLRIE_IL_OP_LDLOC_0, CLRIE_IL_OP_LDLOC_S, CLRIE_IL_OP_LDLOC,
                          out);
}

int clrie_il_instr_create_stloc(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out)
{
    return create_indexed(g, index, CLRIE_IL_OP_STLOC_0, CLRIE_IL_OP_STLOC_S, CLRIE_IL_OP_STLOC,
                          out);
}

int clrie_il_instr_create_ldloca(struct clrie_il_graph *g, uint32_t index,
                                 struct clrie_il_instr **out)
{
    return create_indexed(g, index, -1, CLRIE_IL_OP_LDLOCA_S, CLRIE_IL_OP_LDLOCA, out);
}

int clrie_il_instr_create_ldarg(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out)
{
    return create_indexed(g, index, CLRIE_IL_OP_LDARG_0, CLRIE_IL_OP_LDARG_S, CLRIE_IL_OP_LDARG,
                          out);
}

int clrie_il_instr_create_ldarga(struct clrie_il_graph *g, uint32_t index,
                                 struct clrie_il_instr **out)
{
    return create_indexed(g, index, -1, CLRIE_IL_OP_LDARGA_S, CLRIE_IL_OP_LDARGA, out);
}

int clrie_il_instr_create_starg(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out)
{
    return create_indexed(g, index, -1, CLRIE_IL_OP_STARG_S, CLRIE_IL_OP_STARG, out);
}
