/* libFuzzer target: decode, apply random edits, encode, decode again and check invariants.
 * Input: [1 byte: length L of the body][L bytes: a method body][edit script]. Each script
 * step is 3 bytes: an operation and two selectors (nodes or clauses, taken modulo counts). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct clrie_il_instr *pick(struct clrie_il_graph *g, uint8_t sel)
{
    size_t count = clrie_il_graph_count(g);
    if (count == 0)
        return NULL;
    size_t k = sel % count;
    struct clrie_il_instr *n = clrie_il_graph_first(g);
    while (k--)
        n = clrie_il_instr_next(n);
    return n;
}

static void must(int r)
{
    if (r != 0)
        abort();
}

static void step(struct clrie_il_graph *g, uint8_t op, uint8_t a, uint8_t b)
{
    struct clrie_il_instr *x = pick(g, a), *y = pick(g, b), *n = NULL;
    size_t before = clrie_il_graph_count(g);
    switch (op % 12) {
    case 0:
        if (!x)
            return;
        must(clrie_il_instr_create(g, CLRIE_IL_OP_NOP, &n));
        must(clrie_il_graph_insert_before(g, x, n));
        break;
    case 1:
        if (!x)
            return;
        must(clrie_il_instr_create_branch(g, b & 1 ? CLRIE_IL_OP_BR : CLRIE_IL_OP_BRTRUE_S, y, &n));
        must(clrie_il_graph_insert_before_retarget(g, x, n));
        break;
    case 2:
        must(clrie_il_instr_create_ldc_i4(g, (int32_t)(int8_t)b * 1000, &n));
        must(clrie_il_graph_insert_after(g, x, n));
        break;
    case 3:
        if (!x)
            return;
        must(clrie_il_instr_create(g, CLRIE_IL_OP_POP, &n));
        must(clrie_il_graph_insert_after_retarget(g, x, n));
        break;
    case 4:
        if (!x)
            return;
        must(clrie_il_instr_create_ldloc(g, (uint32_t)b * 256, &n)); /* up to 65280 */
        must(clrie_il_graph_replace(g, x, n));
        if (!clrie_il_instr_is_removed(x))
            abort();
        break;
    case 5:
        if (!x)
            return;
        if (clrie_il_graph_remove(g, x) != (before > 1 ? 0 : -EINVAL))
            abort();
        break;
    case 6:
        if (x && clrie_il_instr_branch_target(x))
            must(clrie_il_instr_set_branch_target(x, y));
        if (x && clrie_il_instr_switch_count(x) && (b & 0x80))
            must(clrie_il_instr_remove_switch_target(x, b % clrie_il_instr_switch_count(x)));
        else if (x && clrie_il_instr_switch_count(x))
            must(clrie_il_instr_set_switch_target(x, b % clrie_il_instr_switch_count(x), y));
        return;
    case 7: {
        if (!x || !y)
            return;
        struct clrie_il_instr *h = pick(g, (uint8_t)(a + b));
        struct clrie_il_clause_info c = {b & 3 ? (b & 3) * 2 - 2 : 0, x, x, h, h, NULL, 0x01000001};
        if (c.flags == 0x4 && (b & 4)) {
            c.flags = CLRIE_IL_EH_FILTER;
            c.filter_first = y;
        }
        if (op & 0x80)
            must(clrie_il_graph_append_clause(g, &c, NULL));
        else
            must(clrie_il_graph_add_clause(g, &c, NULL));
        return;
    }
    case 8: {
        struct clrie_il_clause *c = clrie_il_graph_clause(g, a % 4);
        if (c)
            must(clrie_il_graph_remove_clause(g, c));
        return;
    }
    case 9: {
        struct clrie_il_instr *targets[3] = {x, y, pick(g, (uint8_t)(a ^ b))};
        if (!x)
            return;
        must(clrie_il_instr_create_switch(g, b % 4, targets, &n));
        must(clrie_il_graph_insert_before(g, x, n));
        break;
    }
    case 10:
        if (a == 0xFF)
            clrie_il_graph_remove_all(g);
        else if (a >= 0xF0)
            clrie_il_graph_expand_branches(g);
        else if (x && clrie_il_instr_branch_target(x))
            must(clrie_il_instr_expand_branch(x));
        return;
    default: {
        static const uint8_t frag[] = {0x16, 0x2D, 0x01, 0x00, 0x17, 0x26};
        struct clrie_il_instr **nodes;
        size_t count;
        must(clrie_il_graph_decode_fragment(g, frag, sizeof(frag), &nodes, &count, NULL));
        struct clrie_il_instr *at = x;
        for (size_t i = 0; i < count; i++) {
            must(clrie_il_graph_insert_after(g, at, nodes[i]));
            at = nodes[i];
        }
        free(nodes);
        break;
    }
    }
    if (n && clrie_il_instr_is_new(n) == 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t body_len = data[0];
    if (body_len > size - 1)
        body_len = size - 1;
    const uint8_t *body = data + 1, *script = body + body_len;
    size_t script_len = size - 1 - body_len;
    struct clrie_il_graph *g = NULL;
    if (clrie_il_graph_decode(body, body_len, &g, NULL) != 0 &&
        clrie_il_graph_decode_code(body, body_len, &g, NULL) != 0)
        return 0;
    size_t originals = clrie_il_graph_count(g);
    for (size_t i = 0; i + 3 <= script_len && i < 3 * 64; i += 3)
        step(g, script[i], script[i + 1], script[i + 2]);

    /* The original view is untouched by edits. */
    size_t seen = 0;
    for (struct clrie_il_instr *n = clrie_il_graph_original_first(g); n;
         n = clrie_il_instr_original_next(n)) {
        if (clrie_il_instr_is_new(n) ||
            clrie_il_graph_at_original_offset(g, clrie_il_instr_original_offset(n)) != n)
            abort();
        seen++;
    }
    if (seen != originals)
        abort();

    int returns = (int)(size & 1);
    clrie_il_graph_verify(g, fuzz_resolver, &returns, fuzz_ignore, NULL);
    unsigned flags = script_len ? script[script_len - 1] & 7 : 0;
    if (clrie_il_graph_layout(g, flags, NULL) == 0) {
        /* Current lookups agree with the layout, and the IL map only moves forward. */
        for (struct clrie_il_instr *n = clrie_il_graph_first(g); n; n = clrie_il_instr_next(n))
            if (clrie_il_graph_at_offset(g, clrie_il_instr_offset(n)) != n)
                abort();
        struct clrie_il_map_entry *map;
        size_t count;
        must(clrie_il_graph_il_map(g, &map, &count));
        for (size_t i = 1; i < count; i++)
            if (map[i].new_offset < map[i - 1].new_offset)
                abort();
        free(map);
    }
    fuzz_round_trip(g, flags);
    clrie_il_graph_free(g);
    return 0;
}
