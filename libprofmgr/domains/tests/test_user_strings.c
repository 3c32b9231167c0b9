/* The #US index the verifier asks for every ldstr (user_strings.h), over a fake IMetaDataTables
 * whose heap is a byte array laid out as ECMA-335 II.24.2.4 lays it out: a compressed length,
 * then that many bytes. Strings can be appended while the index is in use, as a plugin's
 * IMetaDataEmit::DefineUserString does; the fake counts the runtime calls a question costs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "user_strings.h"

#define HEAP_CAP (1u << 20)

struct fake_tables {
    IMetaDataTables iface;
    struct clrie_os_mutex lock; /* the heap grows while other threads read it */
    uint8_t heap[HEAP_CAP];
    ULONG size;
    atomic_long next_calls;
};

static struct fake_tables *fake_of(IMetaDataTables *This)
{
    return (struct fake_tables *)(void *)This;
}

static HRESULT STDMETHODCALLTYPE ft_QueryInterface(IMetaDataTables *This, REFIID riid, void **ppv)
{
    (void)This, (void)riid;
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE ft_AddRef(IMetaDataTables *This)
{
    (void)This;
    return 1;
}

static ULONG STDMETHODCALLTYPE ft_Release(IMetaDataTables *This)
{
    (void)This;
    return 1;
}

static HRESULT STDMETHODCALLTYPE ft_GetUserStringHeapSize(IMetaDataTables *This, ULONG *size)
{
    struct fake_tables *f = fake_of(This);
    clrie_os_mutex_lock(&f->lock);
    *size = f->size;
    clrie_os_mutex_unlock(&f->lock);
    return S_OK;
}

/* The entry after the one at `at`, as the runtime answers: S_FALSE at the end of the heap. */
static HRESULT STDMETHODCALLTYPE ft_GetNextUserString(IMetaDataTables *This, ULONG at, ULONG *next)
{
    struct fake_tables *f = fake_of(This);
    atomic_fetch_add(&f->next_calls, 1);
    clrie_os_mutex_lock(&f->lock);
    HRESULT hr = S_FALSE;
    if (at < f->size) {
        const uint8_t *p = f->heap + at;
        ULONG len, header;
        if (p[0] < 0x80)
            len = p[0], header = 1;
        else
            len = ((ULONG)(p[0] & 0x3F) << 8) | p[1], header = 2;
        ULONG after = at + header + len;
        if (after <= f->size) {
            *next = after;
            hr = S_OK;
        }
    }
    clrie_os_mutex_unlock(&f->lock);
    return hr;
}

static const struct IMetaDataTablesVtbl ft_vtbl = {
    .QueryInterface = ft_QueryInterface,
    .AddRef = ft_AddRef,
    .Release = ft_Release,
    .GetUserStringHeapSize = ft_GetUserStringHeapSize,
    .GetNextUserString = ft_GetNextUserString,
};

static struct fake_tables *fake_new(void)
{
    struct fake_tables *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->iface.lpVtbl = &ft_vtbl;
    clrie_os_mutex_init(&f->lock);
    f->heap[0] = 0; /* the empty entry every #US heap starts with */
    f->size = 1;
    return f;
}

static void fake_free(struct fake_tables *f)
{
    clrie_os_mutex_finish(&f->lock);
    free(f);
}

/* Appends a string of `chars` UTF-16 characters and returns its offset (its token's row). */
static ULONG define_string(struct fake_tables *f, ULONG chars)
{
    ULONG len = chars * 2 + 1;
    clrie_os_mutex_lock(&f->lock);
    ULONG at = f->size;
    ULONG header = len < 0x80 ? 1 : 2;
    assert_true(at + header + len <= HEAP_CAP);
    if (header == 1) {
        f->heap[at] = (uint8_t)len;
    } else {
        f->heap[at] = (uint8_t)(0x80 | (len >> 8));
        f->heap[at + 1] = (uint8_t)len;
    }
    memset(f->heap + at + header, 'a', len);
    f->size = at + header + len;
    clrie_os_mutex_unlock(&f->lock);
    return at;
}

static int starts(struct clrie_pm_user_strings *us, struct fake_tables *f, ULONG offset)
{
    return clrie_pm_user_strings_starts(us, &f->iface, offset);
}

static void entry_starts_are_strings_and_offsets_inside_one_are_not(void **state)
{
    (void)state;
    struct fake_tables *f = fake_new();
    ULONG a = define_string(f, 3), b = define_string(f, 100), c = define_string(f, 1);
    struct clrie_pm_user_strings us;
    clrie_pm_user_strings_init(&us);
    assert_int_equal(starts(&us, f, a), 1);
    assert_int_equal(starts(&us, f, b), 1);
    assert_int_equal(starts(&us, f, c), 1);
    assert_int_equal(starts(&us, f, 0), 1);
    assert_int_equal(starts(&us, f, a + 1), 0); /* the first character of "aaa" */
    assert_int_equal(starts(&us, f, b + 1), 0); /* the second byte of a two-byte length */
    assert_int_equal(starts(&us, f, b + 150), 0);
    assert_int_equal(starts(&us, f, f->size), 0); /* past the heap */
    assert_int_equal(starts(&us, f, 0x00FFFFFF), 0);
    clrie_pm_user_strings_finish(&us);
    fake_free(f);
}

/* Every ldstr of every method asks: the heap is walked once per module, not once per question
 * (the walk from offset 0 for each made instrumenting a module quadratic). */
static void the_heap_is_walked_once_however_many_questions(void **state)
{
    (void)state;
    struct fake_tables *f = fake_new();
    enum { N = 5000 };
    static ULONG offsets[N];
    for (int i = 0; i < N; i++)
        offsets[i] = define_string(f, 1 + (ULONG)i % 70);
    struct clrie_pm_user_strings us;
    clrie_pm_user_strings_init(&us);
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < N; i++) {
            assert_int_equal(starts(&us, f, offsets[i]), 1);
            assert_int_equal(starts(&us, f, offsets[i] + 2), 0);
        }
    /* One call per entry and one to find the end. */
    assert_true(atomic_load(&f->next_calls) <= N + 2);
    clrie_pm_user_strings_finish(&us);
    fake_free(f);
}

/* A plugin's DefineUserString after the walk: its string is accepted (and the middle of it is
 * not), and only the new entries are walked. */
static void strings_defined_after_the_walk_are_found(void **state)
{
    (void)state;
    struct fake_tables *f = fake_new();
    for (int i = 0; i < 1000; i++)
        define_string(f, 5);
    struct clrie_pm_user_strings us;
    clrie_pm_user_strings_init(&us);
    assert_int_equal(starts(&us, f, 1), 1);
    long after_first_walk = atomic_load(&f->next_calls);
    for (int i = 0; i < 2000; i++) { /* also outgrows the first array */
        ULONG fresh = define_string(f, 2);
        assert_int_equal(starts(&us, f, fresh + 1), 0);
        assert_int_equal(starts(&us, f, fresh), 1);
        assert_int_equal(starts(&us, f, 1), 1);
    }
    /* Each new string costs a walk of itself and one call that finds the end, not a walk of the
     * whole heap. */
    assert_true(atomic_load(&f->next_calls) - after_first_walk <= 2 * 2000 + 2);
    clrie_pm_user_strings_finish(&us);
    fake_free(f);
}

/* The runtime cannot walk the heap: the caller hears "unknown", not "no". */
static HRESULT STDMETHODCALLTYPE ft_no_walk(IMetaDataTables *This, ULONG at, ULONG *next)
{
    (void)This, (void)at, (void)next;
    return E_NOTIMPL;
}

static void a_heap_that_cannot_be_walked_is_unknown(void **state)
{
    (void)state;
    struct fake_tables *f = fake_new();
    define_string(f, 4);
    struct IMetaDataTablesVtbl vtbl = ft_vtbl;
    vtbl.GetNextUserString = ft_no_walk;
    f->iface.lpVtbl = &vtbl;
    struct clrie_pm_user_strings us;
    clrie_pm_user_strings_init(&us);
    assert_int_equal(starts(&us, f, 1), -ENOENT);
    assert_int_equal(starts(&us, f, 2), -ENOENT);
    clrie_pm_user_strings_finish(&us);
    f->iface.lpVtbl = &ft_vtbl;
    fake_free(f);
}

/* JIT threads ask concurrently while a plugin defines strings: every answer is right. */
struct asker {
    struct clrie_pm_user_strings *us;
    struct fake_tables *f;
    const ULONG *offsets;
    atomic_int *published; /* how many of offsets are defined */
    int wrong;
};

static void ask(void *arg)
{
    struct asker *a = arg;
    for (int round = 0; round < 20; round++) {
        int known = atomic_load(a->published);
        for (int i = 0; i < known; i++) {
            a->wrong += starts(a->us, a->f, a->offsets[i]) != 1;
            a->wrong += starts(a->us, a->f, a->offsets[i] + 1) != 0;
        }
    }
}

static void concurrent_questions_while_strings_are_defined(void **state)
{
    (void)state;
    struct fake_tables *f = fake_new();
    enum { N = 3000, THREADS = 4 };
    static ULONG offsets[N];
    atomic_int published = 0;
    for (int i = 0; i < N / 2; i++)
        offsets[i] = define_string(f, 3);
    atomic_store(&published, N / 2);
    struct clrie_pm_user_strings us;
    clrie_pm_user_strings_init(&us);
    struct clrie_os_thread threads[THREADS];
    struct asker askers[THREADS];
    for (int t = 0; t < THREADS; t++) {
        askers[t] = (struct asker){&us, f, offsets, &published, 0};
        assert_int_equal(clrie_os_thread_start(&threads[t], ask, &askers[t]), 0);
    }
    for (int i = N / 2; i < N; i++) {
        offsets[i] = define_string(f, 3);
        atomic_store(&published, i + 1);
    }
    for (int t = 0; t < THREADS; t++) {
        clrie_os_thread_join(&threads[t]);
        assert_int_equal(askers[t].wrong, 0);
    }
    clrie_pm_user_strings_finish(&us);
    fake_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entry_starts_are_strings_and_offsets_inside_one_are_not),
        cmocka_unit_test(the_heap_is_walked_once_however_many_questions),
        cmocka_unit_test(strings_defined_after_the_walk_are_found),
        cmocka_unit_test(a_heap_that_cannot_be_walked_is_unknown),
        cmocka_unit_test(concurrent_questions_while_strings_are_defined),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
