/* types.h on real inputs: every signature of every managed DLL of the installed .NET shared
 * framework. Each MethodDef signature parses whole through ISignatureParser and its return and
 * parameter types re-emit it byte for byte; each StandAloneSig (locals, or a calli signature)
 * and each TypeSpec does the same, and a locals collection over each LOCAL_SIG hands the blob
 * back unchanged. The assemblies are read with the clrie-il tool's reader.
 *
 * The framework is found from CLRIE_DOTNET or `dotnet` on PATH; without one the test exits 77
 * (skipped). With CLRIE_TEST_RUNTIME=<major> it reads that version's runtime pack from the NuGet
 * package folder instead (test_dotnet_each_dll). Prints what it checked on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly.h"
#include "clrie/ilgraph.h"
#include "types.h"

#include "support.h"

struct counts {
    size_t assemblies, methods, locals, callis, typespecs, refused, failures;
};

static void failed(struct counts *c, const char *path, const char *what, uint32_t token, HRESULT hr)
{
    if (c->failures++ < 20)
        fprintf(stderr, "%s: %s 0x%08x: 0x%08x\n", path, what, token, (unsigned)hr);
}

/* Appends what t emits to b. */
static HRESULT emit_into(IType *t, ISignatureBuilder *b)
{
    HRESULT hr = t->lpVtbl->AddToSignature(t, b);
    t->lpVtbl->Release(t);
    return hr;
}

static bool builder_equals(ISignatureBuilder *b, const uint8_t *bytes, size_t len)
{
    DWORD size = 0;
    const BYTE *p = NULL;
    b->lpVtbl->GetSize(b, &size);
    b->lpVtbl->GetCorSignaturePtr(b, &p);
    return size == len && (len == 0 || memcmp(p, bytes, len) == 0);
}

/* A method signature: parsed whole, and header + return type + parameters give it back. */
static HRESULT check_method(ISignatureParser *parser, struct asm_blob sig)
{
    struct clrie_il_method_sig m;
    if (clrie_il_sig_parse_method(sig.data, sig.len, &m, NULL) < 0)
        return S_FALSE; /* libilgraph refuses it too: not ours to judge */
    IType *ret;
    IEnumTypes *params;
    ULONG read;
    HRESULT hr = parser->lpVtbl->ParseMethodSignature(parser, sig.data, (ULONG)sig.len, NULL, &ret,
                                                      &params, NULL, &read);
    if (FAILED(hr))
        return hr;
    ISignatureBuilder *b;
    clrie_pm_types_signature_builder_new(&b);
    b->lpVtbl->AddData(b, sig.data, (DWORD)m.ret_offset);
    hr = emit_into(ret, b);
    IType *t;
    ULONG fetched;
    while (SUCCEEDED(hr) && params->lpVtbl->Next(params, 1, &t, &fetched) == S_OK)
        hr = emit_into(t, b);
    if (SUCCEEDED(hr) && (read != sig.len || !builder_equals(b, sig.data, sig.len)))
        hr = E_FAIL;
    b->lpVtbl->Release(b);
    params->lpVtbl->Release(params);
    return hr;
}

/* A LOCAL_SIG: parsed whole, its types give it back, and so does a locals collection. */
static HRESULT check_locals(ITypeCreator *creator, ISignatureParser *parser, struct asm_blob sig)
{
    IEnumTypes *types;
    ULONG read;
    HRESULT hr = parser->lpVtbl->ParseLocalVarSignature(parser, sig.data, (ULONG)sig.len, NULL,
                                                        &types, &read);
    if (FAILED(hr))
        return hr;
    size_t header;
    uint32_t count;
    clrie_il_sig_read_uint(sig.data + 1, sig.len - 1, &count, &header);
    ISignatureBuilder *b;
    clrie_pm_types_signature_builder_new(&b);
    b->lpVtbl->AddData(b, sig.data, (DWORD)(1 + header));
    IType *t;
    ULONG fetched;
    while (SUCCEEDED(hr) && types->lpVtbl->Next(types, 1, &t, &fetched) == S_OK)
        hr = emit_into(t, b);
    if (SUCCEEDED(hr) && (read != sig.len || !builder_equals(b, sig.data, sig.len)))
        hr = E_FAIL;
    b->lpVtbl->Release(b);
    types->lpVtbl->Release(types);
    if (FAILED(hr))
        return hr;

    struct types_locals *locals;
    if (FAILED(hr = clrie_pm_types_locals_new(NULL, creator, NULL, sig.data, sig.len, 0x11000001,
                                              false, &locals)))
        return hr;
    ILocalVariableCollection2 *c = clrie_pm_types_locals_collection(locals);
    IEnumMethodLocals *all;
    DWORD n = 0, listed = 0;
    if (SUCCEEDED(hr = c->lpVtbl->GetCorSignature(c, &b))) {
        if (!builder_equals(b, sig.data, sig.len))
            hr = E_FAIL;
        b->lpVtbl->Release(b);
    }
    if (SUCCEEDED(hr) && SUCCEEDED(hr = c->lpVtbl->GetCount(c, &n)) &&
        SUCCEEDED(hr = c->lpVtbl->GetEnum(c, &all))) {
        all->lpVtbl->GetCount(all, &listed);
        all->lpVtbl->Release(all);
        if (n != count || listed != count)
            hr = E_FAIL;
    }
    clrie_pm_types_locals_free(locals);
    return hr;
}

static HRESULT check_typespec(ITypeCreator *creator, struct asm_blob sig)
{
    IType *t;
    DWORD used;
    HRESULT hr = creator->lpVtbl->FromSignature(creator, (DWORD)sig.len, sig.data, &t, &used);
    if (FAILED(hr))
        return hr;
    ISignatureBuilder *b;
    clrie_pm_types_signature_builder_new(&b);
    hr = emit_into(t, b);
    if (SUCCEEDED(hr) && (used != sig.len || !builder_equals(b, sig.data, sig.len)))
        hr = E_FAIL;
    b->lpVtbl->Release(b);
    return hr;
}

static void check_assembly(const char *path, struct counts *c)
{
    struct asm_assembly *a;
    struct asm_diag diag;
    if (asm_assembly_new_from_file(path, &a, &diag) != 0)
        return; /* a native library beside the managed ones */
    c->assemblies++;
    ITypeCreator *creator;
    ISignatureParser *parser;
    clrie_pm_types_creator_new(NULL, NULL, &creator);
    creator->lpVtbl->QueryInterface(creator, &IID_ISignatureParser, (void **)&parser);
    HRESULT hr;
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_METHOD_DEF); row++) {
        struct asm_methoddef m;
        if (asm_methoddef_get(a, row, &m, &diag) != 0)
            continue;
        c->methods++;
        if (FAILED(hr = check_method(parser, m.signature)))
            failed(c, path, "method", ASM_TOKEN(ASM_TABLE_METHOD_DEF, row), hr);
        c->refused += hr == S_FALSE;
    }
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_STAND_ALONE_SIG); row++) {
        struct asm_blob sig;
        if (asm_standalonesig_get(a, row, &sig, &diag) != 0 || sig.len == 0)
            continue;
        bool locals = sig.data[0] == 0x07;
        locals ? c->locals++ : c->callis++;
        hr = locals ? check_locals(creator, parser, sig) : check_method(parser, sig);
        if (FAILED(hr))
            failed(c, path, "standalone sig", ASM_TOKEN(ASM_TABLE_STAND_ALONE_SIG, row), hr);
        c->refused += hr == S_FALSE;
    }
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_TYPE_SPEC); row++) {
        struct asm_blob sig;
        if (asm_typespec_get(a, row, &sig, &diag) != 0)
            continue;
        c->typespecs++;
        if (FAILED(hr = check_typespec(creator, sig)))
            failed(c, path, "typespec", ASM_TOKEN(ASM_TABLE_TYPE_SPEC, row), hr);
    }
    parser->lpVtbl->Release(parser);
    creator->lpVtbl->Release(creator);
    asm_assembly_free(a);
}

static void visit(const char *path, void *counts)
{
    check_assembly(path, counts);
}

int main(void)
{
    struct counts c = {0};
    if (test_dotnet_each_dll(visit, &c) < 0) {
        printf("no .NET assemblies to read: skipped\n");
        return test_dotnet_missing_status();
    }
    printf("%zu assemblies: %zu method, %zu local, %zu calli signatures, %zu type specs "
           "(%zu refused by libilgraph too); %zu failures\n",
           c.assemblies, c.methods, c.locals, c.callis, c.typespecs, c.refused, c.failures);
    if (c.assemblies == 0) {
        fprintf(stderr, "no managed assembly found under the framework\n");
        return 1;
    }
    return c.failures ? 1 : 0;
}
