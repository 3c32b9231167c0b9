/* clrie/os/thread.h with real threads: a mutex excludes, a recursive one re-enters, readers
 * share a read-write lock and a writer waits for them, a timed wait ends at its deadline or at
 * a signal, once-init runs once whatever number of threads race to it, a detached thread
 * runs, a sleep lasts as long as asked. The threads never call cmocka (its checks leave a test by longjmp): they record what
 * they saw, and the test checks it after joining them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clrie/os/thread.h"

#define THREADS 8

/* How long a test waits for what must happen before it calls it missing. */
#define PATIENCE_MS 10000

/* Waits until *value reaches at least want, or PATIENCE_MS have passed: whether it did. */
static bool wait_for(atomic_int *value, int want)
{
    uint64_t deadline = clrie_os_monotonic_ms() + PATIENCE_MS;
    while (atomic_load(value) < want) {
        if (clrie_os_monotonic_ms() >= deadline)
            return false;
        clrie_os_sleep_ms(1);
    }
    return true;
}

/* ---- mutex ---- */

#define ROUNDS 5000

static struct clrie_os_mutex counter_lock = CLRIE_OS_MUTEX_INIT;
static long counter;        /* under counter_lock, on purpose not atomic */
static atomic_int inside;   /* threads between lock and unlock */
static atomic_int overlaps; /* times a thread found another one inside */

static void count(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        clrie_os_mutex_lock(&counter_lock);
        if (atomic_fetch_add(&inside, 1) != 0)
            atomic_fetch_add(&overlaps, 1);
        counter++;
        atomic_fetch_sub(&inside, 1);
        clrie_os_mutex_unlock(&counter_lock);
    }
}

static void a_mutex_lets_one_thread_in_at_a_time(void **state)
{
    (void)state;
    struct clrie_os_thread threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(clrie_os_thread_start(&threads[i], count, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        clrie_os_thread_join(&threads[i]);
    assert_int_equal(counter, (long)THREADS * ROUNDS);
    assert_int_equal(atomic_load(&overlaps), 0);
}

/* ---- recursive mutex ---- */

struct locker {
    struct clrie_os_recursive_mutex *mutex;
    atomic_int started, got_it;
};

static void lock_and_leave(void *arg)
{
    struct locker *l = arg;
    atomic_store(&l->started, 1);
    clrie_os_recursive_mutex_lock(l->mutex);
    atomic_store(&l->got_it, 1);
    clrie_os_recursive_mutex_unlock(l->mutex);
}

static void a_recursive_mutex_is_held_until_unlocked_as_often_as_locked(void **state)
{
    (void)state;
    struct clrie_os_recursive_mutex mutex;
    clrie_os_recursive_mutex_init(&mutex);
    clrie_os_recursive_mutex_lock(&mutex);
    clrie_os_recursive_mutex_lock(&mutex); /* again, from the thread that holds it */
    clrie_os_recursive_mutex_unlock(&mutex);

    struct locker l = {.mutex = &mutex};
    struct clrie_os_thread other;
    assert_int_equal(clrie_os_thread_start(&other, lock_and_leave, &l), 0);
    assert_true(wait_for(&l.started, 1));
    clrie_os_sleep_ms(50);
    assert_int_equal(atomic_load(&l.got_it), 0); /* still held once */
    clrie_os_recursive_mutex_unlock(&mutex);
    clrie_os_thread_join(&other);
    assert_int_equal(atomic_load(&l.got_it), 1);
    clrie_os_recursive_mutex_finish(&mutex);
}

/* ---- read-write lock ---- */

static struct clrie_os_rwlock table_lock = CLRIE_OS_RWLOCK_INIT;
static atomic_int readers_in, readers_met;

static void read_together(void *arg)
{
    (void)arg;
    clrie_os_rwlock_read_lock(&table_lock);
    atomic_fetch_add(&readers_in, 1);
    if (wait_for(&readers_in, THREADS)) /* every reader inside at once */
        atomic_fetch_add(&readers_met, 1);
    clrie_os_rwlock_read_unlock(&table_lock);
}

static atomic_int writer_started, writer_done;

static void write_once(void *arg)
{
    (void)arg;
    atomic_store(&writer_started, 1);
    clrie_os_rwlock_write_lock(&table_lock);
    atomic_store(&writer_done, 1);
    clrie_os_rwlock_write_unlock(&table_lock);
}

static void readers_share_a_rwlock_and_a_writer_waits_for_them(void **state)
{
    (void)state;
    struct clrie_os_thread threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(clrie_os_thread_start(&threads[i], read_together, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        clrie_os_thread_join(&threads[i]);
    assert_int_equal(atomic_load(&readers_met), THREADS);

    clrie_os_rwlock_read_lock(&table_lock);
    struct clrie_os_thread writer;
    assert_int_equal(clrie_os_thread_start(&writer, write_once, NULL), 0);
    assert_true(wait_for(&writer_started, 1));
    clrie_os_sleep_ms(50);
    assert_int_equal(atomic_load(&writer_done), 0);
    clrie_os_rwlock_read_unlock(&table_lock);
    clrie_os_thread_join(&writer);
    assert_int_equal(atomic_load(&writer_done), 1);
}

/* ---- condition variable ---- */

static void a_timed_wait_nobody_signals_ends_at_its_deadline(void **state)
{
    (void)state;
    struct clrie_os_mutex lock;
    struct clrie_os_cond cond;
    clrie_os_mutex_init(&lock);
    clrie_os_cond_init(&cond);
    uint64_t start = clrie_os_monotonic_ms();
    uint64_t deadline = start + 100;
    clrie_os_mutex_lock(&lock);
    int r;
    while ((r = clrie_os_cond_wait_until(&cond, &lock, deadline)) == 0) {
    }
    clrie_os_mutex_unlock(&lock);
    uint64_t waited = clrie_os_monotonic_ms() - start;
    assert_int_equal(r, -ETIMEDOUT);
    assert_true(waited >= 100);
    assert_true(waited < PATIENCE_MS);
    /* a deadline already past does not wait */
    clrie_os_mutex_lock(&lock);
    assert_int_equal(clrie_os_cond_wait_until(&cond, &lock, start), -ETIMEDOUT);
    clrie_os_mutex_unlock(&lock);
    clrie_os_cond_finish(&cond);
    clrie_os_mutex_finish(&lock);
}

struct event {
    struct clrie_os_mutex lock; /* protects happened */
    struct clrie_os_cond changed;
    bool happened;
    unsigned delay_ms;
};

static void make_it_happen(void *arg)
{
    struct event *e = arg;
    clrie_os_sleep_ms(e->delay_ms);
    clrie_os_mutex_lock(&e->lock);
    e->happened = true;
    clrie_os_cond_signal(&e->changed);
    clrie_os_mutex_unlock(&e->lock);
}

/* Waits for the event until PATIENCE_MS: whether it happened, and how long that took. */
static bool wait_for_event(struct event *e, uint64_t *waited)
{
    uint64_t start = clrie_os_monotonic_ms();
    uint64_t deadline = start + PATIENCE_MS;
    clrie_os_mutex_lock(&e->lock);
    while (!e->happened && clrie_os_cond_wait_until(&e->changed, &e->lock, deadline) == 0) {
    }
    bool happened = e->happened;
    clrie_os_mutex_unlock(&e->lock);
    *waited = clrie_os_monotonic_ms() - start;
    return happened;
}

static void a_timed_wait_ends_when_signalled(void **state)
{
    (void)state;
    struct event e = {.lock = CLRIE_OS_MUTEX_INIT, .delay_ms = 30};
    clrie_os_cond_init(&e.changed);
    struct clrie_os_thread signaller;
    assert_int_equal(clrie_os_thread_start(&signaller, make_it_happen, &e), 0);
    uint64_t waited;
    assert_true(wait_for_event(&e, &waited));
    assert_true(waited < PATIENCE_MS / 2);
    clrie_os_thread_join(&signaller);
    clrie_os_cond_finish(&e.changed);
}

/* ---- once ---- */

static struct clrie_os_once once = CLRIE_OS_ONCE_INIT;
static atomic_int inits, saw_one;
static struct clrie_os_barrier start_line;

static void init_slowly(void)
{
    atomic_fetch_add(&inits, 1);
    clrie_os_sleep_ms(20); /* the others arrive meanwhile, and must wait for it */
}

static void race_to_once(void *arg)
{
    (void)arg;
    clrie_os_barrier_wait(&start_line);
    clrie_os_once_run(&once, init_slowly);
    if (atomic_load(&inits) == 1)
        atomic_fetch_add(&saw_one, 1);
    clrie_os_barrier_wait(&start_line); /* a second round of the same barrier */
    clrie_os_once_run(&once, init_slowly);
}

static void once_runs_its_function_once_for_every_thread(void **state)
{
    (void)state;
    assert_int_equal(clrie_os_barrier_init(&start_line, THREADS), 0);
    struct clrie_os_thread threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(clrie_os_thread_start(&threads[i], race_to_once, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        clrie_os_thread_join(&threads[i]);
    clrie_os_barrier_finish(&start_line);
    assert_int_equal(atomic_load(&inits), 1);
    assert_int_equal(atomic_load(&saw_one), THREADS);
}

/* ---- detached thread ---- */

static void a_sleep_lasts_at_least_as_long_as_asked(void **state)
{
    (void)state;
    uint64_t start = clrie_os_monotonic_ms();
    clrie_os_sleep_ms(120);
    uint64_t slept = clrie_os_monotonic_ms() - start;
    /* The two clocks tick apart by up to one tick of the coarser one (16 ms on Windows). */
    assert_true(slept + 16 >= 120);
    assert_true(slept < PATIENCE_MS);
}

static void a_detached_thread_runs(void **state)
{
    (void)state;
    /* static: the thread may still be unlocking it after the test has seen the event */
    static struct event e = {.lock = CLRIE_OS_MUTEX_INIT};
    clrie_os_cond_init(&e.changed);
    assert_int_equal(clrie_os_thread_start_detached(make_it_happen, &e), 0);
    uint64_t waited;
    assert_true(wait_for_event(&e, &waited));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_mutex_lets_one_thread_in_at_a_time),
        cmocka_unit_test(a_recursive_mutex_is_held_until_unlocked_as_often_as_locked),
        cmocka_unit_test(readers_share_a_rwlock_and_a_writer_waits_for_them),
        cmocka_unit_test(a_timed_wait_nobody_signals_ends_at_its_deadline),
        cmocka_unit_test(a_timed_wait_ends_when_signalled),
        cmocka_unit_test(once_runs_its_function_once_for_every_thread),
        cmocka_unit_test(a_sleep_lasts_at_least_as_long_as_asked),
        cmocka_unit_test(a_detached_thread_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
