/* A method's parameter types as text, the form points files name them in (docs/tracers.md):
 * `System.Int32,System.String[],System.Collections.Generic.List`1<!!0>,System.Int32&`.
 * The blob is read with libilgraph's signature readers; type names come from the module's
 * metadata. */
#include "tracer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <clrie/ilgraph.h>
#include <clrie/plugin.h>

struct text {
    char *out;
    size_t size, used;
    bool full;
};

static void put(struct text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->used + n + 1 > t->size) {
        t->full = true;
        return;
    }
    memcpy(t->out + t->used, s, n + 1);
    t->used += n;
}

static const char *simple_name(uint8_t element)
{
    switch (element) {
    case CLRIE_IL_ELEMENT_TYPE_VOID:
        return "System.Void";
    case CLRIE_IL_ELEMENT_TYPE_BOOLEAN:
        return "System.Boolean";
    case CLRIE_IL_ELEMENT_TYPE_CHAR:
        return "System.Char";
    case CLRIE_IL_ELEMENT_TYPE_I1:
        return "System.SByte";
    case CLRIE_IL_ELEMENT_TYPE_U1:
        return "System.Byte";
    case CLRIE_IL_ELEMENT_TYPE_I2:
        return "System.Int16";
    case CLRIE_IL_ELEMENT_TYPE_U2:
        return "System.UInt16";
    case CLRIE_IL_ELEMENT_TYPE_I4:
        return "System.Int32";
    case CLRIE_IL_ELEMENT_TYPE_U4:
        return "System.UInt32";
    case CLRIE_IL_ELEMENT_TYPE_I8:
        return "System.Int64";
    case CLRIE_IL_ELEMENT_TYPE_U8:
        return "System.UInt64";
    case CLRIE_IL_ELEMENT_TYPE_R4:
        return "System.Single";
    case CLRIE_IL_ELEMENT_TYPE_R8:
        return "System.Double";
    case CLRIE_IL_ELEMENT_TYPE_STRING:
        return "System.String";
    case CLRIE_IL_ELEMENT_TYPE_I:
        return "System.IntPtr";
    case CLRIE_IL_ELEMENT_TYPE_U:
        return "System.UIntPtr";
    case CLRIE_IL_ELEMENT_TYPE_OBJECT:
        return "System.Object";
    case CLRIE_IL_ELEMENT_TYPE_TYPEDBYREF:
        return "System.TypedReference";
    default:
        return NULL;
    }
}

/* The name of a TypeDef or TypeRef, nested types as `Outer+Inner`. */
static void type_token_name(IMetaDataImport *import, uint32_t token, struct text *t, int depth)
{
    WCHAR name[CLRIE_PLUGIN_NAME_UNITS];
    char utf8[CLRIE_PLUGIN_NAME_UNITS * 3];
    name[0] = 0;
    if ((token & 0xFF000000u) == mdtTypeDef) {
        if (FAILED(clrie_plugin_type_name(import, token, name, CLRIE_PLUGIN_NAME_UNITS))) {
            put(t, "?");
            return;
        }
    } else if ((token & 0xFF000000u) == mdtTypeRef) {
        mdToken scope = mdTokenNil;
        ULONG len = 0;
        if (FAILED(import->lpVtbl->GetTypeRefProps(import, token, &scope, name,
                                                   CLRIE_PLUGIN_NAME_UNITS, &len))) {
            put(t, "?");
            return;
        }
        if ((scope & 0xFF000000u) == mdtTypeRef && depth < 16) {
            type_token_name(import, scope, t, depth + 1);
            put(t, "+");
        }
    } else {
        put(t, "?"); /* a TypeSpec inside a signature: not produced by compilers */
        return;
    }
    clrie_plugin_bstr_to_utf8_buf(name, utf8, sizeof utf8);
    put(t, utf8);
}

/* Formats the type at p[0..len) and sets *used to its length. */
static int format_type(IMetaDataImport *import, const uint8_t *p, size_t len, struct text *t,
                       size_t *used, int depth)
{
    size_t at = 0, n = 0;
    if (depth > 32 || clrie_il_sig_skip_custom_mods(p, len, &n) != 0)
        return -EILSEQ;
    at += n;
    if (at >= len)
        return -EILSEQ;
    uint8_t element = p[at++];
    const char *simple = simple_name(element);
    uint32_t value = 0, token = 0;
    int ret = 0;
    char number[16];
    if (simple) {
        put(t, simple);
    } else {
        switch (element) {
        case CLRIE_IL_ELEMENT_TYPE_CLASS:
        case CLRIE_IL_ELEMENT_TYPE_VALUETYPE:
            if (clrie_il_sig_read_token(p + at, len - at, &token, &n) != 0)
                return -EILSEQ;
            at += n;
            type_token_name(import, token, t, 0);
            break;
        case CLRIE_IL_ELEMENT_TYPE_VAR:
        case CLRIE_IL_ELEMENT_TYPE_MVAR:
            if (clrie_il_sig_read_uint(p + at, len - at, &value, &n) != 0)
                return -EILSEQ;
            at += n;
            snprintf(number, sizeof number, "%s%u",
                     element == CLRIE_IL_ELEMENT_TYPE_VAR ? "!" : "!!", (unsigned)value);
            put(t, number);
            break;
        case CLRIE_IL_ELEMENT_TYPE_SZARRAY:
        case CLRIE_IL_ELEMENT_TYPE_BYREF:
        case CLRIE_IL_ELEMENT_TYPE_PTR:
            ret = format_type(import, p + at, len - at, t, &n, depth + 1);
            if (ret != 0)
                return ret;
            at += n;
            put(t, element == CLRIE_IL_ELEMENT_TYPE_SZARRAY ? "[]"
                   : element == CLRIE_IL_ELEMENT_TYPE_BYREF ? "&"
                                                            : "*");
            break;
        case CLRIE_IL_ELEMENT_TYPE_ARRAY: {
            ret = format_type(import, p + at, len - at, t, &n, depth + 1);
            if (ret != 0)
                return ret;
            at += n;
            /* rank, sizes, lower bounds: the text keeps the rank */
            uint32_t rank = 0, count = 0;
            if (clrie_il_sig_read_uint(p + at, len - at, &rank, &n) != 0)
                return -EILSEQ;
            at += n;
            for (int part = 0; part < 2; part++) {
                if (clrie_il_sig_read_uint(p + at, len - at, &count, &n) != 0)
                    return -EILSEQ;
                at += n;
                for (uint32_t i = 0; i < count; i++) {
                    int32_t ignored;
                    if ((part == 0 ? clrie_il_sig_read_uint(p + at, len - at, &value, &n)
                                   : clrie_il_sig_read_int(p + at, len - at, &ignored, &n)) != 0)
                        return -EILSEQ;
                    at += n;
                }
            }
            put(t, "[");
            for (uint32_t i = 1; i < rank && !t->full; i++)
                put(t, ",");
            put(t, "]");
            break;
        }
        case CLRIE_IL_ELEMENT_TYPE_GENERICINST: {
            ret = format_type(import, p + at, len - at, t, &n, depth + 1);
            if (ret != 0)
                return ret;
            at += n;
            uint32_t count = 0;
            if (clrie_il_sig_read_uint(p + at, len - at, &count, &n) != 0)
                return -EILSEQ;
            at += n;
            put(t, "<");
            for (uint32_t i = 0; i < count; i++) {
                if (i)
                    put(t, ",");
                ret = format_type(import, p + at, len - at, t, &n, depth + 1);
                if (ret != 0)
                    return ret;
                at += n;
            }
            put(t, ">");
            break;
        }
        case CLRIE_IL_ELEMENT_TYPE_FNPTR: {
            size_t type_len = 0;
            if (clrie_il_sig_type_len(p, len, &type_len) != 0)
                return -EILSEQ;
            at = type_len;
            put(t, "method*");
            break;
        }
        default:
            return -EILSEQ;
        }
    }
    *used = at;
    return 0;
}

int clrie_tracer_parameters_text(IMetaDataImport *import, const uint8_t *sig, size_t len, char *out,
                                 size_t size)
{
    struct clrie_il_method_sig parsed;
    if (size == 0 || clrie_il_sig_parse_method(sig, len, &parsed, NULL) != 0)
        return -EILSEQ;
    struct text t = {.out = out, .size = size};
    out[0] = '\0';
    size_t at = parsed.ret_offset + parsed.ret_len, n = 0;
    for (uint32_t i = 0; i < parsed.param_count; i++) {
        if (at < len && sig[at] == CLRIE_IL_ELEMENT_TYPE_SENTINEL)
            at++;
        if (i)
            put(&t, ",");
        int ret = format_type(import, sig + at, len - at, &t, &n, 0);
        if (ret != 0)
            return ret;
        at += n;
    }
    return t.full ? -ENOSPC : 0;
}

/* A TypeDef by its IsByRefLikeAttribute, a TypeRef through `typeref`; the name of a TypeRef
 * that gives no answer goes to `unknown`. */
static enum clrie_tracer_byref_like token_byref_like(IMetaDataImport *import, uint32_t token,
                                                     clrie_tracer_typeref_fn typeref, void *data,
                                                     struct text *unknown)
{
    if ((token & 0xFF000000u) == mdtTypeDef)
        return import->lpVtbl->GetCustomAttributeByName(
                   import, token, u"System.Runtime.CompilerServices.IsByRefLikeAttribute", NULL,
                   NULL) == S_OK
                   ? CLRIE_TRACER_BYREF_LIKE
                   : CLRIE_TRACER_NOT_BYREF_LIKE;
    if ((token & 0xFF000000u) != mdtTypeRef)
        return CLRIE_TRACER_NOT_BYREF_LIKE; /* a TypeSpec: an instantiation, never a ref struct */
    enum clrie_tracer_byref_like answer =
        typeref ? typeref(data, token) : CLRIE_TRACER_BYREF_LIKE_UNKNOWN;
    if (answer == CLRIE_TRACER_BYREF_LIKE_UNKNOWN && unknown->used == 0)
        type_token_name(import, token, unknown, 0);
    return answer;
}

/* Whether the type at p[0..len) (custom modifiers and one byref skipped) is a by-ref-like
 * value type, which cannot be boxed. */
static enum clrie_tracer_byref_like type_byref_like(IMetaDataImport *import, const uint8_t *p,
                                                    size_t len, clrie_tracer_typeref_fn typeref,
                                                    void *data, struct text *unknown)
{
    size_t n = 0;
    if (clrie_il_sig_skip_custom_mods(p, len, &n) != 0 || n >= len)
        return CLRIE_TRACER_NOT_BYREF_LIKE;
    p += n, len -= n;
    if (p[0] == CLRIE_IL_ELEMENT_TYPE_BYREF) {
        p++, len--;
        if (clrie_il_sig_skip_custom_mods(p, len, &n) != 0 || n >= len)
            return CLRIE_TRACER_NOT_BYREF_LIKE;
        p += n, len -= n;
    }
    if (len >= 2 && p[0] == CLRIE_IL_ELEMENT_TYPE_GENERICINST)
        p++, len--;
    uint32_t token = 0;
    if (len >= 2 && p[0] == CLRIE_IL_ELEMENT_TYPE_VALUETYPE &&
        clrie_il_sig_read_token(p + 1, len - 1, &token, &n) == 0)
        return token_byref_like(import, token, typeref, data, unknown);
    return CLRIE_TRACER_NOT_BYREF_LIKE;
}

int clrie_tracer_signature_byref_like(IMetaDataImport *import, const uint8_t *sig, size_t len,
                                      clrie_tracer_typeref_fn typeref, void *data,
                                      enum clrie_tracer_byref_like *answer, char *unknown,
                                      size_t unknown_size)
{
    struct clrie_il_method_sig parsed;
    struct text name = {.out = unknown, .size = unknown_size};
    if (unknown_size)
        unknown[0] = '\0';
    *answer = CLRIE_TRACER_NOT_BYREF_LIKE;
    if (clrie_il_sig_parse_method(sig, len, &parsed, NULL) != 0)
        return -EILSEQ;
    enum clrie_tracer_byref_like one =
        type_byref_like(import, sig + parsed.ret_offset, parsed.ret_len, typeref, data, &name);
    size_t at = parsed.ret_offset + parsed.ret_len, n = 0;
    for (uint32_t i = 0; one != CLRIE_TRACER_BYREF_LIKE; i++) {
        if (one == CLRIE_TRACER_BYREF_LIKE_UNKNOWN)
            *answer = one;
        if (i == parsed.param_count)
            return 0;
        if (at < len && sig[at] == CLRIE_IL_ELEMENT_TYPE_SENTINEL)
            at++;
        if (clrie_il_sig_type_len(sig + at, len - at, &n) != 0)
            return -EILSEQ;
        one = type_byref_like(import, sig + at, n, typeref, data, &name);
        at += n;
    }
    *answer = CLRIE_TRACER_BYREF_LIKE;
    return 0;
}

bool clrie_tracer_returns_task(IMetaDataImport *import, const uint8_t *sig, size_t len)
{
    struct clrie_il_method_sig parsed;
    size_t mods = 0;
    if (clrie_il_sig_parse_method(sig, len, &parsed, NULL) != 0 || parsed.returns_void ||
        parsed.returns_byref)
        return false;
    const uint8_t *p = sig + parsed.ret_offset;
    size_t n = parsed.ret_len;
    if (clrie_il_sig_skip_custom_mods(p, n, &mods) != 0 || mods + 2 > n)
        return false;
    p += mods;
    n -= mods;
    bool generic = p[0] == CLRIE_IL_ELEMENT_TYPE_GENERICINST;
    if (generic) {
        p++;
        n--;
    }
    if (p[0] != CLRIE_IL_ELEMENT_TYPE_CLASS && p[0] != CLRIE_IL_ELEMENT_TYPE_VALUETYPE)
        return false;
    uint32_t token = 0;
    size_t used = 0;
    if (clrie_il_sig_read_token(p + 1, n - 1, &token, &used) != 0)
        return false;
    char name[CLRIE_PLUGIN_NAME_UNITS * 3];
    struct text t = {.out = name, .size = sizeof name};
    name[0] = '\0';
    type_token_name(import, token, &t, 0);
    if (generic)
        return strcmp(name, "System.Threading.Tasks.Task`1") == 0 ||
               strcmp(name, "System.Threading.Tasks.ValueTask`1") == 0;
    return strcmp(name, "System.Threading.Tasks.Task") == 0 ||
           strcmp(name, "System.Threading.Tasks.ValueTask") == 0;
}
