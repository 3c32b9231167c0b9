/* clrie-il check: runs every method body of the given assemblies through what the engine
 * does to a method, and counts what holds:
 *
 *   round trip     decode, then encode with CLRIE_IL_ENCODE_PRESERVE: the same bytes, both
 *                  as copied and as written from the nodes (CLRIE_IL_ENCODE_REWRITE)
 *   verifies       the verifier finds nothing in the original body
 *   max stack      the computed depth against the header's (a tiny header implies 8)
 *   transformed    single return + fat header, encoded, decoded again: verifies
 *   wrapped        the body wrapped in try/finally + fat header, the same way: verifies
 *
 * Exit 1 when a body cannot be read or decoded, a round trip is not byte-exact or a
 * transformed or wrapped body does not verify; with --strict also when an original body does not
 * verify or declares less stack than it uses. The first failures of each kind are listed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define FIRST_FAILURES 10

enum check_kind {
    CHECK_READ,       /* the reader rejected the row or body */
    CHECK_DECODE,     /* libilgraph rejected the body */
    CHECK_ROUND_TRIP, /* preserve-mode encoding differs */
    CHECK_VERIFY,     /* the original does not verify */
    CHECK_STACK,      /* max stack could not be computed, or the header declares less */
    CHECK_TRANSFORM,  /* the transformed body fails to build, encode, decode or verify */
    CHECK_WRAP,       /* the same for the wrapped body */
    CHECK_STACK_OVER, /* the header declares more than the code needs: legal, listed */
    CHECK_KINDS
};

static const char *const kind_names[CHECK_KINDS] = {
    "unreadable body failures", "decode failures",
    "round trip failures",      "original verify failures",
    "max stack failures",       "transformed failures",
    "wrapped failures",         "max stack declared over computed (legal, not a failure)",
};

struct check_totals {
    unsigned long assemblies, bad_assemblies, methods;
    unsigned long round_trip_ok, verify_ok, transformed_ok, single_ret_changed;
    unsigned long wrapped_ok, wrap_unsupported;
    unsigned long stack_equal, stack_over, stack_under, stack_tiny_ok, stack_unknown;
    unsigned long failures[CHECK_KINDS];
    char *first[CHECK_KINDS][FIRST_FAILURES];
};

/* What is being checked, for failure lines. */
struct check_site {
    struct check_totals *t;
    const char *path;
    const struct asm_assembly *assembly;
    const struct tool_method *method;
};

/* Records a failure; offset is an IL offset, or NO_OFFSET when what says where. */
#define NO_OFFSET UINT32_MAX

static void fail(struct check_site *s, enum check_kind kind, uint32_t offset, const char *what)
{
    unsigned long n = s->t->failures[kind]++;
    if (n >= FIRST_FAILURES)
        return;
    char name[512];
    if (asm_token_name(s->assembly, s->method->token, name, sizeof(name), NULL) != 0 &&
        name[0] == '\0')
        snprintf(name, sizeof(name), "?");
    const char *base = tool_file_name(s->path);
    char where[24] = "";
    if (offset != NO_OFFSET)
        snprintf(where, sizeof(where), "IL_%04" PRIx32 ": ", offset);
    size_t len = (size_t)snprintf(NULL, 0, "%s 0x%08" PRIX32 " %s: %s%s", base, s->method->token,
                                  name, where, what);
    char *line = malloc(len + 1);
    if (line)
        snprintf(line, len + 1, "%s 0x%08" PRIX32 " %s: %s%s", base, s->method->token, name, where,
                 what);
    s->t->first[kind][n] = line;
}

/* The verifier's first problem. */
struct first_report {
    bool seen;
    uint32_t offset;
    char message[200];
};

static void keep_first(void *ctx, uint32_t offset, const char *message)
{
    struct first_report *f = ctx;
    if (f->seen)
        return;
    f->seen = true;
    f->offset = offset;
    snprintf(f->message, sizeof(f->message), "%s", message);
}

/* Verifies g as the method it is (its signature, locals local_sig, the assembly's tables). */
static bool verifies(struct clrie_il_graph *g, struct tool_resolver *res,
                     const struct check_site *s, const uint8_t *local_sig, size_t local_sig_len,
                     struct first_report *f)
{
    int r = tool_verify(g, s->assembly, s->method, res, local_sig, local_sig_len, keep_first, f);
    if (r != 0 && !f->seen) {
        f->seen = true;
        f->offset = 0;
        snprintf(f->message, sizeof(f->message), "verifier could not check: %s", strerror(-r));
    }
    return r == 0;
}

/* Whether g encodes with flags to the body it was decoded from; a failure is reported. */
static bool encodes_back(struct check_site *s, struct clrie_il_graph *g, unsigned flags)
{
    const struct asm_body *b = &s->method->body;
    uint8_t *out = NULL;
    size_t len = 0;
    struct clrie_il_diag diag = {0};
    int r = clrie_il_graph_encode(g, flags, &out, &len, &diag);
    if (r != 0) {
        fail(s, CHECK_ROUND_TRIP, diag.offset, diag.message);
        return false;
    }
    bool same = len == b->len && memcmp(out, b->start, len) == 0;
    if (!same) {
        size_t at = 0;
        while (at < len && at < b->len && out[at] == b->start[at])
            at++;
        char what[160];
        snprintf(what, sizeof(what),
                 "re-encoded body (%zu bytes) differs from the original (%zu bytes) at body "
                 "byte %zu",
                 len, b->len, at);
        fail(s, CHECK_ROUND_TRIP, NO_OFFSET, what);
    }
    free(out);
    return same;
}

static void check_round_trip(struct check_site *s, struct clrie_il_graph *g)
{
    if (encodes_back(s, g, CLRIE_IL_ENCODE_PRESERVE) &&
        encodes_back(s, g, CLRIE_IL_ENCODE_PRESERVE | CLRIE_IL_ENCODE_REWRITE))
        s->t->round_trip_ok++;
}

static void check_stack(struct check_site *s, struct clrie_il_graph *g, struct tool_resolver *res)
{
    const struct asm_body *b = &s->method->body;
    uint32_t computed;
    struct clrie_il_diag diag = {0};
    int r = clrie_il_graph_max_stack(g, tool_resolve_stack, res, &computed, &diag);
    if (r != 0) {
        s->t->stack_unknown++;
        fail(s, CHECK_STACK, diag.offset, r == -EILSEQ ? diag.message : strerror(-r));
        return;
    }
    if (!b->fat) {
        if (computed <= 8) {
            s->t->stack_tiny_ok++;
            return;
        }
    } else if (computed == b->max_stack) {
        s->t->stack_equal++;
        return;
    } else if (computed < b->max_stack) {
        s->t->stack_over++;
        char what[120];
        snprintf(what, sizeof(what), "the header declares max stack %u, the code needs %" PRIu32,
                 (unsigned)b->max_stack, computed);
        fail(s, CHECK_STACK_OVER, NO_OFFSET, what);
        return;
    }
    s->t->stack_under++;
    char what[120];
    snprintf(what, sizeof(what), "the header declares max stack %u, the code needs %" PRIu32,
             (unsigned)b->max_stack, computed);
    fail(s, CHECK_STACK, NO_OFFSET, what);
}

/* Single return + fat header, as an instrumenting plugin would ask, then encode (shortest
 * branch forms), decode the new body and verify it. */
static void check_transformed(struct check_site *s, struct clrie_il_graph *g,
                              struct tool_resolver *res, bool wrap)
{
    enum check_kind kind = wrap ? CHECK_WRAP : CHECK_TRANSFORM;
    const struct tool_method *m = s->method;
    struct clrie_il_method_context ctx = {
        .method_sig = m->signature.data,
        .method_sig_len = m->signature.len,
        .local_sig = m->local_sig.data,
        .local_sig_len = m->local_sig.len,
    };
    struct clrie_il_transform_result tr = {0};
    struct clrie_il_diag diag = {0};
    struct clrie_il_graph *again = NULL;
    uint8_t *body = NULL;
    size_t len = 0;
    int r = wrap ? clrie_il_transform_wrap(g, CLRIE_IL_EH_FINALLY, 0, &ctx, &tr, &diag)
                 : clrie_il_transform_single_ret(g, &ctx, &tr, &diag);
    if (r == -ENOTSUP && wrap) {
        s->t->wrap_unsupported++; /* jmp: a body that cannot be wrapped */
        goto out;
    }
    if (r != 0) {
        fail(s, kind, diag.offset, diag.message[0] ? diag.message : strerror(-r));
        goto out;
    }
    if (!wrap)
        s->t->single_ret_changed += tr.changed;
    r = clrie_il_transform_fat_header(g, tool_resolve_stack, res, &diag);
    if (r != 0) {
        fail(s, kind, diag.offset, diag.message[0] ? diag.message : strerror(-r));
        goto out;
    }
    if (tr.local_sig) {
        /* A writer would append the new signature as the next StandAloneSig row. */
        struct clrie_il_header h;
        clrie_il_graph_header(g, &h);
        uint32_t row = asm_table_rows(s->assembly, ASM_TABLE_STAND_ALONE_SIG) + 1;
        clrie_il_graph_set_fat_header(g, h.flags, h.max_stack,
                                      ASM_TOKEN(ASM_TABLE_STAND_ALONE_SIG, row));
    }
    struct first_report f = {0};
    const uint8_t *locals = tr.local_sig ? tr.local_sig : m->local_sig.data;
    size_t locals_len = tr.local_sig ? tr.local_sig_len : m->local_sig.len;
    if (!verifies(g, res, s, locals, locals_len, &f)) {
        char what[240];
        snprintf(what, sizeof(what), "transformed graph: %s", f.message);
        fail(s, kind, f.offset, what);
        goto out;
    }
    r = clrie_il_graph_encode(g, 0, &body, &len, &diag);
    if (r != 0) {
        fail(s, kind, diag.offset, diag.message[0] ? diag.message : strerror(-r));
        goto out;
    }
    r = clrie_il_graph_decode(body, len, &again, &diag);
    if (r != 0) {
        char what[240];
        snprintf(what, sizeof(what), "transformed body does not decode: %s (body byte %" PRIu32 ")",
                 diag.message, diag.offset);
        fail(s, kind, NO_OFFSET, what);
        goto out;
    }
    f = (struct first_report){0};
    if (!verifies(again, res, s, locals, locals_len, &f)) {
        char what[240];
        snprintf(what, sizeof(what), "transformed body: %s", f.message);
        fail(s, kind, f.offset, what);
        goto out;
    }
    if (wrap)
        s->t->wrapped_ok++;
    else
        s->t->transformed_ok++;
out:
    clrie_il_graph_free(again);
    free(body);
    free(tr.local_sig);
}

static void check_method(struct check_site *s)
{
    struct clrie_il_graph *g = NULL;
    struct clrie_il_diag diag = {0};
    s->t->methods++;
    int r = clrie_il_graph_decode(s->method->body.start, s->method->body.len, &g, &diag);
    if (r != 0) {
        char what[260];
        snprintf(what, sizeof(what), "%s (body byte %" PRIu32 ", file offset 0x%zX)",
                 r == -EILSEQ ? diag.message : strerror(-r), diag.offset,
                 s->method->body.file_offset + diag.offset);
        fail(s, CHECK_DECODE, NO_OFFSET, what);
        return;
    }
    struct tool_resolver res;
    tool_resolver_init(&res, s->assembly, s->method);
    check_round_trip(s, g);
    struct first_report f = {0};
    if (verifies(g, &res, s, s->method->local_sig.data, s->method->local_sig.len, &f))
        s->t->verify_ok++;
    else
        fail(s, CHECK_VERIFY, f.offset, f.message);
    check_stack(s, g, &res);
    check_transformed(s, g, &res, false);
    clrie_il_graph_free(g);
    g = NULL;
    if (clrie_il_graph_decode(s->method->body.start, s->method->body.len, &g, &diag) == 0)
        check_transformed(s, g, &res, true);
    clrie_il_graph_free(g);
}

static void check_assembly(struct check_totals *t, const char *path)
{
    struct asm_assembly *a = tool_open(path);
    if (!a) {
        t->bad_assemblies++;
        return;
    }
    t->assemblies++;
    uint32_t rows = asm_table_rows(a, ASM_TABLE_METHOD_DEF);
    for (uint32_t row = 1; row <= rows; row++) {
        struct tool_method m = {.token = ASM_TOKEN(ASM_TABLE_METHOD_DEF, row)};
        struct check_site s = {t, path, a, &m};
        struct asm_diag diag = {0};
        int r = tool_method_load(a, row, &m, &diag);
        if (r == -ENOENT)
            continue;
        if (r != 0) {
            char what[220];
            snprintf(what, sizeof(what), "%s (at byte offset 0x%zX)",
                     r == -EILSEQ ? diag.message : strerror(-r), diag.offset);
            t->methods++;
            fail(&s, CHECK_READ, NO_OFFSET, what);
            continue;
        }
        check_method(&s);
    }
    asm_assembly_free(a);
}

static void print_totals(const struct check_totals *t)
{
    unsigned long m = t->methods;
    printf("assemblies: %lu read, %lu unreadable\n", t->assemblies, t->bad_assemblies);
    printf("method bodies: %lu\n", m);
    printf("round trip byte-exact: %lu/%lu\n", t->round_trip_ok, m);
    printf("original verifies: %lu/%lu\n", t->verify_ok, m);
    printf("max stack: equal %lu, declared over computed %lu, declared under computed %lu, "
           "tiny within 8 %lu, not computable %lu\n",
           t->stack_equal, t->stack_over, t->stack_under, t->stack_tiny_ok, t->stack_unknown);
    printf("transformed (single return + fat header) verifies: %lu/%lu (%lu changed by single "
           "return)\n",
           t->transformed_ok, m, t->single_ret_changed);
    printf("wrapped (try/finally + fat header) verifies: %lu/%lu (%lu with jmp, not wrappable)\n",
           t->wrapped_ok, m - t->wrap_unsupported, t->wrap_unsupported);
    for (int k = 0; k < CHECK_KINDS; k++) {
        if (!t->failures[k])
            continue;
        printf("%s: %lu; first:\n", kind_names[k], t->failures[k]);
        for (int i = 0; i < FIRST_FAILURES && t->first[k][i]; i++)
            printf("  %s\n", t->first[k][i]);
    }
}

int tool_check(int argc, char **argv)
{
    bool strict = false;
    int files = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--strict") == 0)
            strict = true;
        else if (argv[i][0] == '-') {
            tool_error("check: unknown option '%s'", argv[i]);
            return TOOL_EXIT_USAGE;
        } else
            files++;
    }
    if (files == 0) {
        tool_error("check: no assembly given");
        return TOOL_EXIT_USAGE;
    }
    struct check_totals *t = calloc(1, sizeof(*t));
    if (!t) {
        tool_error("out of memory");
        return TOOL_EXIT_FAIL;
    }
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            check_assembly(t, argv[i]);
    print_totals(t);
    bool failed = t->bad_assemblies || t->failures[CHECK_READ] || t->failures[CHECK_DECODE] ||
                  t->failures[CHECK_ROUND_TRIP] || t->failures[CHECK_TRANSFORM] ||
                  t->failures[CHECK_WRAP] ||
                  (strict && (t->failures[CHECK_VERIFY] || t->failures[CHECK_STACK]));
    for (int k = 0; k < CHECK_KINDS; k++)
        for (int i = 0; i < FIRST_FAILURES; i++)
            free(t->first[k][i]);
    free(t);
    return failed ? TOOL_EXIT_FAIL : TOOL_EXIT_OK;
}
