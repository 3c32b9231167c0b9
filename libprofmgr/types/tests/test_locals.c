/* ILocalVariableCollection(2) and the JIT pipeline's types_locals_*: adding locals, replacing
 * and committing the signature (one GetTokenFromSig per change), read-only collections, and
 * plugin-side ITypes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "types_testing.h"

/* ---- locals ---------------------------------------------------------------------------------- */

static ILocalVariableCollection2 *locals_of(struct types_locals *l)
{
    return clrie_pm_types_locals_collection(l);
}

static void assert_locals_blob(struct types_locals *l, const uint8_t *expected, size_t len)
{
    const uint8_t *sig;
    size_t n;
    clrie_pm_types_locals_signature(l, &sig, &n);
    assert_int_equal(n, len);
    if (len)
        assert_memory_equal(sig, expected, len);
    ISignatureBuilder *b;
    ILocalVariableCollection2 *c = locals_of(l);
    assert_int_equal(c->lpVtbl->GetCorSignature(c, &b), S_OK);
    if (len)
        assert_builder_holds(b, expected, len);
    else
        assert_builder_holds(b, BYTES(0x07, 0x00));
    b->lpVtbl->Release(b);
}

static void locals_add_then_commit_once(void **state)
{
    struct fake_outer outer;
    fake_outer_init(&outer);
    struct types_locals *l;
    const uint8_t original[] = {0x07, 0x01, 0x08};
    assert_int_equal(clrie_pm_types_locals_new(&outer.iface, fx.creator, &fx.emit.iface, original,
                                               sizeof(original), 0x11000001, false, &l),
                     S_OK);
    ILocalVariableCollection2 *c = locals_of(l);
    ILocalVariableCollection *v1;
    assert_int_equal(c->lpVtbl->QueryInterface(c, &IID_ILocalVariableCollection, (void **)&v1),
                     S_OK);
    assert_int_equal(atomic_load(&outer.refs), 2); /* references go to the owner */
    v1->lpVtbl->Release(v1);
    assert_int_equal(c->lpVtbl->Initialize(c), S_OK);
    assert_int_equal(c->lpVtbl->Initialize(c), S_FALSE);
    DWORD count, index = 99;
    assert_int_equal(c->lpVtbl->GetCount(c, &count), S_OK);
    assert_int_equal(count, 1);
    assert_false(clrie_pm_types_locals_changed(l));

    IType *string;
    assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, ELEMENT_TYPE_STRING, &string),
                     S_OK);
    assert_int_equal(c->lpVtbl->AddLocal(c, string, &index), S_OK);
    assert_int_equal(index, 1);
    string->lpVtbl->Release(string); /* the collection keeps bytes, not the type */
    IType *pinned = from_sig(BYTES(0x45, 0x10, 0x12, 0x49), NULL);
    assert_int_equal(c->lpVtbl->AddLocal(c, pinned, NULL), S_OK);
    pinned->lpVtbl->Release(pinned);
    assert_int_equal(c->lpVtbl->GetCount(c, &count), S_OK);
    assert_int_equal(count, 3);
    assert_true(clrie_pm_types_locals_changed(l));
    const uint8_t grown[] = {0x07, 0x03, 0x08, 0x0E, 0x45, 0x10, 0x12, 0x49};
    assert_locals_blob(l, grown, sizeof(grown));

    /* every current local is listed, added ones included */
    IEnumMethodLocals *e;
    assert_int_equal(c->lpVtbl->GetEnum(c, &e), S_OK);
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, 3);
    IMethodLocal *local;
    ULONG fetched;
    assert_int_equal(e->lpVtbl->Skip(e, 2), S_OK);
    assert_int_equal(e->lpVtbl->Next(e, 1, &local, &fetched), S_OK);
    IType *t;
    assert_int_equal(local->lpVtbl->GetType(local, &t), S_OK);
    assert_emits(t, BYTES(0x45, 0x10, 0x12, 0x49));
    t->lpVtbl->Release(t);
    local->lpVtbl->Release(local);
    assert_int_equal(e->lpVtbl->Release(e), 0);

    /* the first commit emits, the next ones hand back the same token */
    mdSignature token = 0;
    assert_int_equal(c->lpVtbl->CommitSignature(c), S_OK);
    assert_int_equal(fx.emit.calls, 1);
    assert_int_equal(fx.emit.last_len, sizeof(grown));
    assert_memory_equal(fx.emit.last, grown, sizeof(grown));
    assert_int_equal(clrie_pm_types_locals_commit(l, &token), S_OK);
    assert_int_equal(token, 0x11000101);
    assert_int_equal(c->lpVtbl->CommitSignature(c), S_FALSE);
    assert_int_equal(clrie_pm_types_locals_commit(l, &token), S_OK);
    assert_int_equal(token, 0x11000101);
    assert_int_equal(fx.emit.calls, 1);

    /* a later change commits again */
    IType *i8;
    assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, ELEMENT_TYPE_I8, &i8), S_OK);
    assert_int_equal(c->lpVtbl->AddLocal(c, i8, &index), S_OK);
    assert_int_equal(index, 3);
    i8->lpVtbl->Release(i8);
    assert_int_equal(clrie_pm_types_locals_commit(l, &token), S_OK);
    assert_int_equal(token, 0x11000102);
    assert_int_equal(fx.emit.calls, 2);

    clrie_pm_types_locals_free(l);
    assert_int_equal(atomic_load(&outer.refs), 1);
}

static void unchanged_locals_commit_nothing(void **state)
{
    struct types_locals *l;
    const uint8_t original[] = {0x07, 0x02, 0x08, 0x08};
    assert_int_equal(clrie_pm_types_locals_new(NULL, fx.creator, &fx.emit.iface, original,
                                               sizeof(original), 0x11000007, false, &l),
                     S_OK);
    ILocalVariableCollection2 *c = locals_of(l);
    mdSignature token = 0;
    assert_int_equal(c->lpVtbl->CommitSignature(c), S_FALSE);
    assert_int_equal(clrie_pm_types_locals_commit(l, &token), S_OK);
    assert_int_equal(token, 0x11000007);
    /* replacing with the same bytes is no change either */
    assert_int_equal(c->lpVtbl->ReplaceSignature(c, original, sizeof(original)), S_OK);
    assert_false(clrie_pm_types_locals_changed(l));
    assert_int_equal(clrie_pm_types_locals_commit(l, &token), S_OK);
    assert_int_equal(token, 0x11000007);
    assert_int_equal(fx.emit.calls, 0);
    clrie_pm_types_locals_free(l);

    /* a method without locals: 07 00 on request, the first local makes a signature */
    assert_int_equal(
        clrie_pm_types_locals_new(NULL, fx.creator, &fx.emit.iface, NULL, 0, 0, false, &l), S_OK);
    c = locals_of(l);
    assert_locals_blob(l, NULL, 0);
    assert_int_equal(clrie_pm_types_locals_commit(l, &token), S_OK);
    assert_int_equal(token, 0);
    DWORD count = 9, index = 9;
    assert_int_equal(c->lpVtbl->GetCount(c, &count), S_OK);
    assert_int_equal(count, 0);
    IType *t;
    assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, ELEMENT_TYPE_I4, &t), S_OK);
    assert_int_equal(c->lpVtbl->AddLocal(c, t, &index), S_OK);
    t->lpVtbl->Release(t);
    assert_int_equal(index, 0);
    assert_locals_blob(l, BYTES(0x07, 0x01, 0x08));
    assert_int_equal(clrie_pm_types_locals_commit(l, &token), S_OK);
    assert_int_equal(fx.emit.calls, 1);
    clrie_pm_types_locals_free(l);

    /* without an emitter a change cannot be committed */
    assert_int_equal(clrie_pm_types_locals_new(NULL, fx.creator, NULL, NULL, 0, 0, false, &l),
                     S_OK);
    assert_int_equal(clrie_pm_types_locals_replace(l, BYTES(0x07, 0x01, 0x0E)), S_OK);
    assert_int_equal(clrie_pm_types_locals_commit(l, &token), E_NOTIMPL);
    clrie_pm_types_locals_free(l);
}

static void locals_replace_checks_the_whole_blob(void **state)
{
    struct types_locals *l;
    const uint8_t original[] = {0x07, 0x01, 0x08};
    assert_int_equal(clrie_pm_types_locals_new(NULL, fx.creator, &fx.emit.iface, original,
                                               sizeof(original), 0x11000001, false, &l),
                     S_OK);
    ILocalVariableCollection2 *c = locals_of(l);
    const uint8_t replacement[] = {0x07, 0x02, 0x1D, 0x08, 0x15, 0x12, 0x49, 0x01, 0x0E};
    assert_int_equal(c->lpVtbl->ReplaceSignature(c, replacement, sizeof(replacement)), S_OK);
    assert_true(clrie_pm_types_locals_changed(l));
    assert_locals_blob(l, replacement, sizeof(replacement));
    static const struct {
        uint8_t bytes[6];
        size_t len;
    } bad[] = {
        {{0x07}, 1},                         /* too short */
        {{0x06, 0x01, 0x08}, 3},             /* a field signature */
        {{0x07, 0x02, 0x08}, 3},             /* fewer types than counted */
        {{0x07, 0x01, 0x08, 0x08}, 4},       /* bytes after the last type */
        {{0x07, 0x01, 0x1D}, 3},             /* truncated type */
        {{0x07, 0x01, 0x22}, 3},             /* no such element type */
        {{0x07, 0x01, 0x41, 0x08}, 4},       /* a sentinel */
        {{0x07, 0xFF, 0x08}, 3},             /* a bad count */
        {{0x07, 0xDF, 0xFF, 0xFF, 0xFF}, 5}, /* 2^29-1 locals, none there */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(c->lpVtbl->ReplaceSignature(c, bad[i].bytes, (DWORD)bad[i].len),
                         E_INVALIDARG);
        assert_locals_blob(l, replacement, sizeof(replacement));
    }
    assert_int_equal(c->lpVtbl->ReplaceSignature(c, NULL, 4), E_POINTER);

    /* a plugin's own IType goes in through its AddToSignature */
    struct foreign_type foreign;
    foreign_type_init(&foreign, BYTES(0x12, 0x49));
    DWORD index;
    assert_int_equal(c->lpVtbl->AddLocal(c, &foreign.iface, &index), S_OK);
    assert_int_equal(index, 2);
    foreign_type_init(&foreign, BYTES(0x1D)); /* garbage */
    assert_int_equal(c->lpVtbl->AddLocal(c, &foreign.iface, &index), E_INVALIDARG);
    foreign_type_init(&foreign, BYTES(0x08, 0x08)); /* two types */
    assert_int_equal(c->lpVtbl->AddLocal(c, &foreign.iface, &index), E_INVALIDARG);
    foreign_type_init(&foreign, NULL, 0); /* nothing */
    assert_int_equal(c->lpVtbl->AddLocal(c, &foreign.iface, &index), E_INVALIDARG);
    foreign.fail = E_UNEXPECTED;
    assert_int_equal(c->lpVtbl->AddLocal(c, &foreign.iface, &index), E_UNEXPECTED);
    assert_int_equal(atomic_load(&foreign.refs), 1);
    assert_int_equal(c->lpVtbl->AddLocal(c, NULL, &index), E_POINTER);
    const uint8_t expected[] = {0x07, 0x03, 0x1D, 0x08, 0x15, 0x12, 0x49, 0x01, 0x0E, 0x12, 0x49};
    assert_locals_blob(l, expected, sizeof(expected));
    clrie_pm_types_locals_free(l);
}

static void read_only_locals_refuse_every_change(void **state)
{
    struct types_locals *l;
    const uint8_t original[] = {0x07, 0x01, 0x08};
    assert_int_equal(clrie_pm_types_locals_new(NULL, fx.creator, &fx.emit.iface, original,
                                               sizeof(original), 0x11000001, true, &l),
                     S_OK);
    ILocalVariableCollection2 *c = locals_of(l);
    IType *t;
    assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, ELEMENT_TYPE_I4, &t), S_OK);
    DWORD index = 7, count;
    assert_int_equal(c->lpVtbl->AddLocal(c, t, &index), E_FAIL);
    assert_int_equal(index, 7);
    t->lpVtbl->Release(t);
    assert_int_equal(c->lpVtbl->ReplaceSignature(c, BYTES(0x07, 0x01, 0x0E)), E_FAIL);
    assert_int_equal(clrie_pm_types_locals_replace(l, BYTES(0x07, 0x01, 0x0E)), E_FAIL);
    assert_int_equal(c->lpVtbl->CommitSignature(c), S_FALSE);
    assert_int_equal(c->lpVtbl->GetCount(c, &count), S_OK);
    assert_int_equal(count, 1);
    assert_locals_blob(l, original, sizeof(original));
    mdSignature token;
    assert_int_equal(clrie_pm_types_locals_commit(l, &token), S_OK);
    assert_int_equal(token, 0x11000001);
    assert_int_equal(fx.emit.calls, 0);
    clrie_pm_types_locals_free(l);

    /* a method whose LOCAL_SIG is not one */
    assert_int_equal(clrie_pm_types_locals_new(NULL, fx.creator, &fx.emit.iface, BYTES(0x06, 0x08),
                                               0, false, &l),
                     E_INVALIDARG);
    clrie_pm_types_locals_free(NULL);
}

/* Two methods of one module with the same locals, each given the same new local: the second
 * commit finds the first one's token in the module's map and asks the runtime nothing. */
static void locals_commit_through_the_module_map_asks_once_per_signature(void **state)
{
    (void)state;
    struct fake_outer outer;
    fake_outer_init(&outer);
    struct clrie_pm_types_sig_tokens *tokens;
    assert_int_equal(clrie_pm_types_sig_tokens_new(NULL, &fx.emit.iface, &tokens), S_OK);
    const uint8_t original[] = {0x07, 0x01, 0x0E};
    mdSignature made[2];
    for (int method = 0; method < 2; method++) {
        struct types_locals *l;
        assert_int_equal(clrie_pm_types_locals_new(&outer.iface, fx.creator, &fx.emit.iface,
                                                   original, sizeof(original), 0x11000001, false,
                                                   &l),
                         S_OK);
        clrie_pm_types_locals_use_sig_tokens(l, tokens);
        ILocalVariableCollection2 *c = locals_of(l);
        IType *i4;
        assert_int_equal(fx.creator->lpVtbl->FromCorElement(fx.creator, ELEMENT_TYPE_I4, &i4),
                         S_OK);
        assert_int_equal(c->lpVtbl->AddLocal(c, i4, NULL), S_OK);
        i4->lpVtbl->Release(i4);
        assert_int_equal(c->lpVtbl->CommitSignature(c), S_OK);
        assert_true(clrie_pm_types_locals_committed_token(l, &made[method]));
        clrie_pm_types_locals_free(l);
    }
    assert_int_equal(fx.emit.calls, 1);
    const uint8_t grown[] = {0x07, 0x02, 0x0E, 0x08};
    assert_int_equal(fx.emit.last_len, sizeof(grown));
    assert_memory_equal(fx.emit.last, grown, sizeof(grown));
    assert_int_equal(made[0], made[1]);
    clrie_pm_types_sig_tokens_free(tokens);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, types_setup, types_teardown)
    const struct CMUnitTest tests[] = {
        T(locals_add_then_commit_once),
        T(locals_commit_through_the_module_map_asks_once_per_signature),
        T(unchanged_locals_commit_nothing),
        T(locals_replace_checks_the_whole_blob),
        T(read_only_locals_refuse_every_change),
    };
    return cmocka_run_group_tests_name("locals", tests, NULL, NULL);
}
