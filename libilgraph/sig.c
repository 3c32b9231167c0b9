/* Signature blobs (ECMA-335 II.23.2): compressed integers and tokens, the extent of a type,
 * method signatures (for stack effects and return types) and local-variable signatures. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

enum {
    ET_VOID = 0x01,
    ET_BOOLEAN = 0x02,
    ET_R8 = 0x0D,
    ET_STRING = 0x0E,
    ET_PTR = 0x0F,
    ET_BYREF = 0x10,
    ET_VALUETYPE = 0x11,
    ET_CLASS = 0x12,
    ET_VAR = 0x13,
    ET_ARRAY = 0x14,
    ET_GENERICINST = 0x15,
    ET_TYPEDBYREF = 0x16,
    ET_I = 0x18,
    ET_U = 0x19,
    ET_FNPTR = 0x1B,
    ET_OBJECT = 0x1C,
    ET_SZARRAY = 0x1D,
    ET_MVAR = 0x1E,
    ET_CMOD_REQD = 0x1F,
    ET_CMOD_OPT = 0x20,
    ET_INTERNAL = 0x21,
    ET_SENTINEL = 0x41,
    ET_PINNED = 0x45,
};

#define CC_KIND_MASK 0x0Fu
#define CC_GENERIC 0x10u
#define CC_HASTHIS 0x20u
#define CC_EXPLICITTHIS 0x40u
#define CC_FIELD 0x6u
#define CC_LOCAL_SIG 0x7u
#define CC_PROPERTY 0x8u
#define CC_GENERICINST 0xAu
#define MAX_DEPTH 64 /* nesting bound, so hostile blobs cannot exhaust the C stack */

int clrie_il_sig_read_uint(const uint8_t *p, size_t len, uint32_t *value, size_t *used)
{
    if (!p || !value || !used || len == 0)
        return -EINVAL;
    uint32_t v;
    size_t n;
    if ((p[0] & 0x80) == 0) {
        v = p[0];
        n = 1;
    } else if ((p[0] & 0xC0) == 0x80) {
        if (len < 2)
            return -EILSEQ;
        v = (uint32_t)(p[0] & 0x3F) << 8 | p[1];
        n = 2;
    } else if ((p[0] & 0xE0) == 0xC0) {
        if (len < 4)
            return -EILSEQ;
        v = (uint32_t)(p[0] & 0x1F) << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        n = 4;
    } else {
        return -EILSEQ;
    }
    *value = v;
    *used = n;
    return 0;
}

int clrie_il_sig_write_uint(uint32_t value, uint8_t out[4])
{
    if (value <= 0x7F) {
        out[0] = (uint8_t)value;
        return 1;
    }
    if (value <= 0x3FFF) {
        out[0] = (uint8_t)(0x80 | value >> 8);
        out[1] = (uint8_t)value;
        return 2;
    }
    if (value <= 0x1FFFFFFF) {
        out[0] = (uint8_t)(0xC0 | value >> 24);
        out[1] = (uint8_t)(value >> 16);
        out[2] = (uint8_t)(value >> 8);
        out[3] = (uint8_t)value;
        return 4;
    }
    return -ERANGE;
}

static const uint8_t coded_tables[3] = {0x02, 0x01, 0x1B}; /* TypeDef, TypeRef, TypeSpec */

int clrie_il_sig_read_token(const uint8_t *p, size_t len, uint32_t *token, size_t *used)
{
    uint32_t v;
    size_t n;
    int r = clrie_il_sig_read_uint(p, len, &v, &n);
    if (r < 0)
        return r;
    if ((v & 3) == 3)
        return -EILSEQ;
    *token = (uint32_t)coded_tables[v & 3] << 24 | v >> 2;
    *used = n;
    return 0;
}

int clrie_il_sig_write_token(uint32_t token, uint8_t out[4])
{
    uint32_t table = token >> 24, rid = token & 0xFFFFFF;
    for (uint32_t tag = 0; tag < 3; tag++) {
        if (coded_tables[tag] == table) {
            if (rid > 0x1FFFFFFF >> 2)
                return -ERANGE;
            return clrie_il_sig_write_uint(rid << 2 | tag, out);
        }
    }
    return -EINVAL;
}

/* A cursor over a blob; every read checks the end. */
struct cursor {
    const uint8_t *p;
    size_t len, pos;
};

static int next_uint(struct cursor *c, uint32_t *v)
{
    size_t used;
    if (c->pos >= c->len)
        return -EILSEQ;
    int r = clrie_il_sig_read_uint(c->p + c->pos, c->len - c->pos, v, &used);
    if (r < 0)
        return -EILSEQ;
    c->pos += used;
    return 0;
}

static int next_byte(struct cursor *c, uint8_t *b)
{
    if (c->pos >= c->len)
        return -EILSEQ;
    *b = c->p[c->pos++];
    return 0;
}

static int skip_type(struct cursor *c, int depth);

static int skip_method(struct cursor *c, int depth, struct clrie_il_method_sig *out);

static int skip_type(struct cursor *c, int depth)
{
    if (depth > MAX_DEPTH)
        return -EILSEQ;
    uint8_t et;
    uint32_t v, n;
    int r = next_byte(c, &et);
    if (r < 0)
        return r;
    switch (et) {
    case ET_VOID:
    case ET_TYPEDBYREF:
    case ET_I:
    case ET_U:
    case ET_OBJECT:
    case ET_STRING:
        return 0;
    case ET_CMOD_REQD:
    case ET_CMOD_OPT:
        if ((r = next_uint(c, &v)) < 0)
            return r;
        return skip_type(c, depth + 1);
    case ET_PTR:
    case ET_BYREF:
    case ET_SZARRAY:
    case ET_PINNED:
        return skip_type(c, depth + 1);
    case ET_VALUETYPE:
    case ET_CLASS:
    case ET_VAR:
    case ET_MVAR:
        return next_uint(c, &v);
    case ET_GENERICINST:
        if ((r = next_byte(c, &et)) < 0)
            return r;
        if (et != ET_CLASS && et != ET_VALUETYPE)
            return -EILSEQ;
        if ((r = next_uint(c, &v)) < 0 || (r = next_uint(c, &n)) < 0)
            return -EILSEQ;
        for (uint32_t i = 0; i < n; i++)
            if ((r = skip_type(c, depth + 1)) < 0)
                return r;
        return 0;
    case ET_ARRAY:
        if ((r = skip_type(c, depth + 1)) < 0)
            return r;
        if ((r = next_uint(c, &v)) < 0 || (r = next_uint(c, &n)) < 0) /* rank, sizes */
            return -EILSEQ;
        for (uint32_t i = 0; i < n; i++)
            if ((r = next_uint(c, &v)) < 0)
                return r;
        if ((r = next_uint(c, &n)) < 0) /* low bounds */
            return r;
        for (uint32_t i = 0; i < n; i++)
            if ((r = next_uint(c, &v)) < 0)
                return r;
        return 0;
    case ET_FNPTR: {
        struct clrie_il_method_sig m;
        return skip_method(c, depth + 1, &m);
    }
    case ET_INTERNAL: /* a runtime-internal type handle: a pointer follows */
        if (c->len - c->pos < sizeof(void *))
            return -EILSEQ;
        c->pos += sizeof(void *);
        return 0;
    default:
        if (et >= ET_BOOLEAN && et <= ET_R8)
            return 0;
        return -EILSEQ;
    }
}

/* Skips custom modifiers; returns the byte after them (without consuming it). */
static int peek_after_mods(struct cursor *c, uint8_t *b)
{
    for (;;) {
        if (c->pos >= c->len)
            return -EILSEQ;
        uint8_t et = c->p[c->pos];
        if (et != ET_CMOD_REQD && et != ET_CMOD_OPT) {
            *b = et;
            return 0;
        }
        c->pos++;
        uint32_t v;
        if (next_uint(c, &v) < 0)
            return -EILSEQ;
    }
}

static int skip_method(struct cursor *c, int depth, struct clrie_il_method_sig *out)
{
    uint8_t cc;
    int r = next_byte(c, &cc);
    if (r < 0)
        return r;
    uint32_t kind = cc & CC_KIND_MASK;
    if (kind == CC_FIELD || kind == CC_LOCAL_SIG || kind == CC_PROPERTY || kind >= CC_GENERICINST)
        return -EILSEQ;
    memset(out, 0, sizeof(*out));
    out->calling_convention = cc;
    out->has_this = cc & CC_HASTHIS;
    out->explicit_this = cc & CC_EXPLICITTHIS;
    if ((cc & CC_GENERIC) && next_uint(c, &out->generic_count) < 0)
        return -EILSEQ;
    if (next_uint(c, &out->param_count) < 0)
        return -EILSEQ;
    out->ret_offset = c->pos;
    struct cursor probe = *c;
    uint8_t first;
    if (peek_after_mods(&probe, &first) < 0)
        return -EILSEQ;
    out->returns_void = first == ET_VOID;
    out->returns_byref = first == ET_BYREF;
    if ((r = skip_type(c, depth + 1)) < 0)
        return r;
    out->ret_len = c->pos - out->ret_offset;
    for (uint32_t i = 0; i < out->param_count; i++) {
        if (c->pos < c->len && c->p[c->pos] == ET_SENTINEL)
            c->pos++;
        if ((r = skip_type(c, depth + 1)) < 0)
            return r;
    }
    return 0;
}

int clrie_il_sig_type_len(const uint8_t *p, size_t len, size_t *type_len)
{
    if (!p || !type_len)
        return -EINVAL;
    struct cursor c = {p, len, 0};
    int r = skip_type(&c, 0);
    if (r < 0)
        return r;
    *type_len = c.pos;
    return 0;
}

int clrie_il_sig_parse_method(const uint8_t *sig, size_t len, struct clrie_il_method_sig *out)
{
    if (!sig || !out)
        return -EINVAL;
    struct cursor c = {sig, len, 0};
    struct clrie_il_method_sig m;
    int r = skip_method(&c, 0, &m);
    if (r < 0)
        return r;
    *out = m;
    return 0;
}

int clrie_il_sig_stack_effect(const struct clrie_il_method_sig *sig, uint16_t opcode,
                              struct clrie_il_stack_effect *out)
{
    if (!sig || !out)
        return -EINVAL;
    uint32_t this_arg = sig->has_this && !sig->explicit_this;
    uint32_t ret = !sig->returns_void;
    switch (opcode) {
    case CLRIE_IL_OP_CALL:
    case CLRIE_IL_OP_CALLVIRT:
        *out = (struct clrie_il_stack_effect){sig->param_count + this_arg, ret};
        return 0;
    case CLRIE_IL_OP_CALLI:
        *out = (struct clrie_il_stack_effect){sig->param_count + this_arg + 1, ret};
        return 0;
    case CLRIE_IL_OP_NEWOBJ:
        *out = (struct clrie_il_stack_effect){sig->param_count, 1};
        return 0;
    case CLRIE_IL_OP_RET:
        *out = (struct clrie_il_stack_effect){ret, 0};
        return 0;
    default:
        return -EINVAL;
    }
}

/* Reads a LOCAL_SIG's count and where its types start. */
static int local_header(const uint8_t *sig, size_t len, uint32_t *count, size_t *types_at)
{
    if (len == 0) {
        *count = 0;
        *types_at = 0;
        return 0;
    }
    if (!sig || sig[0] != CC_LOCAL_SIG)
        return -EILSEQ;
    size_t used;
    if (len < 2 || clrie_il_sig_read_uint(sig + 1, len - 1, count, &used) < 0)
        return -EILSEQ;
    *types_at = 1 + used;
    return 0;
}

int clrie_il_sig_local_count(const uint8_t *sig, size_t len, uint32_t *count)
{
    if (!count)
        return -EINVAL;
    size_t at;
    uint32_t n;
    int r = local_header(sig, len, &n, &at);
    if (r < 0)
        return r;
    *count = n;
    return 0;
}

int clrie_il_sig_local_append(const uint8_t *sig, size_t len, const uint8_t *type, size_t type_len,
                              uint8_t **out, size_t *out_len, uint32_t *index)
{
    if (!type || !out || !out_len || !index)
        return -EINVAL;
    size_t check;
    if (clrie_il_sig_type_len(type, type_len, &check) < 0 || check != type_len)
        return -EILSEQ;
    uint32_t count;
    size_t at;
    int r = local_header(sig, len, &count, &at);
    if (r < 0)
        return r;
    if (count >= 65534)
        return -ERANGE;
    uint8_t enc[4];
    int n = clrie_il_sig_write_uint(count + 1, enc);
    size_t rest = len - at;
    size_t total = 1 + (size_t)n + rest + type_len;
    uint8_t *buf = malloc(total);
    if (!buf)
        return -ENOMEM;
    buf[0] = CC_LOCAL_SIG;
    memcpy(buf + 1, enc, (size_t)n);
    if (rest)
        memcpy(buf + 1 + n, sig + at, rest);
    memcpy(buf + 1 + n + rest, type, type_len);
    *out = buf;
    *out_len = total;
    *index = count;
    return 0;
}
