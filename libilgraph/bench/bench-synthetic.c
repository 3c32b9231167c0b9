/* Synthetic benchmark: methods of 1k to 100k instructions, about a third of them branches,
 * go through what the engine does to each instrumented method: decode the body, insert a
 * nop before every branch target (retargeting the branches to it), encode. Prints time per
 * method, ns per instruction (flat = linear growth) and MB/s of IL decoded + encoded, with a
 * new graph per pass and with one graph reused (clrie_il_graph_decode_into).
 * Target (docs/benchmarks.md): 5,000 instructions with 1,700 branches edited + encoded in < 1 ms.
 *
 *     build/<dir>/libilgraph/bench/bench-synthetic [repetitions [instructions]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clrie/ilgraph.h"
#include "clrie/os/process.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(rng_state >> 33);
}

static double now(void)
{
    return (double)clrie_os_monotonic_ns() * 1e-9;
}

static void check(int r, const char *what)
{
    if (r != 0) {
        fprintf(stderr, "bench-synthetic: %s failed (%d)\n", what, r);
        exit(1);
    }
}

/* Builds a body of n instructions: every third a branch (br, brtrue, leave-free) to a
 * nearby instruction mostly, anywhere sometimes, the rest ldc/ldloc/nop/call. */
static uint8_t *make_body(size_t n, size_t *len, size_t *branches)
{
    struct clrie_il_graph *g;
    check(clrie_il_graph_new(&g), "graph_new");
    struct clrie_il_instr **nodes = malloc(n * sizeof(*nodes));
    for (size_t i = 0; i < n; i++) {
        struct clrie_il_instr *node = NULL;
        if (i == n - 1)
            check(clrie_il_instr_create(g, CLRIE_IL_OP_RET, &node), "ret");
        else if (i % 3 == 2)
            check(clrie_il_instr_create_branch(g, rng() & 1 ? CLRIE_IL_OP_BR : CLRIE_IL_OP_BRTRUE,
                                               NULL, &node),
                  "branch");
        else if (i % 3 == 1)
            check(clrie_il_instr_create_ldc_i4(g, (int32_t)(rng() % 1000), &node), "ldc");
        else
            check(clrie_il_instr_create_int(g, CLRIE_IL_OP_CALL, 0x0A000000 | (rng() & 0xFFFF),
                                            &node),
                  "call");
        check(clrie_il_graph_insert_after(g, clrie_il_graph_last(g), node), "insert");
        nodes[i] = node;
    }
    *branches = 0;
    for (size_t i = 2; i < n - 1; i += 3) {
        size_t t;
        if (rng() % 10 == 0) {
            t = rng() % n;
        } else {
            long d = (long)(rng() % 81) - 40;
            long at = (long)i + d;
            t = at < 0 ? 0 : (size_t)at >= n ? n - 1 : (size_t)at;
        }
        check(clrie_il_instr_set_branch_target(nodes[i], nodes[t]), "target");
        ++*branches;
    }
    uint8_t *body;
    check(clrie_il_graph_encode(g, CLRIE_IL_ENCODE_FAT_HEADER, &body, len, NULL), "encode");
    free(nodes);
    clrie_il_graph_free(g);
    return body;
}

/* One engine pass over a method; returns the encoded size. kept: a graph to decode into
 * (reused from pass to pass, as an engine keeping one per thread would), or NULL for a
 * new graph each time. */
static size_t instrument(const uint8_t *body, size_t len, struct clrie_il_graph *kept)
{
    struct clrie_il_graph *g = kept;
    if (kept)
        check(clrie_il_graph_decode_into(g, body, len, NULL), "decode_into");
    else
        check(clrie_il_graph_decode(body, len, &g, NULL), "decode");
    for (struct clrie_il_instr *n = clrie_il_graph_first(g); n; n = clrie_il_instr_next(n)) {
        struct clrie_il_instr *t = clrie_il_instr_branch_target(n);
        if (t && !clrie_il_instr_is_new(t) &&
            !(clrie_il_instr_prev(t) && clrie_il_instr_is_new(clrie_il_instr_prev(t)))) {
            struct clrie_il_instr *nop;
            check(clrie_il_instr_create(g, CLRIE_IL_OP_NOP, &nop), "nop");
            check(clrie_il_graph_insert_before_retarget(g, t, nop), "insert");
        }
    }
    uint8_t *out;
    size_t out_len;
    check(clrie_il_graph_encode(g, 0, &out, &out_len, NULL), "encode");
    free(out);
    if (!kept)
        clrie_il_graph_free(g);
    return out_len;
}

/* Best time of reps passes over body. */
static double best_of(int reps, const uint8_t *body, size_t len, struct clrie_il_graph *kept)
{
    instrument(body, len, kept); /* warm up */
    double best = 1e9;
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        instrument(body, len, kept);
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 0;
    size_t sizes[] = {1000, 5000, 10000, 100000};
    size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
    if (argc > 2) {
        sizes[0] = (size_t)atol(argv[2]);
        nsizes = 1;
    }
    printf("%9s %9s %9s | %12s %10s %7s %9s | %12s %10s %7s\n", "", "", "", "new graph", "", "", "",
           "reused graph", "", "");
    printf("%9s %9s %9s | %12s %10s %7s %9s | %12s %10s %7s\n", "instrs", "branches", "IL bytes",
           "us/method", "ns/instr", "x first", "MB/s", "us/method", "ns/instr", "x first");
    double first_fresh = 0, first_reused = 0; /* ns per instruction of the first size */
    double budget_ratio = -1;                 /* the 5,000-instruction method against 1 ms */
    for (size_t s = 0; s < nsizes; s++) {
        size_t n = sizes[s], len, branches;
        uint8_t *body = make_body(n, &len, &branches);
        int r = reps > 0 ? reps : (int)(2000000 / n) + 3;
        size_t out_len = instrument(body, len, NULL);
        double fresh = best_of(r, body, len, NULL);
        struct clrie_il_graph *kept;
        check(clrie_il_graph_new(&kept), "graph_new");
        double reused = best_of(r, body, len, kept);
        clrie_il_graph_free(kept);
        double ns_fresh = fresh * 1e9 / (double)n, ns_reused = reused * 1e9 / (double)n;
        if (s == 0) {
            first_fresh = ns_fresh;
            first_reused = ns_reused;
        }
        if (n == 5000)
            budget_ratio = fresh / 1e-3;
        printf("%9zu %9zu %9zu | %12.1f %10.1f %7.2f %9.1f | %12.1f %10.1f %7.2f\n", n, branches,
               len, fresh * 1e6, ns_fresh, ns_fresh / first_fresh,
               (double)(len + out_len) / fresh / 1e6, reused * 1e6, ns_reused,
               ns_reused / first_reused);
        free(body);
    }
    printf("(best of repeated runs; decode + insert a nop before every branch target + encode; "
           "x first: ns per instruction against the first size's, 1.00 when cost grows "
           "linearly; MB/s counts IL in + out)\n");
    if (budget_ratio >= 0)
        printf("5,000 instructions with a new graph: %.2f of the 1 ms budget\n", budget_ratio);
    return 0;
}
