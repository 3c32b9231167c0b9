/* Hand-made assemblies for the reader's tests and fuzz seeds; see builder.h for what is in
 * them. Everything is written little-endian by hand, following ECMA-335 II.22-25. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"

enum {
    FILE_ALIGNMENT = 0x200,
    TEXT_RVA = 0x2000,
    LFANEW = 0x80,
};

struct out {
    uint8_t *p;
    size_t len, cap;
    bool failed;
};

static uint8_t *room(struct out *o, size_t n)
{
    if (o->failed)
        return NULL;
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->len + n)
            cap *= 2;
        uint8_t *p = realloc(o->p, cap);
        if (!p) {
            o->failed = true;
            return NULL;
        }
        o->p = p;
        o->cap = cap;
    }
    uint8_t *at = o->p + o->len;
    memset(at, 0, n);
    o->len += n;
    return at;
}

static size_t put(struct out *o, const void *data, size_t n)
{
    size_t at = o->len;
    uint8_t *p = room(o, n);
    if (p && n)
        memcpy(p, data, n);
    return at;
}

static size_t u8(struct out *o, uint8_t v)
{
    return put(o, &v, 1);
}

static size_t u16(struct out *o, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    return put(o, b, 2);
}

static size_t u32(struct out *o, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return put(o, b, 4);
}

static void zeros(struct out *o, size_t n)
{
    room(o, n);
}

static void align(struct out *o, size_t a)
{
    zeros(o, (a - o->len % a) % a);
}

static void patch32(struct out *o, size_t at, uint32_t v)
{
    if (!o->failed)
        for (int i = 0; i < 4; i++)
            o->p[at + i] = (uint8_t)(v >> (8 * i));
}

/* A heap index: 2 or 4 bytes. */
static void index_cell(struct out *o, uint32_t v, bool wide)
{
    if (wide)
        u32(o, v);
    else
        u16(o, (uint16_t)v);
}

static uint32_t add_string(struct out *heap, const char *s)
{
    return (uint32_t)put(heap, s, strlen(s) + 1);
}

static uint32_t add_blob(struct out *heap, const uint8_t *data, size_t n)
{
    uint32_t at = (uint32_t)u8(heap, (uint8_t)n); /* every blob here is < 128 bytes */
    put(heap, data, n);
    return at;
}

#define BLOB(heap, ...)                                                                            \
    add_blob(heap, (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}))

/* The five bodies; rows match builder.h. Records where they are in b. */
static void write_bodies(struct out *text, struct built *b)
{
    /* clang-format off */
    /* 1: tiny: ldarg.0; call MemberRef 1; ret */
    static const uint8_t tiny[] = {0x1E, 0x02, 0x28, 0x01, 0x00, 0x00, 0x0A, 0x2A};
    b->body_rva[1] = TEXT_RVA + (uint32_t)put(text, tiny, sizeof(tiny));
    b->body_len[1] = sizeof(tiny);
    b->code_size[1] = 7;

    /* 2: fat, MoreSects | InitLocals, max stack 2, locals StandAloneSig 1; one small EH
     * section with a catch of System.Object around the add. */
    align(text, 4);
    static const uint8_t fat[] = {
        0x1B, 0x30, 0x02, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x11, /* header */
        0x02, 0x03, 0x58, 0x0A, 0xDE, 0x03, 0x26, 0xDE, 0x00, 0x06, 0x2A,       /* code */
        0x00,                                                                   /* pad */
        0x01, 0x10, 0x00, 0x00,                         /* small EH section, 16 bytes */
        0x00, 0x00, 0x00, 0x00, 0x06, 0x06, 0x00, 0x03, /* catch try 0+6 handler 6+3 */
        0x01, 0x00, 0x00, 0x01,                         /* class TypeRef 1 */
    };
    b->body_rva[2] = TEXT_RVA + (uint32_t)put(text, fat, sizeof(fat));
    b->body_len[2] = sizeof(fat);
    b->code_size[2] = 11;

    /* 3: fat, MoreSects, max stack 1; a small EH section flagged MoreSects, then a fat one. */
    align(text, 4);
    static const uint8_t chain[] = {
        0x0B, 0x30, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header */
        0x00, 0x00, 0x2A,                                                       /* nop nop ret */
        0x00,                                                                   /* pad */
        0x81, 0x10, 0x00, 0x00,                         /* small, MoreSects, 16 bytes */
        0x02, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x01, /* finally try 0+1 handler 1+1 */
        0x00, 0x00, 0x00, 0x00,
        0x41, 0x1C, 0x00, 0x00,                         /* fat, 28 bytes */
        0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, /* fault */
        0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    /* clang-format on */
    b->body_rva[3] = TEXT_RVA + (uint32_t)put(text, chain, sizeof(chain));
    b->body_len[3] = sizeof(chain);
    b->code_size[3] = 3;

    /* 4: abstract, no body. 5: tiny ret. */
    static const uint8_t ret[] = {0x06, 0x2A};
    b->body_rva[5] = TEXT_RVA + (uint32_t)put(text, ret, sizeof(ret));
    b->body_len[5] = sizeof(ret);
    b->code_size[5] = 1;
}

struct heaps {
    struct out strings, user_strings, guids, blobs;
};

/* The #~ (or #-) stream; records where its rows are relative to the stream's start. */
static void write_tables(struct out *t, struct heaps *h, const struct build_options *opt,
                         struct built *b)
{
    bool w = opt->wide_heaps;
    /* Coded index widths (II.24.2.6) that the TypeRef row count decides. */
    uint32_t type_refs = 2 + opt->extra_type_refs;
    bool wide_scope = type_refs >= (1u << 14);  /* ResolutionScope: 2 tag bits */
    bool wide_type = type_refs >= (1u << 14);   /* TypeDefOrRef: 2 tag bits */
    bool wide_parent = type_refs >= (1u << 13); /* MemberRefParent: 3 tag bits */
    enum {
        MODULE = 0x00,
        TYPE_REF = 0x01,
        TYPE_DEF = 0x02,
        FIELD = 0x04,
        METHOD_PTR = 0x05,
        METHOD_DEF = 0x06,
        MEMBER_REF = 0x0A,
        STAND_ALONE_SIG = 0x11,
        TYPE_SPEC = 0x1B,
        NESTED_CLASS = 0x29,
        METHOD_SPEC = 0x2B,
    };
    struct {
        unsigned table;
        uint32_t rows;
    } counts[] = {
        {MODULE, 1},     {TYPE_REF, type_refs}, {TYPE_DEF, 3},    {FIELD, 1},
        {METHOD_PTR, 5}, {METHOD_DEF, 5},       {MEMBER_REF, 3},  {STAND_ALONE_SIG, 2},
        {TYPE_SPEC, 1},  {NESTED_CLASS, 1},     {METHOD_SPEC, 1},
    };
    uint64_t valid = 0;
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        if (counts[i].table != METHOD_PTR || opt->method_ptr)
            valid |= (uint64_t)1 << counts[i].table;

    u32(t, 0);
    u8(t, 2);
    u8(t, 0);
    u8(t, w ? 0x07 : 0x00);
    u8(t, 1);
    u32(t, (uint32_t)valid);
    u32(t, (uint32_t)(valid >> 32));
    u32(t, 0); /* sorted */
    u32(t, 0);
    b->row_counts_at = t->len;
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        if (valid & ((uint64_t)1 << counts[i].table))
            u32(t, counts[i].rows);

    /* Module */
    u16(t, 0);
    index_cell(t, add_string(&h->strings, "test.dll"), w);
    index_cell(t, 1, w);
    index_cell(t, 0, w);
    index_cell(t, 0, w);

    /* TypeRef: ResolutionScope (AssemblyRef 1: tag 2), name, namespace */
    uint32_t ns_system = add_string(&h->strings, "System");
    index_cell(t, (1 << 2) | 2, wide_scope);
    index_cell(t, add_string(&h->strings, "Object"), w);
    index_cell(t, ns_system, w);
    index_cell(t, (1 << 2) | 2, wide_scope);
    index_cell(t, add_string(&h->strings, "List`1"), w);
    index_cell(t, add_string(&h->strings, "System.Collections.Generic"), w);
    for (uint32_t i = 0; i < opt->extra_type_refs; i++) {
        index_cell(t, (1 << 2) | 2, wide_scope);
        index_cell(t, 0, w);
        index_cell(t, ns_system, w);
    }

    /* TypeDef: flags, name, namespace, extends (TypeDefOrRef), field list, method list */
    uint32_t ns = add_string(&h->strings, "Ns");
    b->typedef_rows_at = t->len;
    size_t start = t->len;
    u32(t, 0);
    index_cell(t, add_string(&h->strings, "<Module>"), w);
    index_cell(t, 0, w);
    index_cell(t, 0, wide_type);
    u16(t, 1);
    u16(t, 1);
    b->typedef_row_size = (uint32_t)(t->len - start);
    u32(t, 0x00100001);
    index_cell(t, add_string(&h->strings, "C"), w);
    index_cell(t, ns, w);
    index_cell(t, (1 << 2) | 1, wide_type);
    u16(t, 1);
    u16(t, 1);
    u32(t, 0x00100002);
    index_cell(t, add_string(&h->strings, "Inner"), w);
    index_cell(t, 0, w);
    index_cell(t, (1 << 2) | 1, wide_type);
    u16(t, 2);
    u16(t, 5);

    /* Field */
    u16(t, 0x0001);
    index_cell(t, add_string(&h->strings, "count"), w);
    index_cell(t, BLOB(&h->blobs, 0x06, 0x08), w);

    /* MethodPtr: the identity, to exercise the indirection */
    if (opt->method_ptr)
        for (uint16_t i = 1; i <= 5; i++)
            u16(t, i);

    /* MethodDef: RVA, impl flags, flags, name, signature, param list */
    static const char *const names[] = {NULL, ".ctor", "Fat", "Chain", "Abstract", "M"};
    static const uint16_t flags[] = {0, 0x1886, 0x0096, 0x0096, 0x05C6, 0x0096};
    uint32_t sigs[BUILT_METHODS + 1] = {
        0,
        BLOB(&h->blobs, 0x20, 0x00, 0x01),
        BLOB(&h->blobs, 0x00, 0x02, 0x20, 0x05, 0x08, 0x08, 0x08), /* modopt(TypeRef 1) */
        BLOB(&h->blobs, 0x10, 0x01, 0x01, 0x01, 0x1E, 0x00),
        BLOB(&h->blobs, 0x20, 0x00, 0x01),
        BLOB(&h->blobs, 0x05, 0x00, 0x01),
    };
    b->methoddef_rows_at = t->len;
    for (unsigned m = 1; m <= BUILT_METHODS; m++) {
        start = t->len;
        u32(t, b->body_rva[m]);
        u16(t, 0);
        u16(t, flags[m]);
        index_cell(t, add_string(&h->strings, names[m]), w);
        index_cell(t, sigs[m], w);
        u16(t, 1);
        b->methoddef_row_size = (uint32_t)(t->len - start);
    }

    /* MemberRef: parent (MemberRefParent), name, signature */
    b->memberref_rows_at = t->len;
    start = t->len;
    index_cell(t, (1 << 3) | 1, wide_parent); /* TypeRef 1 */
    index_cell(t, add_string(&h->strings, ".ctor"), w);
    index_cell(t, BLOB(&h->blobs, 0x20, 0x00, 0x01), w);
    b->memberref_row_size = (uint32_t)(t->len - start);
    index_cell(t, (1 << 3) | 4, wide_parent); /* TypeSpec 1 */
    index_cell(t, add_string(&h->strings, "Add"), w);
    index_cell(t, BLOB(&h->blobs, 0x20, 0x01, 0x01, 0x13, 0x00), w);
    index_cell(t, (1 << 3) | 1, wide_parent);
    index_cell(t, add_string(&h->strings, "f"), w);
    index_cell(t, BLOB(&h->blobs, 0x06, 0x08), w);

    /* StandAloneSig: locals (int32), and a calli signature int32(int32) */
    index_cell(t, BLOB(&h->blobs, 0x07, 0x01, 0x08), w);
    index_cell(t, BLOB(&h->blobs, 0x00, 0x01, 0x08, 0x08), w);

    /* TypeSpec: GENERICINST CLASS TypeRef 2 <int32> */
    index_cell(t, BLOB(&h->blobs, 0x15, 0x12, 0x09, 0x01, 0x08), w);

    /* NestedClass: Inner (3) in C (2) */
    b->nested_rows_at = t->len;
    u16(t, 3);
    u16(t, 2);

    /* MethodSpec: MethodDef 3 <int32> */
    u16(t, (3 << 1) | 0);
    index_cell(t, BLOB(&h->blobs, 0x0A, 0x01, 0x08), w);
}

/* The metadata root and its five streams. Offsets recorded relative to the root. */
static void write_metadata(struct out *md, const struct build_options *opt, struct built *b)
{
    struct heaps h;
    memset(&h, 0, sizeof(h));
    u8(&h.strings, 0);
    u8(&h.blobs, 0);
    u8(&h.user_strings, 0);
    static const uint8_t hi[] = {0x05, 'h', 0, 'i', 0, 0};
    put(&h.user_strings, hi, sizeof(hi));
    for (uint8_t i = 1; i <= 16; i++)
        u8(&h.guids, i);
    struct out tables = {0};
    write_tables(&tables, &h, opt, b);
    align(&h.strings, 4);
    align(&h.blobs, 4);
    align(&h.user_strings, 4);
    align(&tables, 4);

    u32(md, 0x424A5342);
    u16(md, 1);
    u16(md, 1);
    u32(md, 0);
    u32(md, 12);
    put(md, "v4.0.30319\0\0", 12);
    u16(md, 0);
    u16(md, 5);
    b->stream_headers_at = md->len;
    struct {
        const char *name;
        struct out *data;
        size_t header;
    } streams[] = {
        {opt->method_ptr ? "#-" : "#~", &tables, 0},
        {"#Strings", &h.strings, 0},
        {"#US", &h.user_strings, 0},
        {"#GUID", &h.guids, 0},
        {"#Blob", &h.blobs, 0},
    };
    for (size_t i = 0; i < 5; i++) {
        streams[i].header = u32(md, 0);
        u32(md, (uint32_t)streams[i].data->len);
        put(md, streams[i].name, strlen(streams[i].name) + 1);
        align(md, 4);
    }
    for (size_t i = 0; i < 5; i++) {
        size_t at = put(md, streams[i].data->p, streams[i].data->len);
        patch32(md, streams[i].header, (uint32_t)at);
        if (i == 0) {
            b->tables_at = at;
            b->row_counts_at += at;
            b->typedef_rows_at += at;
            b->methoddef_rows_at += at;
            b->memberref_rows_at += at;
            b->nested_rows_at += at;
        } else if (i == 1) {
            b->strings_at = at;
            b->strings_size = streams[i].data->len;
        } else if (i == 4) {
            b->blobs_at = at;
            b->blobs_size = streams[i].data->len;
        }
        md->failed |= streams[i].data->failed;
        free(streams[i].data->p);
    }
}

int clrie_il__test_assembly_build(const struct build_options *options, struct built *b)
{
    static const struct build_options defaults = {0};
    const struct build_options *opt = options ? options : &defaults;
    memset(b, 0, sizeof(*b));

    /* .text: CLI header, bodies, metadata */
    struct out text = {0};
    size_t cli = u32(&text, 72);
    u16(&text, 2);
    u16(&text, 5);
    size_t metadata_dir = u32(&text, 0);
    u32(&text, 0);
    u32(&text, 1); /* ILONLY */
    zeros(&text, 72 - text.len);
    write_bodies(&text, b);
    align(&text, 4);
    struct out md = {0};
    write_metadata(&md, opt, b);
    size_t metadata = put(&text, md.p, md.len);
    text.failed |= md.failed;
    free(md.p);
    patch32(&text, metadata_dir, TEXT_RVA + (uint32_t)metadata);
    patch32(&text, metadata_dir + 4, (uint32_t)md.len);

    /* headers */
    struct out f = {0};
    u16(&f, 0x5A4D);
    zeros(&f, 0x3C - f.len);
    b->lfanew_at = u32(&f, LFANEW);
    zeros(&f, LFANEW - f.len);
    put(&f, "PE\0\0", 4);
    uint16_t optional_size = opt->pe32_plus ? 0xF0 : 0xE0;
    u16(&f, opt->pe32_plus ? 0x8664 : 0x014C);
    u16(&f, 1);
    zeros(&f, 12);
    u16(&f, optional_size);
    u16(&f, 0x2022);
    b->optional_at = u16(&f, opt->pe32_plus ? 0x20B : 0x10B);
    size_t count_at = opt->pe32_plus ? 108 : 92;
    zeros(&f, count_at - 2);
    b->directory_count_at = u32(&f, 16);
    zeros(&f, 14 * 8);
    b->cli_directory_at = u32(&f, TEXT_RVA + (uint32_t)cli);
    u32(&f, 72);
    zeros(&f, 8);
    b->sections_at = put(&f, ".text\0\0\0", 8);
    uint32_t raw_size = (uint32_t)((text.len + FILE_ALIGNMENT - 1) & ~(size_t)(FILE_ALIGNMENT - 1));
    u32(&f, (uint32_t)text.len);
    u32(&f, TEXT_RVA);
    u32(&f, raw_size);
    u32(&f, FILE_ALIGNMENT);
    zeros(&f, 12);
    u32(&f, 0x60000020);
    zeros(&f, FILE_ALIGNMENT - f.len);
    /* SizeOfImage (sections at 4 KiB alignment) and SizeOfHeaders */
    patch32(&f, b->optional_at + 56, TEXT_RVA + ((raw_size + 0xFFFu) & ~0xFFFu));
    patch32(&f, b->optional_at + 60, FILE_ALIGNMENT);
    put(&f, text.p, text.len);
    b->text_len = text.len;
    zeros(&f, raw_size - text.len);
    f.failed |= text.failed;
    free(text.p);
    if (f.failed) {
        free(f.p);
        return -ENOMEM;
    }

    b->data = f.p;
    b->len = f.len;
    b->text_rva = TEXT_RVA;
    b->text_raw_at = FILE_ALIGNMENT;
    b->text_raw_size = raw_size;
    b->cli_at = FILE_ALIGNMENT + cli;
    b->metadata_at = FILE_ALIGNMENT + metadata;
    b->stream_headers_at += b->metadata_at;
    b->tables_at += b->metadata_at;
    b->strings_at += b->metadata_at;
    b->blobs_at += b->metadata_at;
    b->row_counts_at += b->metadata_at;
    b->typedef_rows_at += b->metadata_at;
    b->methoddef_rows_at += b->metadata_at;
    b->memberref_rows_at += b->metadata_at;
    b->nested_rows_at += b->metadata_at;
    for (unsigned m = 1; m <= BUILT_METHODS; m++)
        if (b->body_rva[m])
            b->body_at[m] = b->body_rva[m] - TEXT_RVA + FILE_ALIGNMENT;
    return 0;
}
