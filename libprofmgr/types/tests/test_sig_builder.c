/* ISignatureBuilder (types.h): compressed unsigned and signed integers at every boundary,
 * TypeDefOrRef tokens, element types, raw bytes and other builders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "types_testing.h"

/* ---- ISignatureBuilder ----------------------------------------------------------------------- */

static void builder_compresses_unsigned_ints_at_every_boundary(void **state)
{
    static const struct {
        DWORD value;
        uint8_t bytes[4];
        size_t len;
    } cases[] = {
        {0, {0x00}, 1},
        {0x7F, {0x7F}, 1},
        {0x80, {0x80, 0x80}, 2},
        {0x3FFF, {0xBF, 0xFF}, 2},
        {0x4000, {0xC0, 0x00, 0x40, 0x00}, 4},
        {0x1FFFFFFF, {0xDF, 0xFF, 0xFF, 0xFF}, 4},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ISignatureBuilder *b;
        assert_int_equal(clrie_pm_types_signature_builder_new(&b), S_OK);
        assert_int_equal(b->lpVtbl->Add(b, cases[i].value), S_OK);
        assert_builder_holds(b, cases[i].bytes, cases[i].len);
        /* past 2^29-1 there is no encoding: refused, nothing written */
        assert_int_equal(b->lpVtbl->Add(b, 0x20000000), E_INVALIDARG);
        assert_builder_holds(b, cases[i].bytes, cases[i].len);
        assert_int_equal(b->lpVtbl->Release(b), 0);
    }
}

static void builder_compresses_signed_ints_at_every_boundary(void **state)
{
    static const struct {
        LONG value;
        uint8_t bytes[4];
        size_t len;
    } cases[] = {
        {3, {0x06}, 1},
        {-3, {0x7B}, 1},
        {63, {0x7E}, 1},
        {-64, {0x01}, 1},
        {64, {0x80, 0x80}, 2},
        {-65, {0xBF, 0x7F}, 2},
        {8191, {0xBF, 0xFE}, 2},
        {-8192, {0x80, 0x01}, 2},
        {8192, {0xC0, 0x00, 0x40, 0x00}, 4},
        {268435455, {0xDF, 0xFF, 0xFF, 0xFE}, 4},
        {-268435456, {0xC0, 0x00, 0x00, 0x01}, 4},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ISignatureBuilder *b;
        assert_int_equal(clrie_pm_types_signature_builder_new(&b), S_OK);
        assert_int_equal(b->lpVtbl->AddSignedInt(b, cases[i].value), S_OK);
        assert_builder_holds(b, cases[i].bytes, cases[i].len);
        assert_int_equal(b->lpVtbl->AddSignedInt(b, 268435456), E_INVALIDARG);
        assert_int_equal(b->lpVtbl->AddSignedInt(b, -268435457), E_INVALIDARG);
        assert_builder_holds(b, cases[i].bytes, cases[i].len);
        assert_int_equal(b->lpVtbl->Release(b), 0);
    }
}

static void builder_codes_type_tokens_and_refuses_others(void **state)
{
    ISignatureBuilder *b;
    assert_int_equal(clrie_pm_types_signature_builder_new(&b), S_OK);
    assert_int_equal(b->lpVtbl->AddToken(b, 0x02000001), S_OK);         /* TypeDef: tag 0 */
    assert_int_equal(b->lpVtbl->AddToken(b, 0x01000012), S_OK);         /* TypeRef: tag 1 */
    assert_int_equal(b->lpVtbl->AddToken(b, 0x1B000001), S_OK);         /* TypeSpec: tag 2 */
    assert_int_equal(b->lpVtbl->AddToken(b, 0x02001000), S_OK);         /* needs four bytes */
    assert_int_equal(b->lpVtbl->AddToken(b, 0x06000001), E_INVALIDARG); /* a MethodDef */
    assert_int_equal(b->lpVtbl->AddToken(b, 0x02FFFFFF), S_OK);
    assert_builder_holds(b,
                         BYTES(0x04, 0x49, 0x06, 0xC0, 0x00, 0x40, 0x00, 0xC3, 0xFF, 0xFF, 0xFC));
    assert_int_equal(b->lpVtbl->Release(b), 0);
}

static void builder_appends_elements_data_and_builders(void **state)
{
    ISignatureBuilder *b, *other;
    assert_int_equal(clrie_pm_types_signature_builder_new(&b), S_OK);
    assert_int_equal(clrie_pm_types_signature_builder_new(&other), S_OK);
    assert_builder_holds(b, NULL, 0);
    assert_int_equal(b->lpVtbl->AddElementType(b, ELEMENT_TYPE_SZARRAY), S_OK);
    assert_int_equal(b->lpVtbl->AddElementType(b, (CorElementType)0x100), E_INVALIDARG);
    assert_int_equal(b->lpVtbl->AddData(b, BYTES(0x08, 0x0E)), S_OK);
    assert_int_equal(b->lpVtbl->AddData(b, NULL, 0), S_OK);
    assert_int_equal(b->lpVtbl->AddData(b, NULL, 3), E_POINTER);
    assert_int_equal(other->lpVtbl->AddElementType(other, ELEMENT_TYPE_I4), S_OK);
    assert_int_equal(b->lpVtbl->AddSignature(b, other), S_OK);
    assert_int_equal(b->lpVtbl->AddSignature(b, NULL), E_POINTER);
    assert_builder_holds(b, BYTES(0x1D, 0x08, 0x0E, 0x08));
    assert_int_equal(b->lpVtbl->AddSignature(b, b), S_OK); /* itself: doubles */
    assert_builder_holds(b, BYTES(0x1D, 0x08, 0x0E, 0x08, 0x1D, 0x08, 0x0E, 0x08));

    /* GetCorSignature: a size query, a buffer too small, an exact copy */
    DWORD size = 0;
    uint8_t out[8];
    assert_int_equal(b->lpVtbl->GetCorSignature(b, 0, NULL, &size), S_OK);
    assert_int_equal(size, 8);
    assert_int_equal(b->lpVtbl->GetCorSignature(b, 7, out, &size), E_INVALIDARG);
    assert_int_equal(b->lpVtbl->GetCorSignature(b, 8, out, &size), S_OK);
    assert_memory_equal(out, ((const uint8_t[]){0x1D, 0x08, 0x0E, 0x08}), 4);

    assert_int_equal(b->lpVtbl->Clear(b), S_OK);
    assert_builder_holds(b, NULL, 0);
    /* growing well past the first allocation keeps every byte */
    for (DWORD i = 0; i < 1000; i++)
        assert_int_equal(b->lpVtbl->Add(b, i & 0x7F), S_OK);
    const BYTE *p;
    assert_int_equal(b->lpVtbl->GetCorSignaturePtr(b, &p), S_OK);
    for (DWORD i = 0; i < 1000; i++)
        assert_int_equal(p[i], i & 0x7F);

    IDataContainer *data;
    assert_int_equal(b->lpVtbl->QueryInterface(b, &IID_IDataContainer, (void **)&data), S_OK);
    assert_int_equal(data->lpVtbl->Release(data), 1);
    assert_int_equal(other->lpVtbl->Release(other), 0);
    assert_int_equal(b->lpVtbl->Release(b), 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, types_setup, types_teardown)
    const struct CMUnitTest tests[] = {
        T(builder_compresses_unsigned_ints_at_every_boundary),
        T(builder_compresses_signed_ints_at_every_boundary),
        T(builder_codes_type_tokens_and_refuses_others),
        T(builder_appends_elements_data_and_builders),
    };
    return cmocka_run_group_tests_name("sig_builder", tests, NULL, NULL);
}
