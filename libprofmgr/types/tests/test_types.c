/* Types from signatures (types.h): every element type re-emitting its exact bytes, composite,
 * token and generic-parameter types, names from metadata, method/local/sequence signatures,
 * the method-info helpers, hostile blobs, and types shared between threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "types_testing.h"
#include "utf16.h"

/* ---- types from signatures ------------------------------------------------------------------- */

struct sample {
    const char *what;
    uint8_t bytes[16];
    size_t len;
    CorElementType element;
    const IID *kind; /* the kind's interface, or NULL for a plain type */
};

static const struct sample samples[] = {
    {"void", {0x01}, 1, ELEMENT_TYPE_VOID, NULL},
    {"bool", {0x02}, 1, ELEMENT_TYPE_BOOLEAN, NULL},
    {"char", {0x03}, 1, ELEMENT_TYPE_CHAR, NULL},
    {"i1", {0x04}, 1, ELEMENT_TYPE_I1, NULL},
    {"u1", {0x05}, 1, ELEMENT_TYPE_U1, NULL},
    {"i2", {0x06}, 1, ELEMENT_TYPE_I2, NULL},
    {"u2", {0x07}, 1, ELEMENT_TYPE_U2, NULL},
    {"i4", {0x08}, 1, ELEMENT_TYPE_I4, NULL},
    {"u4", {0x09}, 1, ELEMENT_TYPE_U4, NULL},
    {"i8", {0x0A}, 1, ELEMENT_TYPE_I8, NULL},
    {"u8", {0x0B}, 1, ELEMENT_TYPE_U8, NULL},
    {"r4", {0x0C}, 1, ELEMENT_TYPE_R4, NULL},
    {"r8", {0x0D}, 1, ELEMENT_TYPE_R8, NULL},
    {"string", {0x0E}, 1, ELEMENT_TYPE_STRING, NULL},
    {"typedbyref", {0x16}, 1, ELEMENT_TYPE_TYPEDBYREF, NULL},
    {"native int", {0x18}, 1, ELEMENT_TYPE_I, NULL},
    {"native uint", {0x19}, 1, ELEMENT_TYPE_U, NULL},
    {"object", {0x1C}, 1, ELEMENT_TYPE_OBJECT, NULL},
    {"class typeref", {0x12, 0x49}, 2, ELEMENT_TYPE_CLASS, &IID_ITokenType},
    {"valuetype typedef", {0x11, 0x10}, 2, ELEMENT_TYPE_VALUETYPE, &IID_ITokenType},
    {"class typespec", {0x12, 0x06}, 2, ELEMENT_TYPE_CLASS, &IID_ITokenType},
    {"class big rid", {0x12, 0xC0, 0x01, 0x00, 0x00}, 5, ELEMENT_TYPE_CLASS, &IID_ITokenType},
    {"pointer", {0x0F, 0x01}, 2, ELEMENT_TYPE_PTR, &IID_ICompositeType},
    {"byref", {0x10, 0x08}, 2, ELEMENT_TYPE_BYREF, &IID_ICompositeType},
    {"szarray", {0x1D, 0x0E}, 2, ELEMENT_TYPE_SZARRAY, &IID_ICompositeType},
    {"jagged", {0x1D, 0x1D, 0x1D, 0x08}, 4, ELEMENT_TYPE_SZARRAY, &IID_ICompositeType},
    {"array",
     {0x14, 0x08, 0x02, 0x01, 0x05, 0x01, 0x00},
     7,
     ELEMENT_TYPE_ARRAY,
     &IID_ICompositeType},
    {"array no shape", {0x14, 0x08, 0x03, 0x00, 0x00}, 5, ELEMENT_TYPE_ARRAY, &IID_ICompositeType},
    {"array bounds",
     {0x14, 0x0E, 0x01, 0x01, 0x81, 0x00, 0x01, 0x7B},
     8,
     ELEMENT_TYPE_ARRAY,
     &IID_ICompositeType},
    {"var", {0x13, 0x00}, 2, ELEMENT_TYPE_VAR, &IID_IGenericParameterType},
    {"mvar 256", {0x1E, 0x81, 0x00}, 3, ELEMENT_TYPE_MVAR, &IID_IGenericParameterType},
    {"generic class",
     {0x15, 0x12, 0x49, 0x02, 0x08, 0x0E},
     6,
     ELEMENT_TYPE_GENERICINST,
     &IID_ICompositeType},
    {"generic struct of T",
     {0x15, 0x11, 0x10, 0x01, 0x13, 0x00},
     6,
     ELEMENT_TYPE_GENERICINST,
     &IID_ICompositeType},
    {"nested generic",
     {0x15, 0x12, 0x49, 0x01, 0x15, 0x12, 0x49, 0x01, 0x1D, 0x08},
     10,
     ELEMENT_TYPE_GENERICINST,
     &IID_ICompositeType},
    {"fnptr", {0x1B, 0x00, 0x01, 0x01, 0x08}, 5, ELEMENT_TYPE_FNPTR, NULL},
    {"generic fnptr", {0x1B, 0x10, 0x01, 0x00, 0x1E, 0x00}, 6, ELEMENT_TYPE_FNPTR, NULL},
    {"modreq", {0x1F, 0x49, 0x08}, 3, ELEMENT_TYPE_I4, NULL},
    {"modopt modreq ptr",
     {0x20, 0x49, 0x1F, 0x4D, 0x0F, 0x01},
     6,
     ELEMENT_TYPE_PTR,
     &IID_ICompositeType},
    {"pinned", {0x45, 0x08}, 2, ELEMENT_TYPE_I4, NULL},
    {"pinned byref", {0x45, 0x10, 0x12, 0x49}, 4, ELEMENT_TYPE_BYREF, &IID_ICompositeType},
    {"modreq then pinned", {0x1F, 0x49, 0x45, 0x08}, 4, ELEMENT_TYPE_I4, NULL},
    {"pinned then modopt", {0x45, 0x20, 0x49, 0x0E}, 4, ELEMENT_TYPE_STRING, NULL},
    {"byref modreq", {0x10, 0x1F, 0x49, 0x08}, 4, ELEMENT_TYPE_BYREF, &IID_ICompositeType},
    {"sentinel", {0x41, 0x08}, 2, ELEMENT_TYPE_I4, NULL},
    {"runtime type handle",
     {0x21, 1, 2, 3, 4, 5, 6, 7, 8},
     1 + sizeof(void *),
     ELEMENT_TYPE_INTERNAL,
     NULL},
};

static void every_element_type_reemits_its_exact_bytes(void **state)
{
    const IID *kinds[] = {&IID_ITokenType, &IID_ICompositeType, &IID_IGenericParameterType};
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        const struct sample *s = &samples[i];
        /* a trailing byte that belongs to the next thing in the blob */
        uint8_t blob[17];
        memcpy(blob, s->bytes, s->len);
        blob[s->len] = 0x08;
        DWORD used = 0;
        IType *t = from_sig(blob, s->len + 1, &used);
        if (used != s->len)
            fail_msg("%s: read %u bytes, expected %zu", s->what, used, s->len);
        assert_emits(t, s->bytes, s->len);
        if (element_of(t) != s->element)
            fail_msg("%s: element 0x%x, expected 0x%x", s->what, element_of(t), s->element);
        for (size_t k = 0; k < 3; k++)
            if (has_interface(t, kinds[k]) != (kinds[k] == s->kind))
                fail_msg("%s: wrong kind interface %zu", s->what, k);
        assert_true(has_interface(t, &IID_IDataContainer));
        assert_int_equal(t->lpVtbl->Release(t), 0);
    }
}

static void composite_types_lead_to_their_parts(void **state)
{
    IType *t = from_sig(BYTES(0x15, 0x12, 0x49, 0x02, 0x08, 0x1D, 0x0E), NULL);
    ICompositeType *c;
    assert_int_equal(t->lpVtbl->QueryInterface(t, &IID_ICompositeType, (void **)&c), S_OK);
    IType *definition;
    assert_int_equal(c->lpVtbl->GetRelatedType(c, &definition), S_OK);
    assert_int_equal(element_of(definition), ELEMENT_TYPE_CLASS);
    ITokenType *token;
    assert_int_equal(
        definition->lpVtbl->QueryInterface(definition, &IID_ITokenType, (void **)&token), S_OK);
    mdToken tk;
    assert_int_equal(token->lpVtbl->GetToken(token, &tk), S_OK);
    assert_int_equal(tk, TR_OBJECT);
    IModuleInfo *owner;
    assert_int_equal(token->lpVtbl->GetOwningModule(token, &owner), S_OK);
    assert_ptr_equal(owner, &fx.module.iface);
    owner->lpVtbl->Release(owner);
    token->lpVtbl->Release(token);
    definition->lpVtbl->Release(definition);
    c->lpVtbl->Release(c);
    BOOL yes;
    assert_int_equal(t->lpVtbl->IsClass(t, &yes), S_OK);
    assert_true(yes); /* an instance of a generic class is a class */
    assert_int_equal(t->lpVtbl->Release(t), 0);

    /* int32[,] -> int32; T[] -> VAR at position 0 */
    t = from_sig(BYTES(0x14, 0x08, 0x02, 0x00, 0x00), NULL);
    assert_int_equal(t->lpVtbl->QueryInterface(t, &IID_ICompositeType, (void **)&c), S_OK);
    IType *element;
    assert_int_equal(c->lpVtbl->GetRelatedType(c, &element), S_OK);
    assert_int_equal(element_of(element), ELEMENT_TYPE_I4);
    assert_int_equal(t->lpVtbl->IsArray(t, &yes), S_OK);
    assert_true(yes);
    element->lpVtbl->Release(element);
    c->lpVtbl->Release(c);
    t->lpVtbl->Release(t);

    t = from_sig(BYTES(0x1D, 0x1E, 0x03), NULL);
    assert_int_equal(t->lpVtbl->QueryInterface(t, &IID_ICompositeType, (void **)&c), S_OK);
    assert_int_equal(c->lpVtbl->GetRelatedType(c, &element), S_OK);
    IGenericParameterType *g;
    assert_int_equal(
        element->lpVtbl->QueryInterface(element, &IID_IGenericParameterType, (void **)&g), S_OK);
    ULONG position;
    assert_int_equal(g->lpVtbl->GetPosition(g, &position), S_OK);
    assert_int_equal(position, 3);
    assert_emits(element, BYTES(0x1E, 0x03));
    g->lpVtbl->Release(g);
    element->lpVtbl->Release(element);
    c->lpVtbl->Release(c);
    assert_int_equal(t->lpVtbl->Release(t), 0);
}

static void types_have_clrie_names_and_metadata_names(void **state)
{
    static const struct {
        uint8_t bytes[4];
        size_t len;
        const char *name;
    } cases[] = {
        {{0x08}, 1, "I4"},
        {{0x0E}, 1, "STRING"},
        {{0x1C}, 1, "OBJECT"},
        {{0x01}, 1, "VOID"},
        {{0x18}, 1, "I"},
        {{0x1D, 0x08}, 2, "SZARRAY"},
        {{0x13, 0x00}, 2, "VAR"},
        {{0x45, 0x08}, 2, "I4"},
        {{0x12, 0x49}, 2, "System.Object"},
        {{0x11, 0x10}, 2, "Ns.Point"},
        {{0x12, 0x0C}, 2, "Ns.Outer+Inner"},
        {{0x1F, 0x49, 0x12, 0x18}, 4, "Ns.Klass"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        IType *t = from_sig(cases[i].bytes, cases[i].len, NULL);
        assert_name(t, cases[i].name);
        t->lpVtbl->Release(t);
    }

    /* a TypeSpec, an unknown TypeDef and an enclosing loop in metadata: no name, no hang */
    BSTR name = (BSTR)1;
    IType *t = from_sig(BYTES(0x12, 0x06), NULL);
    assert_int_equal(t->lpVtbl->GetName(t, &name), E_FAIL);
    assert_null(name);
    t->lpVtbl->Release(t);
    t = from_sig(BYTES(0x12, 0x7C), NULL); /* TypeDef 0x1F */
    assert_true(FAILED(t->lpVtbl->GetName(t, &name)));
    t->lpVtbl->Release(t);
    t = from_sig(BYTES(0x12, 0x1C), NULL); /* TD_LOOP */
    assert_int_equal(t->lpVtbl->GetName(t, &name), S_OK);
    assert_true(clrie_pm_bstr_len(name) > 4 * 64);
    clrie_pm_bstr_free(name);
    assert_int_equal(t->lpVtbl->GetName(t, NULL), E_POINTER);
    t->lpVtbl->Release(t);

    /* a creator without metadata names nothing from it */
    ITypeCreator *bare;
    assert_int_equal(clrie_pm_types_creator_new(NULL, NULL, &bare), S_OK);
    assert_int_equal(bare->lpVtbl->FromToken(bare, ELEMENT_TYPE_CLASS, TD_KLASS, &t), S_OK);
    assert_int_equal(t->lpVtbl->GetName(t, &name), E_FAIL);
    ITokenType *token;
    assert_int_equal(t->lpVtbl->QueryInterface(t, &IID_ITokenType, (void **)&token), S_OK);
    IModuleInfo *owner = (IModuleInfo *)1;
    assert_int_equal(token->lpVtbl->GetOwningModule(token, &owner), E_FAIL);
    assert_null(owner);
    token->lpVtbl->Release(token);
    t->lpVtbl->Release(t);
    assert_int_equal(bare->lpVtbl->Release(bare), 0);
}

static void type_predicates_follow_the_element(void **state)
{
    static const struct {
        uint8_t bytes[3];
        size_t len;
        BOOL primitive, array, klass;
    } cases[] = {
        {{0x08}, 1, TRUE, FALSE, FALSE},       {{0x0E}, 1, TRUE, FALSE, FALSE},
        {{0x19}, 1, TRUE, FALSE, FALSE},       {{0x1C}, 1, FALSE, FALSE, FALSE},
        {{0x12, 0x49}, 2, FALSE, FALSE, TRUE}, {{0x11, 0x10}, 2, FALSE, FALSE, FALSE},
        {{0x1D, 0x08}, 2, FALSE, TRUE, FALSE}, {{0x10, 0x08}, 2, FALSE, FALSE, FALSE},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        IType *t = from_sig(cases[i].bytes, cases[i].len, NULL);
        BOOL v;
        assert_int_equal(t->lpVtbl->IsPrimitive(t, &v), S_OK);
        assert_int_equal(v, cases[i].primitive);
        assert_int_equal(t->lpVtbl->IsArray(t, &v), S_OK);
        assert_int_equal(v, cases[i].array);
        assert_int_equal(t->lpVtbl->IsClass(t, &v), S_OK);
        assert_int_equal(v, cases[i].klass);
        assert_int_equal(t->lpVtbl->IsClass(t, NULL), E_POINTER);
        t->lpVtbl->Release(t);
    }
}

static void creator_makes_types_from_elements_and_tokens(void **state)
{
    IType *t;
    assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, ELEMENT_TYPE_I4, &t), S_OK);
    assert_emits(t, BYTES(0x08));
    t->lpVtbl->Release(t);
    assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, ELEMENT_TYPE_TYPEDBYREF, &t),
                     S_OK);
    t->lpVtbl->Release(t);
    assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, ELEMENT_TYPE_CLASS, &t),
                     E_INVALIDARG);
    assert_null(t);
    assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, (CorElementType)0x99, &t),
                     E_INVALIDARG);
    assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, ELEMENT_TYPE_I4, NULL),
                     E_POINTER);

    assert_int_equal(
        fx.creator->lpVtbl->FromToken(fx.creator, ELEMENT_TYPE_VALUETYPE, TD_POINT, &t), S_OK);
    assert_emits(t, BYTES(0x11, 0x10));
    assert_name(t, "Ns.Point");
    t->lpVtbl->Release(t);
    assert_int_equal(fx.creator->lpVtbl->FromToken(fx.creator, ELEMENT_TYPE_CLASS, 0x06000001, &t),
                     E_INVALIDARG);
    assert_int_equal(fx.creator->lpVtbl->FromToken(fx.creator, ELEMENT_TYPE_I4, TD_POINT, &t),
                     E_INVALIDARG);

    ISignatureParser *parser;
    assert_int_equal(
        fx.creator->lpVtbl->QueryInterface(fx.creator, &IID_ISignatureParser, (void **)&parser),
        S_OK);
    ITypeCreator *back;
    assert_int_equal(parser->lpVtbl->QueryInterface(parser, &IID_ITypeCreator, (void **)&back),
                     S_OK);
    assert_ptr_equal(back, fx.creator);
    back->lpVtbl->Release(back);
    parser->lpVtbl->Release(parser);
}

/* ---- method, local and sequence signatures --------------------------------------------------- */

static void method_signature_gives_return_and_parameter_types(void **state)
{
    ISignatureParser *parser;
    assert_int_equal(
        fx.creator->lpVtbl->QueryInterface(fx.creator, &IID_ISignatureParser, (void **)&parser),
        S_OK);
    /* instance void M(int32, string[]) followed by an unrelated byte */
    const uint8_t sig[] = {0x20, 0x02, 0x01, 0x08, 0x1D, 0x0E, 0xFF};
    ULONG cc = 0, generics = 7, read = 0;
    IType *ret;
    IEnumTypes *params;
    assert_int_equal(parser->lpVtbl->ParseMethodSignature(parser, sig, sizeof(sig), &cc, &ret,
                                                          &params, &generics, &read),
                     S_OK);
    assert_int_equal(cc, 0x20);
    assert_int_equal(generics, 0);
    assert_int_equal(read, 6);
    assert_int_equal(element_of(ret), ELEMENT_TYPE_VOID);
    DWORD count;
    assert_int_equal(params->lpVtbl->GetCount(params, &count), S_OK);
    assert_int_equal(count, 2);
    IType *got[3] = {NULL};
    ULONG fetched;
    assert_int_equal(params->lpVtbl->Next(params, 3, got, &fetched), S_FALSE);
    assert_int_equal(fetched, 2);
    assert_null(got[2]);
    assert_emits(got[0], BYTES(0x08));
    assert_emits(got[1], BYTES(0x1D, 0x0E));
    IEnumTypes *clone;
    assert_int_equal(params->lpVtbl->Clone(params, &clone), S_OK);
    assert_int_equal(clone->lpVtbl->Next(clone, 1, got + 2, &fetched), S_FALSE);
    assert_int_equal(clone->lpVtbl->Reset(clone), S_OK);
    assert_int_equal(clone->lpVtbl->Skip(clone, 1), S_OK);
    assert_int_equal(clone->lpVtbl->Next(clone, 1, got + 2, NULL), S_OK);
    assert_emits(got[2], BYTES(0x1D, 0x0E));
    assert_int_equal(clone->lpVtbl->Skip(clone, 5), S_FALSE);
    for (int i = 0; i < 3; i++)
        got[i]->lpVtbl->Release(got[i]);
    assert_int_equal(clone->lpVtbl->Release(clone), 0);
    assert_int_equal(params->lpVtbl->Release(params), 0);
    assert_int_equal(ret->lpVtbl->Release(ret), 0);

    /* generic method T M<T>(T); vararg with a sentinel; only the size asked for */
    const uint8_t generic[] = {0x30, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00};
    assert_int_equal(parser->lpVtbl->ParseMethodSignature(parser, generic, sizeof(generic), &cc,
                                                          &ret, NULL, &generics, &read),
                     S_OK);
    assert_int_equal(generics, 1);
    assert_int_equal(read, sizeof(generic));
    assert_emits(ret, BYTES(0x1E, 0x00));
    ret->lpVtbl->Release(ret);
    const uint8_t vararg[] = {0x05, 0x02, 0x01, 0x08, 0x41, 0x0E};
    assert_int_equal(parser->lpVtbl->ParseMethodSignature(parser, vararg, sizeof(vararg), NULL,
                                                          NULL, &params, NULL, &read),
                     S_OK);
    assert_int_equal(read, sizeof(vararg));
    assert_int_equal(params->lpVtbl->Skip(params, 1), S_OK);
    assert_int_equal(params->lpVtbl->Next(params, 1, got, &fetched), S_OK);
    assert_emits(got[0], BYTES(0x41, 0x0E)); /* the sentinel stays with its parameter */
    got[0]->lpVtbl->Release(got[0]);
    params->lpVtbl->Release(params);

    /* not a method signature: a field, a local signature, a truncated one */
    assert_int_equal(parser->lpVtbl->ParseMethodSignature(parser, BYTES(0x06, 0x08), NULL, &ret,
                                                          NULL, NULL, NULL),
                     E_INVALIDARG);
    assert_null(ret);
    assert_int_equal(parser->lpVtbl->ParseMethodSignature(parser, BYTES(0x07, 0x01, 0x08), NULL,
                                                          NULL, NULL, NULL, NULL),
                     E_INVALIDARG);
    assert_int_equal(
        parser->lpVtbl->ParseMethodSignature(parser, sig, 5, NULL, &ret, &params, NULL, NULL),
        E_INVALIDARG);
    assert_null(params);
    assert_int_equal(
        parser->lpVtbl->ParseMethodSignature(parser, NULL, 5, NULL, NULL, NULL, NULL, NULL),
        E_POINTER);
    parser->lpVtbl->Release(parser);
}

static void local_and_sequence_signatures_parse(void **state)
{
    ISignatureParser *parser;
    assert_int_equal(
        fx.creator->lpVtbl->QueryInterface(fx.creator, &IID_ISignatureParser, (void **)&parser),
        S_OK);
    ULONG cc = 0, read = 0;
    IEnumTypes *types;
    const uint8_t locals[] = {0x07, 0x03, 0x08, 0x45, 0x10, 0x08, 0x12, 0x49};
    assert_int_equal(
        parser->lpVtbl->ParseLocalVarSignature(parser, locals, sizeof(locals), &cc, &types, &read),
        S_OK);
    assert_int_equal(cc, 7);
    assert_int_equal(read, sizeof(locals));
    DWORD count;
    assert_int_equal(types->lpVtbl->GetCount(types, &count), S_OK);
    assert_int_equal(count, 3);
    types->lpVtbl->Release(types);
    assert_int_equal(
        parser->lpVtbl->ParseLocalVarSignature(parser, BYTES(0x07, 0x02, 0x08), NULL, &types, NULL),
        E_INVALIDARG);
    assert_int_equal(
        parser->lpVtbl->ParseLocalVarSignature(parser, BYTES(0x06, 0x01, 0x08), NULL, &types, NULL),
        E_INVALIDARG);
    /* a sentinel is a parameter's, never a local's */
    assert_int_equal(parser->lpVtbl->ParseLocalVarSignature(parser, BYTES(0x07, 0x01, 0x41, 0x08),
                                                            NULL, &types, NULL),
                     E_INVALIDARG);

    assert_int_equal(
        parser->lpVtbl->ParseTypeSequence(parser, BYTES(0x08, 0x0E, 0x1C, 0x1C), 3, &types, &read),
        S_OK);
    assert_int_equal(read, 3);
    types->lpVtbl->Release(types);
    assert_int_equal(parser->lpVtbl->ParseTypeSequence(parser, BYTES(0x08, 0x0E), 3, &types, &read),
                     E_INVALIDARG);
    assert_int_equal(parser->lpVtbl->ParseTypeSequence(parser, BYTES(0x08), 0, &types, &read),
                     S_OK);
    assert_int_equal(read, 0);
    assert_int_equal(types->lpVtbl->GetCount(types, &count), S_OK);
    assert_int_equal(count, 0);
    types->lpVtbl->Release(types);
    parser->lpVtbl->Release(parser);
}

static void method_info_helpers_give_parameters_return_and_declaring_type(void **state)
{
    const uint8_t sig[] = {0x00, 0x02, 0x0E, 0x10, 0x08, 0x11, 0x10};
    IEnumMethodParameters *params;
    assert_int_equal(clrie_pm_types_method_parameters(fx.creator, sig, sizeof(sig), &params), S_OK);
    DWORD count;
    assert_int_equal(params->lpVtbl->GetCount(params, &count), S_OK);
    assert_int_equal(count, 2);
    IMethodParameter *p[2];
    ULONG fetched;
    assert_int_equal(params->lpVtbl->Next(params, 2, p, &fetched), S_OK);
    IType *t;
    assert_int_equal(p[1]->lpVtbl->GetType(p[1], &t), S_OK);
    assert_name(t, "Ns.Point");
    t->lpVtbl->Release(t);
    assert_int_equal(p[0]->lpVtbl->GetType(p[0], &t), S_OK);
    assert_emits(t, BYTES(0x10, 0x08));
    t->lpVtbl->Release(t);
    IDataContainer *data;
    assert_int_equal(p[0]->lpVtbl->QueryInterface(p[0], &IID_IDataContainer, (void **)&data), S_OK);
    data->lpVtbl->Release(data);
    assert_int_equal(p[0]->lpVtbl->Release(p[0]), 1); /* the enumerator holds the other */
    assert_int_equal(p[1]->lpVtbl->Release(p[1]), 1);
    assert_int_equal(params->lpVtbl->Release(params), 0);

    assert_int_equal(clrie_pm_types_return_type(fx.creator, sig, sizeof(sig), &t), S_OK);
    assert_name(t, "STRING");
    t->lpVtbl->Release(t);
    assert_int_equal(clrie_pm_types_return_type(fx.creator, sig, 3, &t), E_INVALIDARG);
    assert_int_equal(clrie_pm_types_method_parameters(fx.creator, sig, 4, &params), E_INVALIDARG);
    assert_null(params);

    /* declaring types: a struct and an enum are value types, a class and a nested class not */
    static const struct {
        mdTypeDef token;
        CorElementType element;
        const char *name;
    } declaring[] = {
        {TD_POINT, ELEMENT_TYPE_VALUETYPE, "Ns.Point"},
        {TD_COLOR, ELEMENT_TYPE_VALUETYPE, "Ns.Color"},
        {TD_KLASS, ELEMENT_TYPE_CLASS, "Ns.Klass"},
        {TD_INNER, ELEMENT_TYPE_CLASS, "Ns.Outer+Inner"},
    };
    for (size_t i = 0; i < sizeof(declaring) / sizeof(declaring[0]); i++) {
        assert_int_equal(clrie_pm_types_declaring_type(fx.creator, declaring[i].token, &t), S_OK);
        assert_int_equal(element_of(t), declaring[i].element);
        assert_name(t, declaring[i].name);
        t->lpVtbl->Release(t);
    }
    assert_true(FAILED(clrie_pm_types_declaring_type(fx.creator, 0x0200001F, &t)));
    assert_int_equal(clrie_pm_types_declaring_type(fx.creator, TR_OBJECT, &t), E_INVALIDARG);
}

/* ---- hostile blobs --------------------------------------------------------------------------- */

static void truncated_blobs_are_refused_at_every_length(void **state)
{
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        const struct sample *s = &samples[i];
        for (size_t len = 1; len < s->len; len++) {
            uint8_t *exact = malloc(len); /* exact size, so ASan sees any read past it */
            memcpy(exact, s->bytes, len);
            IType *t = (IType *)1;
            DWORD used = 9;
            HRESULT hr =
                fx.creator->lpVtbl->FromSignature(fx.creator, (DWORD)len, exact, &t, &used);
            if (hr != E_INVALIDARG)
                fail_msg("%s cut to %zu bytes: 0x%x", s->what, len, (unsigned)hr);
            assert_null(t);
            assert_int_equal(used, 0);
            free(exact);
        }
    }
    IType *t;
    const uint8_t i4 = 0x08;
    assert_int_equal(fx.creator->lpVtbl->FromSignature(fx.creator, 0, &i4, &t, NULL), E_INVALIDARG);
    assert_int_equal(fx.creator->lpVtbl->FromSignature(fx.creator, 1, NULL, &t, NULL), E_POINTER);
    assert_int_equal(fx.creator->lpVtbl->FromSignature(fx.creator, 1, &i4, NULL, NULL), E_POINTER);
}

static void deep_nesting_is_refused_without_exhausting_the_stack(void **state)
{
    enum { DEPTH = 100000 };
    uint8_t *blob = malloc(DEPTH + 1);
    memset(blob, 0x1D, DEPTH); /* int32[][][]... */
    blob[DEPTH] = 0x08;
    IType *t;
    assert_int_equal(fx.creator->lpVtbl->FromSignature(fx.creator, DEPTH + 1, blob, &t, NULL),
                     E_INVALIDARG);
    /* generic arguments nest too */
    for (size_t i = 0; i + 4 <= DEPTH; i += 4)
        memcpy(blob + i, (const uint8_t[]){0x15, 0x12, 0x49, 0x01}, 4);
    assert_int_equal(fx.creator->lpVtbl->FromSignature(fx.creator, DEPTH + 1, blob, &t, NULL),
                     E_INVALIDARG);
    /* a nesting that fits is accepted and re-emitted */
    memset(blob, 0x1D, 40);
    blob[40] = 0x08;
    DWORD used;
    t = from_sig(blob, 41, &used);
    assert_int_equal(used, 41);
    assert_emits(t, blob, 41);
    t->lpVtbl->Release(t);
    free(blob);
}

static void garbage_never_crashes_and_what_parses_reemits(void **state)
{
    static const uint8_t alphabet[] = {0x00, 0x01, 0x08, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13,
                                       0x14, 0x15, 0x16, 0x1B, 0x1D, 0x1E, 0x1F, 0x20, 0x21,
                                       0x22, 0x41, 0x45, 0x49, 0x7F, 0x80, 0xC0, 0xFF, 0x02};
    ISignatureParser *parser;
    assert_int_equal(
        fx.creator->lpVtbl->QueryInterface(fx.creator, &IID_ISignatureParser, (void **)&parser),
        S_OK);
    uint32_t seed = 12345;
    int parsed = 0;
    for (int round = 0; round < 20000; round++) {
        seed = seed * 1103515245u + 12345u;
        size_t len = 1 + (seed >> 16) % 12;
        uint8_t *blob = malloc(len);
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            blob[i] = alphabet[(seed >> 16) % sizeof(alphabet)];
        }
        IType *t = NULL;
        DWORD used = 0;
        if (fx.creator->lpVtbl->FromSignature(fx.creator, (DWORD)len, blob, &t, &used) == S_OK) {
            assert_true(used >= 1 && used <= len);
            assert_emits(t, blob, used);
            BSTR name = NULL;
            if (SUCCEEDED(t->lpVtbl->GetName(t, &name)))
                clrie_pm_bstr_free(name);
            assert_int_equal(t->lpVtbl->Release(t), 0);
            parsed++;
        }
        IEnumTypes *e = NULL;
        ULONG read;
        if (parser->lpVtbl->ParseMethodSignature(parser, blob, (ULONG)len, NULL, &t, &e, NULL,
                                                 &read) == S_OK) {
            assert_true(read <= len);
            t->lpVtbl->Release(t);
            e->lpVtbl->Release(e);
        }
        if (parser->lpVtbl->ParseLocalVarSignature(parser, blob, (ULONG)len, NULL, &e, &read) ==
            S_OK) {
            assert_true(read <= len);
            e->lpVtbl->Release(e);
        }
        free(blob);
    }
    assert_true(parsed > 100); /* the alphabet makes valid types often enough */
    parser->lpVtbl->Release(parser);
}

/* ---- threads --------------------------------------------------------------------------------- */

struct sharer {
    IType *shared;
    int errors;
};

/* JIT callbacks on many threads read the same module's types through one creator. */
static void share(void *arg)
{
    struct sharer *s = arg;
    const uint8_t sig[] = {0x20, 0x02, 0x12, 0x49, 0x15, 0x12, 0x49, 0x01, 0x08, 0x1D, 0x11, 0x10};
    ISignatureParser *parser;
    if (fx.creator->lpVtbl->QueryInterface(fx.creator, &IID_ISignatureParser, (void **)&parser) !=
        S_OK)
        s->errors++;
    for (int i = 0; i < 2000; i++) {
        IType *ret = NULL;
        IEnumTypes *params = NULL;
        if (parser->lpVtbl->ParseMethodSignature(parser, sig, sizeof(sig), NULL, &ret, &params,
                                                 NULL, NULL) != S_OK) {
            s->errors++;
            continue;
        }
        BSTR name = NULL;
        if (ret->lpVtbl->GetName(ret, &name) != S_OK || clrie_pm_bstr_len(name) != 13)
            s->errors++;
        clrie_pm_bstr_free(name);
        ret->lpVtbl->Release(ret);
        params->lpVtbl->Release(params);
        ICompositeType *c;
        if (s->shared->lpVtbl->QueryInterface(s->shared, &IID_ICompositeType, (void **)&c) !=
            S_OK) {
            s->errors++;
            continue;
        }
        IType *related;
        if (c->lpVtbl->GetRelatedType(c, &related) == S_OK)
            related->lpVtbl->Release(related);
        c->lpVtbl->Release(c);
    }
    parser->lpVtbl->Release(parser);
}

static void types_are_shared_between_threads(void **state)
{
    enum { THREADS = 4 };
    IType *shared = from_sig(BYTES(0x1D, 0x12, 0x49), NULL);
    struct clrie_os_thread threads[THREADS];
    struct sharer sharers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        sharers[i] = (struct sharer){.shared = shared};
        assert_int_equal(clrie_os_thread_start(&threads[i], share, &sharers[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        clrie_os_thread_join(&threads[i]);
        assert_int_equal(sharers[i].errors, 0);
    }
    assert_int_equal(shared->lpVtbl->Release(shared), 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, types_setup, types_teardown)
    const struct CMUnitTest tests[] = {
        T(every_element_type_reemits_its_exact_bytes),
        T(composite_types_lead_to_their_parts),
        T(types_have_clrie_names_and_metadata_names),
        T(type_predicates_follow_the_element),
        T(creator_makes_types_from_elements_and_tokens),
        T(method_signature_gives_return_and_parameter_types),
        T(local_and_sequence_signatures_parse),
        T(method_info_helpers_give_parameters_return_and_declaring_type),
        T(truncated_blobs_are_refused_at_every_length),
        T(deep_nesting_is_refused_without_exhausting_the_stack),
        T(garbage_never_crashes_and_what_parses_reemits),
        T(types_are_shared_between_threads),
    };
    return cmocka_run_group_tests_name("types", tests, NULL, NULL);
}
