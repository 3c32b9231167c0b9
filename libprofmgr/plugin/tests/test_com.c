/* The COM object base: what an object made with it answers, and how its count behaves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "clrie/plugin.h"

/* An object with two interfaces, IDataContainer standing in for any second one. */
struct thing {
    IProfilerStringManager strings;
    IDataContainer data;
    struct clrie_plugin_com com;
    int *destroyed;
    int *surplus;
};

static void thing_destroy(void *object)
{
    struct thing *t = object;
    ++*t->destroyed;
    free(t);
}

static void thing_surplus(void *object)
{
    struct thing *t = object;
    ++*t->surplus;
}

static const struct clrie_plugin_com_iface thing_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerStringManager, struct thing, strings),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct thing, data),
};

static const struct clrie_plugin_com_class thing_class = {
    .name = "thing",
    .ifaces = thing_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(thing_ifaces),
    .com_offset = offsetof(struct thing, com),
    .destroy = thing_destroy,
    .surplus_release = thing_surplus,
};

CLRIE_PLUGIN_COM_IUNKNOWN(strings, IProfilerStringManager, struct thing, strings, com)
CLRIE_PLUGIN_COM_IUNKNOWN(data, IDataContainer, struct thing, data, com)

static const struct IProfilerStringManagerVtbl strings_vtbl = {CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(strings)};
static const struct IDataContainerVtbl data_vtbl = {CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(data)};

static struct thing *thing_new(int *destroyed, int *surplus)
{
    struct thing *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->strings.lpVtbl = &strings_vtbl;
    t->data.lpVtbl = &data_vtbl;
    t->destroyed = destroyed;
    t->surplus = surplus;
    clrie_plugin_com_init(&t->com, &thing_class);
    return t;
}

static void every_interface_of_the_table_is_answered_with_its_own_pointer(void **state)
{
    (void)state;
    int destroyed = 0, surplus = 0;
    struct thing *t = thing_new(&destroyed, &surplus);
    void *out = NULL;
    assert_int_equal(t->data.lpVtbl->QueryInterface(&t->data, &IID_IProfilerStringManager, &out),
                     S_OK);
    assert_ptr_equal(out, &t->strings);
    assert_int_equal(t->strings.lpVtbl->QueryInterface(&t->strings, &IID_IDataContainer, &out),
                     S_OK);
    assert_ptr_equal(out, &t->data);
    /* IUnknown is the first interface, from either one. */
    assert_int_equal(t->data.lpVtbl->QueryInterface(&t->data, &IID_IUnknown, &out), S_OK);
    assert_ptr_equal(out, &t->strings);
    assert_int_equal(clrie_plugin_com_refs(&t->com), 4);
    for (int i = 0; i < 3; i++)
        t->strings.lpVtbl->Release(&t->strings);
    assert_int_equal(destroyed, 0);
    assert_int_equal(t->data.lpVtbl->Release(&t->data), 0);
    assert_int_equal(destroyed, 1);
    assert_int_equal(surplus, 0);
}

static void an_interface_not_in_the_table_is_refused(void **state)
{
    (void)state;
    int destroyed = 0, surplus = 0;
    struct thing *t = thing_new(&destroyed, &surplus);
    void *out = &out;
    assert_int_equal(t->strings.lpVtbl->QueryInterface(&t->strings, &IID_IModuleInfo, &out),
                     E_NOINTERFACE);
    assert_null(out);
    assert_int_equal(t->strings.lpVtbl->QueryInterface(&t->strings, NULL, &out), E_POINTER);
    assert_int_equal(t->strings.lpVtbl->QueryInterface(&t->strings, &IID_IUnknown, NULL),
                     E_POINTER);
    assert_int_equal(clrie_plugin_com_refs(&t->com), 1);
    assert_int_equal(t->strings.lpVtbl->AddRef(&t->strings), 2);
    assert_int_equal(t->strings.lpVtbl->Release(&t->strings), 1);
    assert_int_equal(t->strings.lpVtbl->Release(&t->strings), 0);
    assert_int_equal(destroyed, 1);
}

/* A surplus Release on an object kept alive by its owner's storage (not freed by destroy):
 * the count stays at zero and destroy does not run twice. */
struct kept {
    IDataContainer data;
    struct clrie_plugin_com com;
    int destroyed;
    int surplus;
};

static void kept_destroy(void *object)
{
    ((struct kept *)object)->destroyed++;
}

static void kept_surplus(void *object)
{
    ((struct kept *)object)->surplus++;
}

static const struct clrie_plugin_com_iface kept_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct kept, data),
};

static const struct clrie_plugin_com_class kept_class = {
    .name = "kept",
    .ifaces = kept_ifaces,
    .iface_count = 1,
    .com_offset = offsetof(struct kept, com),
    .destroy = kept_destroy,
    .surplus_release = kept_surplus,
};

static void a_surplus_release_neither_underflows_nor_destroys_again(void **state)
{
    (void)state;
    struct kept k = {0};
    clrie_plugin_com_init(&k.com, &kept_class);
    assert_int_equal(clrie_plugin_com_release(&k.com), 0);
    assert_int_equal(k.destroyed, 1);
    assert_int_equal(clrie_plugin_com_release(&k.com), 0);
    assert_int_equal(clrie_plugin_com_release(&k.com), 0);
    assert_int_equal(k.destroyed, 1);
    assert_int_equal(k.surplus, 2);
    assert_int_equal(clrie_plugin_com_refs(&k.com), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_interface_of_the_table_is_answered_with_its_own_pointer),
        cmocka_unit_test(an_interface_not_in_the_table_is_refused),
        cmocka_unit_test(a_surplus_release_neither_underflows_nor_destroys_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
