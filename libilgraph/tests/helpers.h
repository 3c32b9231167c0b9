/* Helpers shared by the libilgraph tests: hand-built method bodies in, exact bytes out. */
#ifndef CLRIE_ILGRAPH_TEST_HELPERS_H
#define CLRIE_ILGRAPH_TEST_HELPERS_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/ilgraph.h"

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

static inline struct clrie_il_graph *decode_body(const uint8_t *b, size_t n)
{
    struct clrie_il_graph *g = NULL;
    struct clrie_il_diag d = {0};
    int r = clrie_il_graph_decode(b, n, &g, &d);
    if (r != 0)
        fail_msg("decode failed (%d) at %u: %s", r, d.offset, d.message);
    return g;
}

static inline struct clrie_il_graph *decode_code(const uint8_t *b, size_t n)
{
    struct clrie_il_graph *g = NULL;
    struct clrie_il_diag d = {0};
    int r = clrie_il_graph_decode_code(b, n, &g, &d);
    if (r != 0)
        fail_msg("decode_code failed (%d) at %u: %s", r, d.offset, d.message);
    return g;
}

typedef int (*decode_fn)(const uint8_t *bytes, size_t len, struct clrie_il_graph **out,
                         struct clrie_il_diag *diag);

/* Decoding with `decode` must fail with -EILSEQ at `offset`, with a message containing
 * `words`, and hand back no graph. */
static inline void expect_decode_failure(decode_fn decode, const uint8_t *b, size_t n,
                                         uint32_t offset, const char *words)
{
    /* An exact-size heap copy, so a read past the end shows under ASan. */
    uint8_t *copy = malloc(n ? n : 1);
    assert_non_null(copy);
    if (n)
        memcpy(copy, b, n);
    struct clrie_il_graph *g = NULL;
    struct clrie_il_diag d = {0};
    int r = decode(copy, n, &g, &d);
    free(copy);
    if (r != -EILSEQ)
        fail_msg("expected -EILSEQ (%s), got %d (%s)", words, r, r == 0 ? "decoded" : d.message);
    assert_null(g);
    if (d.offset != offset || !strstr(d.message, words))
        fail_msg("expected '%s' at %u, got '%s' at %u", words, offset, d.message, d.offset);
}

/* A whole method body (header, code, EH sections) that must not decode. */
static inline void expect_bad_body(const uint8_t *b, size_t n, uint32_t offset, const char *words)
{
    expect_decode_failure(clrie_il_graph_decode, b, n, offset, words);
}

/* Bare IL code that must not decode. */
static inline void expect_bad_code(const uint8_t *b, size_t n, uint32_t offset, const char *words)
{
    expect_decode_failure(clrie_il_graph_decode_code, b, n, offset, words);
}

static inline void print_hex(const char *what, const uint8_t *b, size_t n)
{
    fprintf(stderr, "%s (%zu):", what, n);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %02X", b[i]);
    fprintf(stderr, "\n");
}

static inline void assert_bytes(const uint8_t *got, size_t got_len, const uint8_t *want,
                                size_t want_len)
{
    if (got_len != want_len || memcmp(got, want, want_len) != 0) {
        print_hex("got ", got, got_len);
        print_hex("want", want, want_len);
        fail_msg("%s", "bytes differ");
    }
}

/* Encodes the whole body and compares it with the expected bytes. */
static inline void expect_body(struct clrie_il_graph *g, unsigned flags, const uint8_t *want,
                               size_t want_len)
{
    uint8_t *out = NULL;
    size_t len = 0;
    struct clrie_il_diag d = {0};
    int r = clrie_il_graph_encode(g, flags, &out, &len, &d);
    if (r != 0)
        fail_msg("encode failed (%d) at %u: %s", r, d.offset, d.message);
    assert_bytes(out, len, want, want_len);
    free(out);
}

static inline void expect_code(struct clrie_il_graph *g, unsigned flags, const uint8_t *want,
                               size_t want_len)
{
    uint8_t *out = NULL;
    size_t len = 0;
    struct clrie_il_diag d = {0};
    int r = clrie_il_graph_encode_code(g, flags, &out, &len, &d);
    if (r != 0)
        fail_msg("encode failed (%d) at %u: %s", r, d.offset, d.message);
    assert_bytes(out, len, want, want_len);
    free(out);
}

/* A stack resolver for tests: a call token's low byte is (pop << 4 | push); ret pops
 * *(int *)ctx items (1 for a method returning a value, 0 for void). */
static inline int test_resolver(void *ctx, uint16_t opcode, uint32_t token,
                                struct clrie_il_stack_effect *out)
{
    if (opcode == CLRIE_IL_OP_RET) {
        out->pop = ctx ? (uint32_t) * (int *)ctx : 0;
        out->push = 0;
        return 0;
    }
    if ((token >> 24) == 0xEE)
        return -ENOENT;
    out->pop = (token >> 4) & 0xF;
    out->push = token & 0xF;
    return 0;
}

/* Collects verifier reports. */
struct reports {
    int count;
    uint32_t offsets[32];
    char text[32][200];
};

static inline void collect_report(void *ctx, uint32_t offset, const char *message)
{
    struct reports *r = ctx;
    if (r->count < 32) {
        r->offsets[r->count] = offset;
        snprintf(r->text[r->count], sizeof(r->text[0]), "%s", message);
    }
    r->count++;
}

/* True if some report at offset contains words. */
static inline int has_report(const struct reports *r, uint32_t offset, const char *words)
{
    for (int i = 0; i < r->count && i < 32; i++)
        if (r->offsets[i] == offset && strstr(r->text[i], words))
            return 1;
    return 0;
}

static inline void dump_reports(const struct reports *r)
{
    for (int i = 0; i < r->count && i < 32; i++)
        fprintf(stderr, "  report %u: %s\n", r->offsets[i], r->text[i]);
}

static inline struct clrie_il_instr *nth(struct clrie_il_graph *g, size_t i)
{
    struct clrie_il_instr *n = clrie_il_graph_first(g);
    while (n && i--)
        n = clrie_il_instr_next(n);
    assert_non_null(n);
    return n;
}

static inline struct clrie_il_instr *make(struct clrie_il_graph *g, uint16_t op)
{
    struct clrie_il_instr *n = NULL;
    assert_int_equal(clrie_il_instr_create(g, op, &n), 0);
    return n;
}

static inline struct clrie_il_instr *make_branch(struct clrie_il_graph *g, uint16_t op,
                                                 struct clrie_il_instr *target)
{
    struct clrie_il_instr *n = NULL;
    assert_int_equal(clrie_il_instr_create_branch(g, op, target, &n), 0);
    return n;
}

#endif
