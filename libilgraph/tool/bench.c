/* clrie-il bench: how fast libilgraph handles real method bodies.
 *
 * Every IL body of the given assemblies is read first (the reader's cost is not measured).
 * Throughput comes from whole passes over all bodies, timed once per pass with both the
 * thread's CPU time (what one core delivers, whatever else the machine runs) and wall
 * time: the bare opcode walk (the bound every step is compared with: it finds each
 * instruction and builds nothing); decode; decode + encode with CLRIE_IL_ENCODE_PRESERVE;
 * decode + encode with the shortest branches (a layout), both of which copy an unedited graph's
 * code; the same two after an edit that changes nothing (what the engine encodes: a graph laid
 * out and written from its nodes); decode + single return + fat header
 * + encode (the shape change an instrumenting plugin asks for first); decode + verify with
 * the metadata `clrie-il check` gives the verifier (what the engine does to every method a
 * plugin changed). Each but the walk includes freeing the output, and runs twice: with a
 * new graph per method (freed after it) and with one graph reused for every method
 * (clrie_il_graph_decode_into). Per-method times (median and worst) come from separate
 * passes that time each step of each method. Fastest of --repeat passes. `--only STEP`
 * runs one step alone (a graph per method, --repeat passes, no per-method timing), for a
 * profiler, and prints a hash of what its first pass encoded or reported. Nothing is
 * asserted: the figures are for docs/benchmarks.md, against its targets (MB/s of IL code):
 * 150, and issue 18's 300, for decode + encode, and 250 for decode + encode with the
 * shortest branches. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/process.h"
#include "tool.h"

struct bench_method {
    const struct asm_assembly *assembly;
    const char *path;
    struct tool_method m;
    double decode, encode, transform, verify; /* best seconds over the passes */
};

struct bench_pass {
    double decode, encode, transform, verify;
};

static double now(void)
{
    return (double)clrie_os_monotonic_ns() * 1e-9;
}

static double cpu_now(void)
{
    return (double)clrie_os_thread_cpu_ns() * 1e-9;
}

/* The thread's CPU time over a pass that took wall seconds, from the two clocks' readings. A
 * CPU clock that counts in scheduler ticks (Windows: about 15.6 ms, Wine: 10 ms) shows nothing
 * for a shorter pass, or a whole tick: the thread cannot have used more than the wall time, so
 * that stands for it then. A clock in nanoseconds (Linux) is left as it reads. */
static double cpu_time(double cpu, double wall)
{
    return cpu <= 0 || cpu > wall ? wall : cpu;
}

enum bench_phase {
    PHASE_WALK,            /* the bound: a walk of the opcodes, nothing built */
    PHASE_DECODE,          /* decode */
    PHASE_DECODE_ENCODE,   /* decode + encode with PRESERVE (no layout on an unedited graph) */
    PHASE_SHORTEST,        /* decode + encode with the shortest branches (a layout) */
    PHASE_EDITED,          /* decode + an edit + encode with PRESERVE: written from the nodes */
    PHASE_EDITED_SHORTEST, /* decode + an edit + encode with the shortest branches */
    PHASE_TRANSFORM,       /* decode + single return + fat header + encode */
    PHASE_VERIFY,          /* decode + verify with the assembly's metadata */
    PHASES
};

static const char *const phase_names[PHASES] = {
    "walk", "decode", "preserve", "shortest", "edited", "edited-shortest", "transform", "verify"};

/* Bytes after each opcode (0x00..0xFF, then 0xFE xx at 0x100 | xx): its operand's length + 1;
 * 0 for no opcode; SWITCH_STEP for switch, whose length follows from its count. */
#define SWITCH_STEP 0xFF
static uint8_t walk_step[0x200];

static void walk_init(void)
{
    memset(walk_step, 0, sizeof(walk_step));
    for (uint16_t ord = 0; ord < CLRIE_IL_OP_COUNT; ord++) {
        const struct clrie_il_opcode_info *info = clrie_il_opcode_info(ord);
        if (!info || !info->name)
            continue;
        walk_step[ord] = ord == CLRIE_IL_OP_SWITCH ? SWITCH_STEP : (uint8_t)(info->operand_len + 1);
    }
}

/* The bare opcode walk of one method's code: what any reader of IL must do at least (find
 * each instruction's start), with nothing stored. Returns the instructions seen. */
static size_t walk_code(const uint8_t *code, size_t len)
{
    size_t pos = 0, count = 0;
    while (pos < len) {
        uint16_t op = code[pos++];
        if (op == 0xFE && pos < len)
            op = (uint16_t)(0x100 | code[pos++]);
        uint8_t step = walk_step[op];
        if (step == SWITCH_STEP) {
            uint32_t n = 0;
            if (len - pos >= 4)
                memcpy(&n, code + pos, 4);
            step = 5;
            pos += 4 * (size_t)n < len - pos ? 4 * (size_t)n : len - pos;
        } else if (step == 0) {
            break;
        }
        pos += step - 1u;
        count++;
    }
    return count;
}

/* FNV-1a over every byte a pass encodes, or every verdict and problem the verifier reports,
 * printed by --only: two builds that encode (or verify) alike print the same figure. */
static uint64_t output_hash = 0xcbf29ce484222325u;

static void hash_bytes(const void *p, size_t len)
{
    const uint8_t *b = p;
    uint64_t h = output_hash;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3u;
    output_hash = h;
}

/* A clrie_il_report_fn: hashes where and what. */
static void hash_report(void *ctx, uint32_t offset, const char *message)
{
    (void)ctx;
    hash_bytes(&offset, sizeof(offset));
    hash_bytes(message, strlen(message) + 1);
}

/* Verifies g as method m; a verdict of problems found (-EILSEQ) is an outcome, not a
 * failure. With hash, the verdict and every problem go into the output hash. */
static int verify_method(struct clrie_il_graph *g, const struct bench_method *b, bool hash)
{
    const struct tool_method *m = &b->m;
    struct tool_resolver res;
    tool_resolver_init(&res, b->assembly, m);
    int r = tool_verify(g, b->assembly, m, &res, m->local_sig.data, m->local_sig.len,
                        hash ? hash_report : NULL, NULL);
    if (hash)
        hash_bytes(&r, sizeof(r));
    return r == -EILSEQ ? 0 : r;
}

/* The smallest edit, which leaves the code as it was: a nop inserted first and removed. An edited
 * graph is what the engine encodes (it gives the runtime only bodies a plugin changed): laid
 * out and written from its nodes, where an unedited one is copied from the decoded bytes. */
static int edit_nothing(struct clrie_il_graph *g)
{
    struct clrie_il_instr *nop = NULL;
    int r = clrie_il_instr_create(g, CLRIE_IL_OP_NOP, &nop);
    if (r == 0)
        r = clrie_il_graph_insert_before(g, clrie_il_graph_first(g), nop);
    if (r == 0)
        r = clrie_il_graph_remove(g, nop);
    return r;
}

/* One untimed-per-method pass of a phase over every body; 0 or a negative errno. reuse:
 * one graph for the whole pass (clrie_il_graph_decode_into), as an engine keeping a graph
 * per thread would; otherwise a graph per method. */

static int run_phase(struct bench_method *ms, size_t n, enum bench_phase phase, bool reuse,
                     bool hash)
{
    if (phase == PHASE_WALK) {
        size_t instructions = 0;
        for (size_t i = 0; i < n; i++)
            instructions += walk_code(ms[i].m.body.code, ms[i].m.body.code_size);
        /* The count is used, so the walk cannot be optimised away. */
        return instructions == 0 && n > 0 ? -EILSEQ : 0;
    }
    struct clrie_il_graph *kept = NULL;
    if (reuse) {
        int r = clrie_il_graph_new(&kept);
        if (r != 0)
            return r;
    }
    for (size_t i = 0; i < n; i++) {
        const struct tool_method *m = &ms[i].m;
        struct clrie_il_graph *g = kept;
        uint8_t *out = NULL;
        size_t len;
        struct clrie_il_transform_result tr = {0};
        int r = reuse ? clrie_il_graph_decode_into(g, m->body.start, m->body.len, NULL)
                      : clrie_il_graph_decode(m->body.start, m->body.len, &g, NULL);
        if (r == 0 && phase == PHASE_DECODE_ENCODE)
            r = clrie_il_graph_encode(g, CLRIE_IL_ENCODE_PRESERVE, &out, &len, NULL);
        if (r == 0 && phase == PHASE_SHORTEST)
            r = clrie_il_graph_encode(g, 0, &out, &len, NULL);
        if (r == 0 && (phase == PHASE_EDITED || phase == PHASE_EDITED_SHORTEST))
            r = edit_nothing(g);
        if (r == 0 && phase == PHASE_EDITED)
            r = clrie_il_graph_encode(g, CLRIE_IL_ENCODE_PRESERVE, &out, &len, NULL);
        if (r == 0 && phase == PHASE_EDITED_SHORTEST)
            r = clrie_il_graph_encode(g, 0, &out, &len, NULL);
        if (r == 0 && phase == PHASE_TRANSFORM) {
            struct tool_resolver res;
            tool_resolver_init(&res, ms[i].assembly, m);
            struct clrie_il_method_context ctx = {
                .method_sig = m->signature.data,
                .method_sig_len = m->signature.len,
                .local_sig = m->local_sig.data,
                .local_sig_len = m->local_sig.len,
            };
            r = clrie_il_transform_single_ret(g, &ctx, &tr, NULL);
            if (r == 0)
                r = clrie_il_transform_fat_header(g, tool_resolve_stack, &res, NULL);
            if (r == 0)
                r = clrie_il_graph_encode(g, 0, &out, &len, NULL);
        }
        if (r == 0 && phase == PHASE_VERIFY)
            r = verify_method(g, &ms[i], hash);
        if (!reuse)
            clrie_il_graph_free(g);
        if (hash && out)
            hash_bytes(out, len);
        free(out);
        free(tr.local_sig);
        if (r != 0) {
            clrie_il_graph_free(kept);
            return r;
        }
    }
    clrie_il_graph_free(kept);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One method, one pass: 0, or -1 after printing why it could not be measured. */
static int run_method(struct bench_method *b, struct bench_pass *pass, bool first)
{
    const struct asm_body *body = &b->m.body;
    struct clrie_il_graph *g = NULL;
    uint8_t *out = NULL;
    size_t len;
    struct clrie_il_diag diag = {0};
    struct clrie_il_transform_result tr = {0};
    struct tool_resolver res;
    tool_resolver_init(&res, b->assembly, &b->m);
    struct clrie_il_method_context ctx = {
        .method_sig = b->m.signature.data,
        .method_sig_len = b->m.signature.len,
        .local_sig = b->m.local_sig.data,
        .local_sig_len = b->m.local_sig.len,
    };

    double t0 = now();
    int r = clrie_il_graph_decode(body->start, body->len, &g, &diag);
    double t1 = now();
    if (r == 0)
        r = clrie_il_graph_encode(g, CLRIE_IL_ENCODE_PRESERVE, &out, &len, &diag);
    double t2 = now();
    clrie_il_graph_free(g);
    free(out);
    g = NULL;
    out = NULL;
    if (r != 0)
        goto fail;

    r = clrie_il_graph_decode(body->start, body->len, &g, &diag);
    if (r != 0)
        goto fail;
    double t3 = now();
    r = clrie_il_transform_single_ret(g, &ctx, &tr, &diag);
    if (r == 0)
        r = clrie_il_transform_fat_header(g, tool_resolve_stack, &res, &diag);
    if (r == 0)
        r = clrie_il_graph_encode(g, 0, &out, &len, &diag);
    double t4 = now();
    clrie_il_graph_free(g);
    free(out);
    free(tr.local_sig);
    g = NULL;
    if (r != 0)
        goto fail;

    r = clrie_il_graph_decode(body->start, body->len, &g, &diag);
    if (r != 0)
        goto fail;
    double t5 = now();
    r = verify_method(g, b, false);
    double t6 = now();
    clrie_il_graph_free(g);
    if (r != 0)
        goto fail;

    double d = t1 - t0, e = t2 - t1, x = t4 - t3, v = t6 - t5;
    pass->decode += d;
    pass->encode += e;
    pass->transform += x;
    pass->verify += v;
    if (first || d < b->decode)
        b->decode = d;
    if (first || e < b->encode)
        b->encode = e;
    if (first || x < b->transform)
        b->transform = x;
    if (first || v < b->verify)
        b->verify = v;
    return 0;
fail:
    tool_error("bench: %s: method 0x%08" PRIX32 " cannot be measured: %s (offset %" PRIu32 ")",
               b->path, b->m.token, r == -EILSEQ ? diag.message : strerror(-r), diag.offset);
    return -1;
}

/* A method's best time for the steps from `first` to `last` (fields of struct bench_method,
 * from decode), summed. */
static double method_time(const struct bench_method *b, size_t first, size_t last)
{
    const double *times[] = {&b->decode, &b->encode, &b->transform, &b->verify};
    double t = 0;
    for (size_t f = first; f <= last; f++)
        t += *times[f];
    return t;
}

/* Median and worst of one per-method time, with the worst method's name. */
static void print_spread(const char *what, struct bench_method *ms, size_t n, size_t first,
                         size_t last)
{
    double *v = malloc(n * sizeof(*v));
    if (!v)
        return;
    size_t worst = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = method_time(&ms[i], first, last);
        if (v[i] > method_time(&ms[worst], first, last))
            worst = i;
    }
    qsort(v, n, sizeof(*v), cmp_double);
    char name[256];
    if (asm_token_name(ms[worst].assembly, ms[worst].m.token, name, sizeof(name), NULL) != 0 &&
        name[0] == '\0')
        snprintf(name, sizeof(name), "?");
    printf("  %-22s median %8.2f us   worst %9.1f us (%s 0x%08" PRIX32 " %s, %" PRIu32
           " bytes of code)\n",
           what, v[n / 2] * 1e6, v[n - 1] * 1e6, tool_file_name(ms[worst].path), ms[worst].m.token,
           name, ms[worst].m.body.code_size);
    free(v);
}

static int load_methods(struct asm_assembly *a, const char *path, struct bench_method **ms,
                        size_t *n, size_t *cap)
{
    uint32_t rows = asm_table_rows(a, ASM_TABLE_METHOD_DEF);
    for (uint32_t row = 1; row <= rows; row++) {
        struct tool_method m;
        struct asm_diag diag = {0};
        int r = tool_method_load(a, row, &m, &diag);
        if (r == -ENOENT)
            continue;
        if (r != 0) {
            tool_error("bench: method 0x%08" PRIX32 ": %s (at byte offset 0x%zX)",
                       ASM_TOKEN(ASM_TABLE_METHOD_DEF, row),
                       r == -EILSEQ ? diag.message : strerror(-r), diag.offset);
            return -1;
        }
        if (*n == *cap) {
            size_t c = *cap ? *cap * 2 : 1024;
            struct bench_method *grown = realloc(*ms, c * sizeof(**ms));
            if (!grown) {
                tool_error("out of memory");
                return -1;
            }
            *ms = grown;
            *cap = c;
        }
        (*ms)[(*n)++] = (struct bench_method){.assembly = a, .path = path, .m = m};
    }
    return 0;
}

int tool_bench(int argc, char **argv)
{
    int repeat = 5, files = 0, only = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            i++;
            for (int ph = 0; ph < PHASES; ph++)
                if (strcmp(argv[i], phase_names[ph]) == 0)
                    only = ph;
            if (only < 0) {
                tool_error("bench: --only takes walk, decode, preserve, shortest, edited, "
                           "edited-shortest, transform or verify");
                return TOOL_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 1000) {
                tool_error("bench: --repeat takes a count from 1 to 1000");
                return TOOL_EXIT_USAGE;
            }
            repeat = (int)v;
        } else if (argv[i][0] == '-') {
            tool_error("bench: unknown option '%s'", argv[i]);
            return TOOL_EXIT_USAGE;
        } else
            files++;
    }
    if (files == 0) {
        tool_error("bench: no assembly given");
        return TOOL_EXIT_USAGE;
    }

    int status = TOOL_EXIT_OK;
    struct asm_assembly **assemblies = calloc((size_t)files, sizeof(*assemblies));
    struct bench_method *ms = NULL;
    size_t n = 0, cap = 0, opened = 0;
    if (!assemblies) {
        tool_error("out of memory");
        return TOOL_EXIT_FAIL;
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            i += strcmp(argv[i], "--repeat") == 0 || strcmp(argv[i], "--only") == 0;
            continue;
        }
        struct asm_assembly *a = tool_open(argv[i]);
        if (!a || load_methods(a, argv[i], &ms, &n, &cap) != 0) {
            asm_assembly_free(a);
            status = TOOL_EXIT_FAIL;
            goto out;
        }
        assemblies[opened++] = a;
    }
    if (n == 0) {
        tool_error("bench: no method bodies");
        status = TOOL_EXIT_FAIL;
        goto out;
    }

    double body_bytes = 0, code_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        body_bytes += (double)ms[i].m.body.len;
        code_bytes += (double)ms[i].m.body.code_size;
    }
    walk_init();
    if (only >= 0) {
        /* One step, one graph per method, --repeat passes and nothing else: what a profiler
         * (callgrind) should see. */
        for (int p = 0; p < repeat; p++) {
            int r = run_phase(ms, n, (enum bench_phase)only, false, p == 0);
            if (r != 0) {
                tool_error("bench: %s", strerror(-r));
                status = TOOL_EXIT_FAIL;
                goto out;
            }
        }
        printf("%zu method bodies, %.2f MB of IL code: %s, %d passes; what it %s hashes to "
               "%016" PRIx64 "\n",
               n, code_bytes / 1e6, phase_names[only], repeat,
               only == PHASE_VERIFY ? "reported" : "encoded", output_hash);
        goto out;
    }
    /* Per-method passes first: they also find any body that cannot be measured. */
    for (int p = 0; p < repeat; p++) {
        struct bench_pass pass = {0};
        for (size_t i = 0; i < n; i++) {
            if (run_method(&ms[i], &pass, p == 0) != 0) {
                status = TOOL_EXIT_FAIL;
                goto out;
            }
        }
    }
    /* Row 2k: phase k with a graph per method; row 2k + 1: with one graph reused. */
    double cpu[2 * PHASES], wall[2 * PHASES];
    for (int ph = 0; ph < 2 * PHASES; ph++) {
        if (ph == 1) {
            cpu[1] = cpu[0];
            wall[1] = wall[0];
            continue;
        }
        for (int p = 0; p < repeat; p++) {
            double w0 = now(), c0 = cpu_now();
            int r = run_phase(ms, n, (enum bench_phase)(ph / 2), ph % 2 == 1, false);
            double c = cpu_now() - c0, w = now() - w0;
            c = cpu_time(c, w);
            if (r != 0) {
                tool_error("bench: %s", strerror(-r));
                status = TOOL_EXIT_FAIL;
                goto out;
            }
            if (p == 0 || c < cpu[ph])
                cpu[ph] = c;
            if (p == 0 || w < wall[ph])
                wall[ph] = w;
        }
    }

    printf("%zu method bodies in %zu assemblies: %.2f MB of bodies (header, code, EH), %.2f MB "
           "of IL code; one thread, fastest of %d passes\n",
           n, opened, body_bytes / 1e6, code_bytes / 1e6, repeat);
    printf("throughput (CPU time of the thread; wall time in brackets):\n");
    const char *names[2 * PHASES] = {
        "opcode walk (the bound)",
        "",
        "decode",
        "  reusing one graph",
        "decode + encode (preserve)",
        "  reusing one graph",
        "decode + encode (shortest branches)",
        "  reusing one graph",
        "decode + edit + encode (preserve)",
        "  reusing one graph",
        "decode + edit + encode (shortest)",
        "  reusing one graph",
        "decode + single-ret + fat + encode",
        "  reusing one graph",
        "decode + verify",
        "  reusing one graph",
    };
    printf("  %-35s %10s %13s %15s %10s\n", "", "methods/s", "MB/s of code", "MB/s of bodies",
           "walk/step");
    for (int k = 0; k < 2 * PHASES; k++) {
        if (k == 1)
            continue; /* the walk builds no graph to reuse */
        printf("  %-35s %10.0f %6.1f [%5.1f] %7.1f [%5.1f] %9.2fx\n", names[k], (double)n / cpu[k],
               code_bytes / cpu[k] / 1e6, code_bytes / wall[k] / 1e6, body_bytes / cpu[k] / 1e6,
               body_bytes / wall[k] / 1e6, cpu[k] / cpu[0]);
    }
    /* The targets, in MB/s of IL code: decode + encode (the project's 150, issue 18's 300)
     * and the shortest-branch layout (issue 18's 250). */
    printf("against the targets (new graph per method / one graph reused):\n");
    printf("  decode + encode (preserve) / 300 MB/s: %.2fx / %.2fx   (/ 150 MB/s: %.2fx / %.2fx)\n",
           code_bytes / cpu[4] / 1e6 / 300, code_bytes / cpu[5] / 1e6 / 300,
           code_bytes / cpu[4] / 1e6 / 150, code_bytes / cpu[5] / 1e6 / 150);
    printf("  decode + encode (shortest) / 250 MB/s: %.2fx / %.2fx\n",
           code_bytes / cpu[6] / 1e6 / 250, code_bytes / cpu[7] / 1e6 / 250);
    /* An edited graph (what the engine encodes) is laid out and written from its nodes. */
    printf("  edited, decode + edit + encode (preserve) / 300 MB/s: %.2fx / %.2fx\n",
           code_bytes / cpu[8] / 1e6 / 300, code_bytes / cpu[9] / 1e6 / 300);
    printf("  edited, decode + edit + encode (shortest) / 250 MB/s: %.2fx / %.2fx\n",
           code_bytes / cpu[10] / 1e6 / 250, code_bytes / cpu[11] / 1e6 / 250);
    /* What an edited graph's targets leave to the edit and the encoder once decoding has
     * taken its share: the budget per instruction against what they take now. */
    size_t instructions = 0;
    for (size_t i = 0; i < n; i++)
        instructions += walk_code(ms[i].m.body.code, ms[i].m.body.code_size);
    const double target_mbs[2] = {300, 250};
    const int edited_phase[2] = {8, 10};
    for (int t = 0; t < 2; t++) {
        double budget = code_bytes / (target_mbs[t] * 1e6);
        double ns = 1e9 / (double)(instructions ? instructions : 1);
        printf("    at %.0f MB/s: decode takes %.0f %% of the budget; edit + encode may take "
               "%.1f ns an instruction, take %.1f (%zu instructions)\n",
               target_mbs[t], 100 * cpu[2] / budget, (budget - cpu[2]) * ns,
               (cpu[edited_phase[t]] - cpu[2]) * ns, instructions);
    }
    printf("per method (wall time, best of %d passes each):\n", repeat);
    print_spread("decode", ms, n, 0, 0);
    print_spread("encode (preserve)", ms, n, 1, 1);
    print_spread("decode + encode", ms, n, 0, 1);
    print_spread("single-ret+fat+encode", ms, n, 2, 2);
    print_spread("verify", ms, n, 3, 3);
out:
    free(ms);
    for (size_t i = 0; i < opened; i++)
        asm_assembly_free(assemblies[i]);
    free(assemblies);
    return status;
}
