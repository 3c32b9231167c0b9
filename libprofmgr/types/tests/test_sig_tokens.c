/* A module's StandAloneSig tokens by blob (sig_tokens.c), over a fake module whose emitter does
 * what the runtime's does: GetTokenFromSig compares the blob with every row and adds a row only
 * when none matches. The fake counts the calls, which is what the map exists to save: one per
 * signature new to the module, none for a signature the module has. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "fake_slots.h"
#include "types.h"

FAKE_METADATA_NOT_IMPLEMENTED

#define MAX_ROWS 20000

struct row {
    uint8_t bytes[8];
    ULONG len;
};

static struct fake_module {
    IMetaDataImport2 import;
    IMetaDataEmit2 emit;
    struct clrie_os_mutex lock;
    struct row rows[MAX_ROWS]; /* StandAloneSig rows; token 0x11000000 | (index + 1) */
    ULONG count;
    long token_calls; /* GetTokenFromSig */
    HRESULT fail;     /* GetTokenFromSig answers this when set */
} md;

static HRESULT STDMETHODCALLTYPE mdi_EnumSignatures(IMetaDataImport2 *This, HCORENUM *cursor,
                                                    mdSignature *out, ULONG cmax, ULONG *got)
{
    (void)This;
    ULONG *at = *cursor;
    if (!at) {
        at = calloc(1, sizeof(*at));
        assert_non_null(at);
        *cursor = at;
    }
    clrie_os_mutex_lock(&md.lock);
    *got = 0;
    while (*got < cmax && *at < md.count)
        out[(*got)++] = 0x11000000u | ++*at;
    clrie_os_mutex_unlock(&md.lock);
    return *got ? S_OK : S_FALSE;
}

static void STDMETHODCALLTYPE mdi_CloseEnum(IMetaDataImport2 *This, HCORENUM cursor)
{
    (void)This;
    free(cursor);
}

static HRESULT STDMETHODCALLTYPE mdi_GetSigFromToken(IMetaDataImport2 *This, mdSignature token,
                                                     PCCOR_SIGNATURE *sig, ULONG *len)
{
    (void)This;
    ULONG rid = token & 0xFFFFFFu;
    clrie_os_mutex_lock(&md.lock);
    HRESULT hr = E_INVALIDARG;
    if ((token >> 24) == 0x11 && rid >= 1 && rid <= md.count) {
        *sig = md.rows[rid - 1].bytes;
        *len = md.rows[rid - 1].len;
        hr = S_OK;
    }
    clrie_os_mutex_unlock(&md.lock);
    return hr;
}

static HRESULT STDMETHODCALLTYPE mde_GetTokenFromSig(IMetaDataEmit2 *This, PCCOR_SIGNATURE sig,
                                                     ULONG len, mdSignature *token)
{
    (void)This;
    if (md.fail)
        return md.fail;
    assert_true(len <= sizeof(md.rows[0].bytes));
    clrie_os_mutex_lock(&md.lock);
    md.token_calls++;
    ULONG rid = 0;
    for (ULONG i = 0; i < md.count && !rid; i++)
        if (md.rows[i].len == len && memcmp(md.rows[i].bytes, sig, len) == 0)
            rid = i + 1;
    if (!rid) {
        assert_true(md.count < MAX_ROWS);
        memcpy(md.rows[md.count].bytes, sig, len);
        md.rows[md.count].len = len;
        rid = ++md.count;
    }
    clrie_os_mutex_unlock(&md.lock);
    *token = 0x11000000u | rid;
    return S_OK;
}

static struct IMetaDataImport2Vtbl import_vtbl = {
    CLRIE_IMETADATAIMPORT2_METHODS(FAKE_SLOT_MDI, IMetaDataImport2 *This, This)};
static struct IMetaDataEmit2Vtbl emit_vtbl = {
    CLRIE_IMETADATAEMIT2_METHODS(FAKE_SLOT_MDE, IMetaDataEmit2 *This, This)};

/* A locals signature of one local of a type told apart by n: valuetype <TypeDef n>. */
static size_t one_local(uint8_t *out, ULONG n, bool plus_int32)
{
    size_t len = 0;
    out[len++] = 0x07;
    out[len++] = plus_int32 ? 2 : 1;
    out[len++] = 0x11;
    out[len++] = (uint8_t)(0x80 | ((n << 2) >> 8)); /* TypeDefOrRef coded, two bytes */
    out[len++] = (uint8_t)(n << 2);
    if (plus_int32)
        out[len++] = 0x08;
    return len;
}

static void add_row(ULONG n)
{
    md.rows[md.count].len = (ULONG)one_local(md.rows[md.count].bytes, n, false);
    md.count++;
}

static int setup(void **state)
{
    (void)state;
    import_vtbl.EnumSignatures = mdi_EnumSignatures;
    import_vtbl.CloseEnum = mdi_CloseEnum;
    import_vtbl.GetSigFromToken = mdi_GetSigFromToken;
    emit_vtbl.GetTokenFromSig = mde_GetTokenFromSig;
    memset(&md, 0, sizeof(md));
    md.import.lpVtbl = &import_vtbl;
    md.emit.lpVtbl = &emit_vtbl;
    clrie_os_mutex_init(&md.lock);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    clrie_os_mutex_finish(&md.lock);
    return 0;
}

static struct clrie_pm_types_sig_tokens *map_new(bool with_import)
{
    struct clrie_pm_types_sig_tokens *t = NULL;
    assert_int_equal(
        clrie_pm_types_sig_tokens_new(with_import ? (IMetaDataImport *)(void *)&md.import : NULL,
                                      (IMetaDataEmit *)(void *)&md.emit, &t),
        S_OK);
    return t;
}

static void a_signature_the_module_has_costs_no_runtime_call(void **state)
{
    (void)state;
    for (ULONG n = 1; n <= 600; n++) /* more than one EnumSignatures batch */
        add_row(n);
    struct clrie_pm_types_sig_tokens *t = map_new(true);
    uint8_t sig[8];
    mdSignature token = 0;
    for (ULONG n = 600; n >= 1; n--) {
        size_t len = one_local(sig, n, false);
        assert_int_equal(clrie_pm_types_sig_tokens_get(t, sig, len, &token), S_OK);
        assert_int_equal(token, 0x11000000u | n);
    }
    assert_int_equal(md.token_calls, 0);
    assert_int_equal(md.count, 600);
    clrie_pm_types_sig_tokens_free(t);
}

/* The benchmark's module in small: every method its own locals, each given one more local. The
 * runtime is asked once per new signature, and never again for one it made. */
static void a_new_signature_is_asked_of_the_runtime_once(void **state)
{
    (void)state;
    enum { METHODS = 2000 };
    for (ULONG n = 1; n <= METHODS; n++)
        add_row(n);
    struct clrie_pm_types_sig_tokens *t = map_new(true);
    uint8_t sig[8];
    for (int round = 0; round < 3; round++)
        for (ULONG n = 1; n <= METHODS; n++) {
            size_t len = one_local(sig, n, true);
            mdSignature token = 0;
            assert_int_equal(clrie_pm_types_sig_tokens_get(t, sig, len, &token), S_OK);
            assert_int_equal(token, 0x11000000u | (METHODS + n));
        }
    assert_int_equal(md.token_calls, METHODS);
    assert_int_equal(md.count, 2 * METHODS);
    clrie_pm_types_sig_tokens_free(t);
}

/* Without an importer the module's rows are unknown: the runtime answers for them once each. */
static void without_an_importer_only_committed_signatures_are_known(void **state)
{
    (void)state;
    add_row(7);
    struct clrie_pm_types_sig_tokens *t = map_new(false);
    uint8_t sig[8];
    size_t len = one_local(sig, 7, false);
    mdSignature token = 0;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(clrie_pm_types_sig_tokens_get(t, sig, len, &token), S_OK);
        assert_int_equal(token, 0x11000001u);
    }
    assert_int_equal(md.token_calls, 1);
    clrie_pm_types_sig_tokens_free(t);
}

/* A refusal of the runtime reaches the caller and is not remembered. */
static void a_runtime_failure_is_returned_and_not_remembered(void **state)
{
    (void)state;
    struct clrie_pm_types_sig_tokens *t = map_new(true);
    uint8_t sig[8];
    size_t len = one_local(sig, 3, true);
    mdSignature token = 0;
    md.fail = E_OUTOFMEMORY;
    assert_int_equal(clrie_pm_types_sig_tokens_get(t, sig, len, &token), E_OUTOFMEMORY);
    md.fail = S_OK;
    assert_int_equal(clrie_pm_types_sig_tokens_get(t, sig, len, &token), S_OK);
    assert_int_equal(token, 0x11000001u);
    assert_int_equal(md.token_calls, 1);
    assert_int_equal(clrie_pm_types_sig_tokens_get(t, NULL, len, &token), E_POINTER);
    assert_int_equal(clrie_pm_types_sig_tokens_get(t, sig, 0, &token), E_INVALIDARG);
    clrie_pm_types_sig_tokens_free(t);
}

/* JIT threads commit the same new signatures at once: each gets the token of the row whose blob
 * is its signature, and the module ends with one row per signature. */
struct committer {
    struct clrie_pm_types_sig_tokens *t;
    ULONG first, count, start;
    int wrong;
};

static void commit_all(void *arg)
{
    struct committer *c = arg;
    for (ULONG i = 0; i < c->count; i++) {
        ULONG n = c->first + (c->start + i) % c->count;
        uint8_t sig[8];
        size_t len = one_local(sig, n, true);
        mdSignature token = 0;
        PCCOR_SIGNATURE row = NULL;
        ULONG row_len = 0;
        if (FAILED(clrie_pm_types_sig_tokens_get(c->t, sig, len, &token)) ||
            FAILED(mdi_GetSigFromToken(NULL, token, &row, &row_len)) || row_len != len ||
            memcmp(row, sig, len) != 0)
            c->wrong++;
    }
}

static void concurrent_commits_share_one_row_per_signature(void **state)
{
    (void)state;
    enum { SIGS = 800, THREADS = 4 };
    for (ULONG n = 1; n <= 100; n++)
        add_row(n);
    struct clrie_pm_types_sig_tokens *t = map_new(true);
    struct clrie_os_thread threads[THREADS];
    struct committer c[THREADS];
    for (int i = 0; i < THREADS; i++) {
        c[i] = (struct committer){t, 1, SIGS, (ULONG)i * SIGS / THREADS, 0};
        assert_int_equal(clrie_os_thread_start(&threads[i], commit_all, &c[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        clrie_os_thread_join(&threads[i]);
        assert_int_equal(c[i].wrong, 0);
    }
    assert_int_equal(md.count, 100 + SIGS);
    assert_true(md.token_calls >= SIGS && md.token_calls <= (long)SIGS * THREADS);
    clrie_pm_types_sig_tokens_free(t);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(a_signature_the_module_has_costs_no_runtime_call),
        T(a_new_signature_is_asked_of_the_runtime_once),
        T(without_an_importer_only_committed_signatures_are_known),
        T(a_runtime_failure_is_returned_and_not_remembered),
        T(concurrent_commits_share_one_row_per_signature),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
