/* The profiler manager's entry points: the class factory from many threads at once, managers
 * that are independent of each other, and how a manager answers the runtime before any plugin
 * is involved. The smallest fake runtime (libprofmgr/testing/fake_mask_info.h) stands in here;
 * the real one is exercised by the engine's end-to-end suite (test/dotnet/test_engine.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "clrie/profmgr.h"
#include "fake_mask_info.h"

static const CLSID engine_clsid = CLRIE_CLSID_INSTRUMENTATION_ENGINE_INIT;

static ICorProfilerCallback11 *create_manager(void)
{
    IClassFactory *factory = NULL;
    assert_int_equal(
        clrie_pm_get_class_object(&engine_clsid, &IID_IClassFactory, (void **)&factory), S_OK);
    ICorProfilerCallback11 *callback = NULL;
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2,
                                                     (void **)&callback),
                     S_OK);
    factory->lpVtbl->Release(factory);
    return callback;
}

static void other_classes_and_interfaces_are_refused(void **state)
{
    static const CLSID other = {0x12345678, 0x1234, 0x1234, {1, 2, 3, 4, 5, 6, 7, 8}};
    void *out = &out;
    assert_int_equal(clrie_pm_get_class_object(&other, &IID_IClassFactory, &out),
                     CLASS_E_CLASSNOTAVAILABLE);
    assert_null(out);
    out = &out;
    assert_int_equal(clrie_pm_get_class_object(&engine_clsid, &IID_ICorProfilerInfo, &out),
                     E_NOINTERFACE);
    assert_null(out);
    assert_int_equal(clrie_pm_get_class_object(&engine_clsid, &IID_IClassFactory, NULL), E_POINTER);

    IClassFactory *factory;
    assert_int_equal(clrie_pm_get_class_object(&engine_clsid, &IID_IUnknown, (void **)&factory),
                     S_OK);
    IUnknown *outer = (IUnknown *)(void *)factory;
    out = &out;
    assert_int_equal(
        factory->lpVtbl->CreateInstance(factory, outer, &IID_ICorProfilerCallback2, &out),
        CLASS_E_NOAGGREGATION);
    assert_null(out);
}

static void a_manager_answers_every_callback_version(void **state)
{
    ICorProfilerCallback11 *callback = create_manager();
    const IID *versions[] = {&IID_ICorProfilerCallback,   &IID_ICorProfilerCallback3,
                             &IID_ICorProfilerCallback7,  &IID_ICorProfilerCallback9,
                             &IID_ICorProfilerCallback10, &IID_ICorProfilerCallback11};
    for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
        void *same = NULL;
        assert_int_equal(callback->lpVtbl->QueryInterface(callback, versions[i], &same), S_OK);
        assert_ptr_equal(same, callback);
        callback->lpVtbl->Release(callback);
    }
    void *none = &none;
    assert_int_equal(callback->lpVtbl->QueryInterface(callback, &IID_ICorProfilerInfo, &none),
                     E_NOINTERFACE);
    assert_null(none);
    assert_int_equal(clrie_pm_can_unload_now(), S_FALSE);
    callback->lpVtbl->Release(callback);
}

static void without_configuration_it_attaches_with_an_empty_mask(void **state)
{
    struct fake_mask_info info;
    fake_mask_info_init(&info, 0xdead, 0xbeef);
    ICorProfilerCallback11 *callback = create_manager();
    assert_int_equal(callback->lpVtbl->Initialize(callback, (IUnknown *)(void *)&info), S_OK);
    assert_int_equal(info.set_calls, 1);
    assert_int_equal(info.low, 0);
    assert_int_equal(info.high, 0);

    BOOL notification_only = TRUE;
    assert_int_equal(callback->lpVtbl->LoadAsNotificationOnly(callback, &notification_only), S_OK);
    assert_false(notification_only);
    /* Callbacks the engine does not act on are accepted and go nowhere. */
    assert_int_equal(callback->lpVtbl->JITCompilationStarted(callback, 1, TRUE), S_OK);
    assert_int_equal(callback->lpVtbl->GarbageCollectionFinished(callback), S_OK);
    assert_int_equal(callback->lpVtbl->Shutdown(callback), S_OK);
    callback->lpVtbl->Release(callback);
}

static void attaching_is_declined_not_half_done(void **state)
{
    struct fake_mask_info info;
    fake_mask_info_init(&info, 0, 0);
    ICorProfilerCallback11 *callback = create_manager();
    assert_int_equal(
        callback->lpVtbl->InitializeForAttach(callback, (IUnknown *)(void *)&info, NULL, 0),
        CORPROF_E_PROFILER_CANCEL_ACTIVATION);
    assert_int_equal(info.set_calls, 0);
    callback->lpVtbl->Release(callback);
}

/* A product with its own class ID makes managers directly: each is independent, answers the
 * callback interfaces only and attaches like the engine's. */
static void a_profiler_with_its_own_class_id_gets_independent_managers(void **state)
{
    ICorProfilerCallback11 *first = NULL, *second = NULL;
    assert_int_equal(clrie_pm_profiler_create(&IID_ICorProfilerCallback11, (void **)&first), S_OK);
    assert_int_equal(clrie_pm_profiler_create(&IID_IUnknown, (void **)&second), S_OK);
    assert_non_null(first);
    assert_non_null(second);
    assert_ptr_not_equal(first, second);
    assert_int_equal(clrie_pm_can_unload_now(), S_FALSE);

    void *none = &none;
    assert_int_equal(clrie_pm_profiler_create(&IID_ICorProfilerInfo, &none), E_NOINTERFACE);
    assert_null(none);
    assert_int_equal(clrie_pm_profiler_create(NULL, &none), E_POINTER);
    assert_int_equal(clrie_pm_profiler_create(&IID_IUnknown, NULL), E_POINTER);

    struct fake_mask_info info;
    fake_mask_info_init(&info, 0xdead, 0);
    assert_int_equal(first->lpVtbl->Initialize(first, (IUnknown *)(void *)&info), S_OK);
    assert_int_equal(info.set_calls, 1);
    assert_int_equal(info.low, 0);
    assert_int_equal(first->lpVtbl->Shutdown(first), S_OK);
    first->lpVtbl->Release(first);
    second->lpVtbl->Release(second);
}

#define RACERS 16

struct racer {
    struct clrie_os_barrier *barrier;
    ICorProfilerCallback11 *callback;
    struct fake_mask_info info;
};

static void race(void *arg)
{
    struct racer *r = arg;
    clrie_os_barrier_wait(r->barrier);
    IClassFactory *factory = NULL;
    if (clrie_pm_get_class_object(&engine_clsid, &IID_IClassFactory, (void **)&factory) != S_OK)
        return;
    factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11,
                                    (void **)&r->callback);
    if (r->callback &&
        r->callback->lpVtbl->Initialize(r->callback, (IUnknown *)(void *)&r->info) != S_OK) {
        r->callback->lpVtbl->Release(r->callback);
        r->callback = NULL;
    }
}

static void concurrent_runtimes_each_get_their_own_manager(void **state)
{
    struct clrie_os_barrier barrier;
    clrie_os_barrier_init(&barrier, RACERS);
    struct racer racers[RACERS];
    struct clrie_os_thread threads[RACERS];
    for (int i = 0; i < RACERS; i++) {
        racers[i] = (struct racer){.barrier = &barrier};
        fake_mask_info_init(&racers[i].info, 0, 0);
        clrie_os_thread_start(&threads[i], race, &racers[i]);
    }
    for (int i = 0; i < RACERS; i++)
        clrie_os_thread_join(&threads[i]);
    for (int i = 0; i < RACERS; i++) {
        assert_non_null(racers[i].callback);
        /* each manager talked to its own runtime only */
        assert_int_equal(racers[i].info.set_calls, 1);
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(racers[i].callback, racers[j].callback);
    }
    for (int i = 0; i < RACERS; i++) {
        racers[i].callback->lpVtbl->Shutdown(racers[i].callback);
        racers[i].callback->lpVtbl->Release(racers[i].callback);
    }
    clrie_os_barrier_finish(&barrier);
}

static void the_engine_logger_and_strings_work_without_a_manager(void **state)
{
    IProfilerManagerLogging *logger = NULL;
    assert_int_equal(clrie_pm_get_logger(&logger), S_OK);
    assert_non_null(logger);
    LoggingFlags flags;
    assert_int_equal(logger->lpVtbl->GetLoggingFlags(logger, &flags), S_OK);
    assert_true(flags & LoggingFlags_Errors); /* errors are always on */
    assert_int_equal(logger->lpVtbl->LogMessage(logger, u"a message nobody asked for"), S_OK);
    assert_int_equal(logger->lpVtbl->LogError(logger, NULL), E_POINTER);
    clrie_pm_free_string(NULL);
    assert_string_equal(clrie_pm_version(), CLRIE_EXPECTED_VERSION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(other_classes_and_interfaces_are_refused),
        cmocka_unit_test(a_manager_answers_every_callback_version),
        cmocka_unit_test(without_configuration_it_attaches_with_an_empty_mask),
        cmocka_unit_test(attaching_is_declined_not_half_done),
        cmocka_unit_test(a_profiler_with_its_own_class_id_gets_independent_managers),
        cmocka_unit_test(concurrent_runtimes_each_get_their_own_manager),
        cmocka_unit_test(the_engine_logger_and_strings_work_without_a_manager),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
