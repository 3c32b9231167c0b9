/* libFuzzer target for the signature readers of types.h. The first byte picks the reader, the
 * rest is the blob:
 *   0  ITypeCreator::FromSignature (then GetName, and every related type of a composite)
 *   1  ISignatureParser::ParseMethodSignature, and the method-info helpers
 *   2  ISignatureParser::ParseLocalVarSignature, then a locals collection over the same blob
 *      (AddLocal, GetEnum, commit)
 * Whatever is accepted must re-emit exactly the bytes it was read from; nothing may read past
 * the input (ASan) or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "types.h"
#include "utf16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ITypeCreator *creator;

/* The bytes t appends to a builder must be expected[0..len). */
static void check_emits(IType *t, const uint8_t *expected, size_t len)
{
    ISignatureBuilder *b;
    if (clrie_pm_types_signature_builder_new(&b) != S_OK)
        abort();
    if (t->lpVtbl->AddToSignature(t, b) != S_OK)
        abort();
    DWORD size = 0;
    const BYTE *p = NULL;
    b->lpVtbl->GetSize(b, &size);
    b->lpVtbl->GetCorSignaturePtr(b, &p);
    if (size != len || (len && memcmp(p, expected, len) != 0))
        abort();
    b->lpVtbl->Release(b);
}

static void walk(IType *t, int depth)
{
    BSTR name = NULL;
    if (SUCCEEDED(t->lpVtbl->GetName(t, &name)))
        clrie_pm_bstr_free(name);
    ICompositeType *c;
    if (depth < 100 && t->lpVtbl->QueryInterface(t, &IID_ICompositeType, (void **)&c) == S_OK) {
        IType *related;
        if (c->lpVtbl->GetRelatedType(c, &related) != S_OK)
            abort();
        walk(related, depth + 1);
        related->lpVtbl->Release(related);
        c->lpVtbl->Release(c);
    }
}

static void drain(IEnumTypes *e)
{
    IType *t;
    ULONG fetched;
    while (e->lpVtbl->Next(e, 1, &t, &fetched) == S_OK) {
        walk(t, 0);
        t->lpVtbl->Release(t);
    }
    e->lpVtbl->Release(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (!creator && clrie_pm_types_creator_new(NULL, NULL, &creator) != S_OK)
        abort();
    const uint8_t *blob = data + 1;
    size_t len = size - 1;
    ISignatureParser *parser;
    if (creator->lpVtbl->QueryInterface(creator, &IID_ISignatureParser, (void **)&parser) != S_OK)
        abort();
    IType *t = NULL;
    IEnumTypes *e = NULL;
    ULONG read = 0;
    switch (data[0] % 3) {
    case 0: {
        DWORD used = 0;
        if (creator->lpVtbl->FromSignature(creator, (DWORD)len, blob, &t, &used) == S_OK) {
            if (used == 0 || used > len)
                abort();
            check_emits(t, blob, used);
            walk(t, 0);
            t->lpVtbl->Release(t);
        }
        break;
    }
    case 1: {
        if (parser->lpVtbl->ParseMethodSignature(parser, blob, (ULONG)len, NULL, &t, &e, NULL,
                                                 &read) == S_OK) {
            if (read > len)
                abort();
            walk(t, 0);
            t->lpVtbl->Release(t);
            drain(e);
            IEnumMethodParameters *params;
            if (clrie_pm_types_method_parameters(creator, blob, len, &params) != S_OK)
                abort();
            params->lpVtbl->Release(params);
        }
        break;
    }
    default: {
        if (parser->lpVtbl->ParseLocalVarSignature(parser, blob, (ULONG)len, NULL, &e, &read) ==
            S_OK) {
            if (read > len)
                abort();
            drain(e);
        }
        struct types_locals *locals;
        if (clrie_pm_types_locals_new(NULL, creator, NULL, blob, len, 0x11000001, false, &locals) ==
            S_OK) {
            ILocalVariableCollection2 *c = clrie_pm_types_locals_collection(locals);
            IType *i4;
            DWORD index;
            IEnumMethodLocals *all;
            if (creator->lpVtbl->FromCorElement(creator, ELEMENT_TYPE_I4, &i4) != S_OK)
                abort();
            c->lpVtbl->AddLocal(c, i4, &index);
            i4->lpVtbl->Release(i4);
            if (c->lpVtbl->GetEnum(c, &all) == S_OK)
                all->lpVtbl->Release(all);
            mdSignature token;
            clrie_pm_types_locals_commit(locals, &token);
            clrie_pm_types_locals_free(locals);
        }
        break;
    }
    }
    parser->lpVtbl->Release(parser);
    return 0;
}
