/* The fixture and assertions the types tests share; see types_testing.h. */
#include "types_testing.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "utf16.h"

struct types_fixture fx;

int types_setup(void **state)
{
    fake_import_init(&fx.import);
    fake_emit_init(&fx.emit);
    fake_module_init(&fx.module);
    assert_int_equal(clrie_pm_types_creator_new(&fx.module.iface, &fx.import.iface, &fx.creator),
                     S_OK);
    return 0;
}

int types_teardown(void **state)
{
    assert_int_equal(fx.creator->lpVtbl->Release(fx.creator), 0);
    assert_int_equal(atomic_load(&fx.import.refs), 1);
    assert_int_equal(atomic_load(&fx.emit.refs), 1);
    assert_int_equal(atomic_load(&fx.module.refs), 1);
    return 0;
}

void assert_builder_holds(ISignatureBuilder *b, const uint8_t *expected, size_t len)
{
    DWORD size = 0;
    assert_int_equal(b->lpVtbl->GetSize(b, &size), S_OK);
    assert_int_equal(size, len);
    const BYTE *p = NULL;
    assert_int_equal(b->lpVtbl->GetCorSignaturePtr(b, &p), len ? S_OK : S_FALSE);
    if (len)
        assert_memory_equal(p, expected, len);
}

/* The bytes t appends to a new builder. */
void assert_emits(IType *t, const uint8_t *expected, size_t len)
{
    ISignatureBuilder *b;
    assert_int_equal(clrie_pm_types_signature_builder_new(&b), S_OK);
    assert_int_equal(t->lpVtbl->AddToSignature(t, b), S_OK);
    assert_builder_holds(b, expected, len);
    assert_int_equal(b->lpVtbl->Release(b), 0);
}

IType *from_sig(const uint8_t *bytes, size_t len, DWORD *used)
{
    IType *t = NULL;
    assert_int_equal(fx.creator->lpVtbl->FromSignature(fx.creator, (DWORD)len, bytes, &t, used),
                     S_OK);
    assert_non_null(t);
    return t;
}

void assert_name(IType *t, const char *expected)
{
    BSTR name = NULL;
    assert_int_equal(t->lpVtbl->GetName(t, &name), S_OK);
    char *utf8;
    size_t n;
    assert_int_equal(clrie_pm_utf16_to_utf8(name, clrie_pm_bstr_len(name), false, &utf8, &n), 0);
    assert_string_equal(utf8, expected);
    free(utf8);
    clrie_pm_bstr_free(name);
}

CorElementType element_of(IType *t)
{
    CorElementType e;
    assert_int_equal(t->lpVtbl->GetCorElementType(t, &e), S_OK);
    return e;
}

bool has_interface(IType *t, const IID *iid)
{
    IUnknown *u = NULL;
    HRESULT hr = t->lpVtbl->QueryInterface(t, iid, (void **)&u);
    if (SUCCEEDED(hr))
        u->lpVtbl->Release(u);
    return SUCCEEDED(hr);
}
