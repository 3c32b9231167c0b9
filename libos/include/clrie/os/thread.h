/* clrie/os/thread.h: threads, locks, condition variables, once-init and barriers.
 *
 * Every object here lives in storage its user owns (a struct member or a static variable):
 * nothing is allocated but a started thread's own bookkeeping, which the thread frees. An
 * object with a static initializer (CLRIE_OS_MUTEX_INIT, CLRIE_OS_RWLOCK_INIT,
 * CLRIE_OS_ONCE_INIT) needs no _init and no _finish; the others are _init'ed once before any
 * use and _finish'ed once after the last, when no thread holds or waits on them. An object is
 * never copied or moved once in use.
 *
 * The functions that cannot fail on the supported systems (Linux with glibc or musl, Windows
 * Vista and later) return nothing; the others return 0 or a negative errno (-EAGAIN: the
 * system has no thread to give, -ENOMEM, -ETIMEDOUT). Misuse (unlocking what the thread does
 * not hold, destroying what is in use) is undefined, as with the system's own primitives.
 *
 * POSIX: pthreads, and the POSIX 2008 declarations of <pthread.h> (read-write locks,
 * barriers): build with _POSIX_C_SOURCE=200809L or a GNU mode (gnu11), not strict -std=c11,
 * and link -pthread (the clrie-os pkg-config module and clrie::os say so). Windows: slim
 * reader/writer locks, condition variables, one-time initialisation and critical sections of
 * the system itself (no winpthreads); the types below hold them without <windows.h>. */
#ifndef CLRIE_OS_THREAD_H
#define CLRIE_OS_THREAD_H

#include <stdint.h>

#ifndef _WIN32
#include <pthread.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef _WIN32
/* Each a system object of one pointer (SRWLOCK, CONDITION_VARIABLE, INIT_ONCE), a
 * CRITICAL_SECTION (40 bytes on x64, 24 on x86), or a thread's HANDLE. */
struct clrie_os_mutex {
    void *srwlock;
};
#define CLRIE_OS_MUTEX_INIT                                                                        \
    {                                                                                              \
        0                                                                                          \
    }
struct clrie_os_recursive_mutex {
    void *critical_section[6];
};
struct clrie_os_rwlock {
    void *srwlock;
};
#define CLRIE_OS_RWLOCK_INIT                                                                       \
    {                                                                                              \
        0                                                                                          \
    }
struct clrie_os_cond {
    void *condition_variable;
};
struct clrie_os_once {
    void *init_once;
};
#define CLRIE_OS_ONCE_INIT                                                                         \
    {                                                                                              \
        0                                                                                          \
    }
struct clrie_os_thread {
    void *handle;
};
struct clrie_os_barrier {
    struct clrie_os_mutex lock; /* protects what follows */
    struct clrie_os_cond all_in;
    unsigned count, waiting;
    unsigned long round; /* how many times every thread has come in */
};
#else
struct clrie_os_mutex {
    pthread_mutex_t mutex;
};
#define CLRIE_OS_MUTEX_INIT                                                                        \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER                                                                  \
    }
struct clrie_os_recursive_mutex {
    pthread_mutex_t mutex;
};
struct clrie_os_rwlock {
    pthread_rwlock_t rwlock;
};
#define CLRIE_OS_RWLOCK_INIT                                                                       \
    {                                                                                              \
        PTHREAD_RWLOCK_INITIALIZER                                                                 \
    }
struct clrie_os_cond {
    pthread_cond_t cond; /* on the monotonic clock */
};
struct clrie_os_once {
    pthread_once_t once;
};
#define CLRIE_OS_ONCE_INIT                                                                         \
    {                                                                                              \
        PTHREAD_ONCE_INIT                                                                          \
    }
struct clrie_os_thread {
    pthread_t thread;
};
struct clrie_os_barrier {
    pthread_barrier_t barrier;
};
#endif

/* ---- mutex: one thread at a time, not re-entrant (a thread that locks it twice deadlocks).
 * Static storage may use CLRIE_OS_MUTEX_INIT instead of _init (and then needs no _finish). */
void clrie_os_mutex_init(struct clrie_os_mutex *mutex);
void clrie_os_mutex_finish(struct clrie_os_mutex *mutex);
void clrie_os_mutex_lock(struct clrie_os_mutex *mutex);
void clrie_os_mutex_unlock(struct clrie_os_mutex *mutex);

/* ---- recursive mutex: the thread that holds it may lock it again, and unlocks it as many
 * times as it locked it. Only through _init. */
void clrie_os_recursive_mutex_init(struct clrie_os_recursive_mutex *mutex);
void clrie_os_recursive_mutex_finish(struct clrie_os_recursive_mutex *mutex);
void clrie_os_recursive_mutex_lock(struct clrie_os_recursive_mutex *mutex);
void clrie_os_recursive_mutex_unlock(struct clrie_os_recursive_mutex *mutex);

/* ---- read-write lock: any number of readers at once, or one writer. Neither kind is
 * re-entrant, and a reader cannot become a writer. A read lock is released with
 * _read_unlock, a write lock with _write_unlock (Windows tells them apart). Static storage
 * may use CLRIE_OS_RWLOCK_INIT. */
void clrie_os_rwlock_init(struct clrie_os_rwlock *lock);
void clrie_os_rwlock_finish(struct clrie_os_rwlock *lock);
void clrie_os_rwlock_read_lock(struct clrie_os_rwlock *lock);
void clrie_os_rwlock_read_unlock(struct clrie_os_rwlock *lock);
void clrie_os_rwlock_write_lock(struct clrie_os_rwlock *lock);
void clrie_os_rwlock_write_unlock(struct clrie_os_rwlock *lock);

/* ---- condition variable: waits release a mutex the thread holds and take it again before
 * they return. A wait may return without a signal (spuriously): wait in a loop on the
 * condition, under the mutex. Only through _init. */
void clrie_os_cond_init(struct clrie_os_cond *cond);
void clrie_os_cond_finish(struct clrie_os_cond *cond);
void clrie_os_cond_wait(struct clrie_os_cond *cond, struct clrie_os_mutex *mutex);

/* Milliseconds on the monotonic clock (which the wall clock's changes do not move), from an
 * unspecified start: the deadlines of clrie_os_cond_wait_until, e.g.
 * clrie_os_monotonic_ms() + 5000 for "in five seconds". */
uint64_t clrie_os_monotonic_ms(void);

/* Suspends the calling thread for ms milliseconds (interruptions resumed). */
void clrie_os_sleep_ms(unsigned ms);

/* Waits as clrie_os_cond_wait, until the monotonic clock reaches deadline at the latest:
 * -ETIMEDOUT when it has (the mutex held again), else 0 (signalled, or spuriously). A loop
 * that computes its deadline once before it, as
 *     while (!done && clrie_os_cond_wait_until(&c, &m, deadline) == 0) {}
 * waits no longer than the deadline in all. */
int clrie_os_cond_wait_until(struct clrie_os_cond *cond, struct clrie_os_mutex *mutex,
                             uint64_t deadline);
/* Wakes one waiting thread, or all of them; nothing when none waits. Best made under the
 * mutex of the condition, after changing it. */
void clrie_os_cond_signal(struct clrie_os_cond *cond);
void clrie_os_cond_broadcast(struct clrie_os_cond *cond);

/* ---- once: calls init exactly once for a once object, whatever number of threads call
 * clrie_os_once_run with it; every call returns after init has returned. init must not call
 * clrie_os_once_run with the same object. Always static, with CLRIE_OS_ONCE_INIT. */
void clrie_os_once_run(struct clrie_os_once *once, void (*init)(void));

/* ---- threads: run(arg) on a new thread. A joinable thread is joined exactly once, which
 * waits for run to return and frees what the system keeps of the thread; a detached thread
 * frees itself when run returns. A process that ends does not wait for either. */
typedef void clrie_os_thread_fn(void *arg);

/* Starts a joinable thread, described in *thread (set on success only): 0, -EAGAIN or
 * -ENOMEM. */
int clrie_os_thread_start(struct clrie_os_thread *thread, clrie_os_thread_fn *run, void *arg);
/* Waits for the thread to end, and frees it. A thread does not join itself. */
void clrie_os_thread_join(struct clrie_os_thread *thread);
/* Starts a thread nobody joins: 0, -EAGAIN or -ENOMEM. */
int clrie_os_thread_start_detached(clrie_os_thread_fn *run, void *arg);

/* ---- barrier: count threads meet. Each call of clrie_os_barrier_wait blocks until count
 * threads have called it, then all of them go on and the barrier is ready for the next round.
 * count > 0: 0, or -ENOMEM; _finish when no thread waits. */
int clrie_os_barrier_init(struct clrie_os_barrier *barrier, unsigned count);
void clrie_os_barrier_finish(struct clrie_os_barrier *barrier);
void clrie_os_barrier_wait(struct clrie_os_barrier *barrier);

#ifdef __cplusplus
}
#endif

#endif
