/* The snapshot enumerator (enum.h) every IEnumXxx of the engine is: CLRIE's Next/Skip/Reset/
 * Clone/GetCount contract, QueryInterface, and that every reference it takes is given back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "enum.h"

/* An IType that only counts its references: what the enumerator hands out. */
struct fake {
    IType iface;
    long refs;
};

static struct fake *fake_of(IType *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct fake, iface);
}

static HRESULT STDMETHODCALLTYPE fake_QueryInterface(IType *This, REFIID riid, void **ppv)
{
    (void)This;
    (void)riid;
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE fake_AddRef(IType *This)
{
    return (ULONG)++fake_of(This)->refs;
}

static ULONG STDMETHODCALLTYPE fake_Release(IType *This)
{
    return (ULONG)--fake_of(This)->refs;
}

static const struct ITypeVtbl fake_vtbl = {
    .QueryInterface = fake_QueryInterface,
    .AddRef = fake_AddRef,
    .Release = fake_Release,
};

/* Any counted object will do as an owner or a stored data item. */
static IUnknown *unknown_of(struct fake *f)
{
    return (IUnknown *)(void *)&f->iface;
}

enum { N = 3 };

struct fixture {
    struct fake items[N];
    IType *ptrs[N];
    IEnumTypes *e;
};

static int setup(void **state)
{
    static struct fixture f;
    for (int i = 0; i < N; i++) {
        f.items[i] = (struct fake){.iface.lpVtbl = &fake_vtbl, .refs = 1};
        f.ptrs[i] = &f.items[i].iface;
    }
    void *e = NULL;
    assert_int_equal(clrie_pm_enum_from_array(&IID_IEnumTypes, f.ptrs, N, NULL, 0, &e), S_OK);
    f.e = e;
    for (int i = 0; i < N; i++)
        assert_int_equal(f.items[i].refs, 2); /* the caller's and the snapshot's */
    *state = &f;
    return 0;
}

/* Releasing the enumerator gives back the snapshot's references: only the test's remain. */
static int teardown(void **state)
{
    struct fixture *f = *state;
    if (f->e)
        assert_int_equal(f->e->lpVtbl->Release(f->e), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(f->items[i].refs, 1);
    return 0;
}

static void release_all(IType **got, ULONG n)
{
    for (ULONG i = 0; i < n; i++)
        got[i]->lpVtbl->Release(got[i]);
}

static void next_returns_items_in_order_and_s_false_when_fewer_remain(void **state)
{
    struct fixture *f = *state;
    IEnumTypes *e = f->e;
    IType *got[5];
    ULONG fetched = 99;

    assert_int_equal(e->lpVtbl->Next(e, 2, got, &fetched), S_OK);
    assert_int_equal(fetched, 2);
    assert_ptr_equal(got[0], f->ptrs[0]);
    assert_ptr_equal(got[1], f->ptrs[1]);
    assert_int_equal(f->items[0].refs, 3); /* one more for the caller of Next */
    release_all(got, fetched);

    /* celt beyond what remains: the rest, S_FALSE, and the slots not filled are NULL. */
    for (int i = 0; i < 5; i++)
        got[i] = f->ptrs[0];
    assert_int_equal(e->lpVtbl->Next(e, 5, got, &fetched), S_FALSE);
    assert_int_equal(fetched, 1);
    assert_ptr_equal(got[0], f->ptrs[2]);
    for (int i = 1; i < 5; i++)
        assert_null(got[i]);
    release_all(got, fetched);

    assert_int_equal(e->lpVtbl->Next(e, 1, got, &fetched), S_FALSE);
    assert_int_equal(fetched, 0);
    assert_null(got[0]);

    DWORD count = 0;
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, N); /* the total, wherever the cursor is */
}

static void skip_past_the_end_stops_there_with_s_false(void **state)
{
    struct fixture *f = *state;
    IEnumTypes *e = f->e;
    IType *got[1];
    ULONG fetched;

    assert_int_equal(e->lpVtbl->Skip(e, 0), S_OK);
    assert_int_equal(e->lpVtbl->Skip(e, 2), S_OK);
    assert_int_equal(e->lpVtbl->Skip(e, 5), S_FALSE);
    assert_int_equal(e->lpVtbl->Next(e, 1, got, &fetched), S_FALSE);
    assert_int_equal(fetched, 0);
    assert_int_equal(e->lpVtbl->Skip(e, 1), S_FALSE);

    assert_int_equal(e->lpVtbl->Reset(e), S_OK);
    assert_int_equal(e->lpVtbl->Next(e, 1, got, &fetched), S_OK);
    assert_ptr_equal(got[0], f->ptrs[0]);
    release_all(got, fetched);
}

static void clone_starts_at_the_position_and_moves_on_its_own(void **state)
{
    struct fixture *f = *state;
    IEnumTypes *e = f->e;
    IType *got[N];
    ULONG fetched;

    assert_int_equal(e->lpVtbl->Skip(e, 1), S_OK);
    IEnumTypes *clone = NULL;
    assert_int_equal(e->lpVtbl->Clone(e, &clone), S_OK);
    assert_non_null(clone);
    assert_ptr_not_equal(clone, e);
    assert_int_equal(f->items[0].refs, 3); /* the clone's own snapshot */

    assert_int_equal(clone->lpVtbl->Next(clone, N, got, &fetched), S_FALSE);
    assert_int_equal(fetched, 2);
    assert_ptr_equal(got[0], f->ptrs[1]);
    assert_ptr_equal(got[1], f->ptrs[2]);
    release_all(got, fetched);

    /* The original did not move with the clone. */
    assert_int_equal(e->lpVtbl->Next(e, 1, got, &fetched), S_OK);
    assert_ptr_equal(got[0], f->ptrs[1]);
    release_all(got, fetched);

    DWORD count = 0;
    assert_int_equal(clone->lpVtbl->GetCount(clone, &count), S_OK);
    assert_int_equal(count, N);
    assert_int_equal(clone->lpVtbl->Release(clone), 0);
    assert_int_equal(f->items[0].refs, 2);
}

static void null_arguments_are_refused(void **state)
{
    struct fixture *f = *state;
    IEnumTypes *e = f->e;
    IType *got[2];
    ULONG fetched = 99;

    /* fetched may be NULL only when asking for one item. */
    assert_int_equal(e->lpVtbl->Next(e, 2, got, NULL), E_POINTER);
    assert_int_equal(e->lpVtbl->Next(e, 1, got, NULL), S_OK);
    assert_ptr_equal(got[0], f->ptrs[0]);
    release_all(got, 1);
    assert_int_equal(e->lpVtbl->Next(e, 1, NULL, &fetched), E_POINTER);
    assert_int_equal(fetched, 0);
    assert_int_equal(e->lpVtbl->Next(e, 0, NULL, &fetched), S_OK);
    assert_int_equal(fetched, 0);

    assert_int_equal(e->lpVtbl->GetCount(e, NULL), E_POINTER);
    assert_int_equal(e->lpVtbl->Clone(e, NULL), E_POINTER);
    void *p = e;
    assert_int_equal(e->lpVtbl->QueryInterface(e, NULL, &p), E_POINTER);
    assert_null(p);
    assert_int_equal(e->lpVtbl->QueryInterface(e, &IID_IUnknown, NULL), E_POINTER);

    assert_int_equal(clrie_pm_enum_from_array(&IID_IEnumTypes, f->ptrs, N, NULL, 0, NULL),
                     E_POINTER);
    p = e;
    assert_int_equal(clrie_pm_enum_from_array(&IID_IType, f->ptrs, N, NULL, 0, &p), E_INVALIDARG);
    assert_null(p);
    assert_null(clrie_pm_enum_new(&IID_IType, 1, NULL, 0));
    assert_null(clrie_pm_enum_new(NULL, 1, NULL, 0));
}

static void query_interface_answers_the_iid_it_was_made_for(void **state)
{
    (void)state;
    static const IID *const iids[] = {
        &IID_IEnumModuleInfo,
        &IID_IEnumAssemblyInfo,
        &IID_IEnumAppDomainInfo,
        &IID_IEnumInstructions,
        &IID_IEnumExceptionClauses,
        &IID_IEnumTypes,
        &IID_IEnumMethodParameters,
        &IID_IEnumMethodLocals,
        &IID_IEnumInstrumentationMethodSettings,
    };
    enum { KINDS = sizeof(iids) / sizeof(iids[0]) };
    for (size_t i = 0; i < KINDS; i++) {
        void *e = NULL;
        assert_int_equal(clrie_pm_enum_from_array(iids[i], NULL, 0, NULL, 0, &e), S_OK);
        IUnknown *unknown = e;
        void *p = NULL;
        for (size_t j = 0; j < KINDS; j++) {
            HRESULT hr = unknown->lpVtbl->QueryInterface(unknown, iids[j], &p);
            assert_int_equal(hr, i == j ? S_OK : E_NOINTERFACE);
            if (i == j) {
                assert_ptr_equal(p, e);
                unknown->lpVtbl->Release(unknown);
            }
        }
        assert_int_equal(unknown->lpVtbl->QueryInterface(unknown, &IID_IUnknown, &p), S_OK);
        assert_ptr_equal(p, e);
        unknown->lpVtbl->Release(unknown);
        assert_int_equal(unknown->lpVtbl->QueryInterface(unknown, &IID_IDataContainer, &p),
                         E_NOINTERFACE);
        assert_null(p);
        assert_int_equal(unknown->lpVtbl->Release(unknown), 0);
    }
}

static void data_container_is_answered_when_asked_for(void **state)
{
    (void)state;
    void *e = NULL;
    assert_int_equal(clrie_pm_enum_from_array(&IID_IEnumMethodLocals, NULL, 0, NULL,
                                              CLRIE_PM_ENUM_DATA_CONTAINER, &e),
                     S_OK);
    IUnknown *unknown = e;
    IDataContainer *data = NULL;
    assert_int_equal(unknown->lpVtbl->QueryInterface(unknown, &IID_IDataContainer, (void **)&data),
                     S_OK);
    assert_non_null(data);

    /* An item stored on it is released with the enumerator. */
    struct fake item = {.iface.lpVtbl = &fake_vtbl, .refs = 1};
    static const GUID component = {1, 2, 3, {4, 5, 6, 7, 8, 9, 10, 11}};
    assert_int_equal(data->lpVtbl->SetDataItem(data, &component, &component, unknown_of(&item)),
                     S_OK);
    assert_int_equal(item.refs, 2);
    /* Back to the enumerator through the container, then let both references go. */
    void *back = NULL;
    assert_int_equal(data->lpVtbl->QueryInterface(data, &IID_IEnumMethodLocals, &back), S_OK);
    assert_ptr_equal(back, e);
    unknown->lpVtbl->Release(unknown);
    data->lpVtbl->Release(data);
    assert_int_equal(unknown->lpVtbl->Release(unknown), 0);
    assert_int_equal(item.refs, 1);
}

static void owner_is_held_until_the_last_clone_dies(void **state)
{
    struct fixture *f = *state;
    struct fake owner = {.iface.lpVtbl = &fake_vtbl, .refs = 1};
    void *p = NULL;
    assert_int_equal(
        clrie_pm_enum_from_array(&IID_IEnumInstructions, f->ptrs, N, unknown_of(&owner), 0, &p),
        S_OK);
    IEnumInstructions *e = p;
    assert_int_equal(owner.refs, 2);
    IEnumInstructions *clone = NULL;
    assert_int_equal(e->lpVtbl->Clone(e, &clone), S_OK);
    assert_int_equal(owner.refs, 3);
    assert_int_equal(e->lpVtbl->Release(e), 0);
    assert_int_equal(owner.refs, 2);
    assert_int_equal(f->items[0].refs, 3); /* fixture enumerator, clone, test */
    assert_int_equal(clone->lpVtbl->Release(clone), 0);
    assert_int_equal(owner.refs, 1);
}

static void two_step_build_takes_up_to_its_capacity(void **state)
{
    struct fixture *f = *state;
    struct clrie_pm_enum *b = clrie_pm_enum_new(&IID_IEnumTypes, 2, NULL, 0);
    assert_non_null(b);
    for (int i = 0; i < N; i++)
        clrie_pm_enum_add(b, unknown_of(&f->items[i]));
    assert_int_equal(f->items[2].refs, 2); /* past the capacity: not taken */
    IEnumTypes *e = clrie_pm_enum_iface(b);
    DWORD count = 0;
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, 2);
    assert_int_equal(e->lpVtbl->AddRef(e), 2);
    assert_int_equal(e->lpVtbl->Release(e), 1);
    assert_int_equal(e->lpVtbl->Release(e), 0);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(next_returns_items_in_order_and_s_false_when_fewer_remain),
        T(skip_past_the_end_stops_there_with_s_false),
        T(clone_starts_at_the_position_and_moves_on_its_own),
        T(null_arguments_are_refused),
        T(query_interface_answers_the_iid_it_was_made_for),
        T(data_container_is_answered_when_asked_for),
        T(owner_is_held_until_the_last_clone_dies),
        T(two_step_build_takes_up_to_its_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
