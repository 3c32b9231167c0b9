/* libFuzzer target: decode any bytes as a method body and as a bare IL stream; whatever
 * decodes must verify without crashing, compute a max stack or a reason, and survive an
 * encode -> decode -> encode round trip unchanged. An unedited body encoded in PRESERVE mode
 * must come back as the bytes it was decoded from, up to the end of what was used, whether
 * its code is copied or written from the nodes (CLRIE_IL_ENCODE_REWRITE), and a
 * graph reused across inputs must decode each as a new graph does. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(struct clrie_il_graph *g, int returns)
{
    uint32_t max;
    struct clrie_il_diag d;
    int r = clrie_il_graph_max_stack(g, fuzz_resolver, &returns, &max, &d);
    if (r != 0 && memchr(d.message, '\0', sizeof(d.message)) == NULL)
        abort();
    clrie_il_graph_verify(g, fuzz_resolver, &returns, fuzz_ignore, NULL);
    fuzz_round_trip(g, CLRIE_IL_ENCODE_PRESERVE);
    fuzz_round_trip(g, 0);
    fuzz_round_trip(g, CLRIE_IL_ENCODE_FAT_HEADER | CLRIE_IL_ENCODE_FAT_EH);
}

/* Decoding into a graph reused from input to input (clrie_il_graph_decode_into) must give
 * what a new graph gives: the same error at the same offset, or the same PRESERVE body. */
static void same_when_reused(const uint8_t *data, size_t size, int r, struct clrie_il_graph *g,
                             const struct clrie_il_diag *d)
{
    static struct clrie_il_graph *reused;
    if (!reused && clrie_il_graph_new(&reused) != 0)
        abort();
    struct clrie_il_diag rd;
    int rr = clrie_il_graph_decode_into(reused, data, size, &rd);
    if (rr != r || (r == -EILSEQ && (rd.offset != d->offset || strcmp(rd.message, d->message))))
        abort();
    if (r != 0) {
        if (clrie_il_graph_count(reused) != 0 || clrie_il_graph_clause_count(reused) != 0)
            abort();
        return;
    }
    uint8_t *a, *b;
    size_t alen, blen;
    if (clrie_il_graph_encode(g, CLRIE_IL_ENCODE_PRESERVE, &a, &alen, NULL) != 0 ||
        clrie_il_graph_encode(reused, CLRIE_IL_ENCODE_PRESERVE, &b, &blen, NULL) != 0 ||
        alen != blen || memcmp(a, b, alen) != 0)
        abort();
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct clrie_il_graph *g = NULL;
    struct clrie_il_diag d;
    int r = clrie_il_graph_decode(data, size, &g, &d);
    same_when_reused(data, size, r, g, &d);
    if (r == 0) {
        /* Preserve mode gives back the input's code and header fields when nothing changed
         * (MoreSects follows the clauses actually present; section slack is not kept). */
        for (unsigned rewrite = 0; rewrite <= CLRIE_IL_ENCODE_REWRITE;
             rewrite += CLRIE_IL_ENCODE_REWRITE) {
            uint8_t *body;
            size_t len;
            if (clrie_il_graph_encode(g, CLRIE_IL_ENCODE_PRESERVE | rewrite, &body, &len, &d) != 0)
                abort();
            struct clrie_il_header h;
            clrie_il_graph_header(g, &h);
            size_t header = h.fat ? 12 : 1, code_end = header + h.code_size;
            if (len < code_end || code_end > size ||
                memcmp(body + header, data + header, h.code_size) != 0 ||
                (h.fat && memcmp(body + 2, data + 2, 10) != 0) || (!h.fat && body[0] != data[0]))
                abort();
            free(body);
        }
        exercise(g, size & 1);
        clrie_il_graph_free(g);
    } else if (r != -EILSEQ || d.offset > size || !memchr(d.message, '\0', sizeof(d.message))) {
        abort();
    }
    g = NULL;
    r = clrie_il_graph_decode_code(data, size, &g, &d);
    if (r == 0) {
        for (unsigned rewrite = 0; rewrite <= CLRIE_IL_ENCODE_REWRITE;
             rewrite += CLRIE_IL_ENCODE_REWRITE) {
            uint8_t *code;
            size_t len;
            if (clrie_il_graph_encode_code(g, CLRIE_IL_ENCODE_PRESERVE | rewrite, &code, &len,
                                           &d) != 0 ||
                len != size || (size && memcmp(code, data, size) != 0))
                abort();
            free(code);
        }
        exercise(g, 0);
        clrie_il_graph_free(g);
    } else if (r != -EILSEQ || d.offset > size) {
        abort();
    }
    return 0;
}
