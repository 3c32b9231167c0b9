/* Threads and their locks on POSIX systems (clrie/os/thread.h): pthreads. The errors the
 * functions returning nothing could get are misuse only (EINVAL, EDEADLK, EPERM), or
 * resources that glibc and musl never run out of for these objects. */
#include "clrie/os/thread.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

void clrie_os_mutex_init(struct clrie_os_mutex *mutex)
{
    pthread_mutex_init(&mutex->mutex, NULL);
}

void clrie_os_mutex_finish(struct clrie_os_mutex *mutex)
{
    pthread_mutex_destroy(&mutex->mutex);
}

void clrie_os_mutex_lock(struct clrie_os_mutex *mutex)
{
    pthread_mutex_lock(&mutex->mutex);
}

void clrie_os_mutex_unlock(struct clrie_os_mutex *mutex)
{
    pthread_mutex_unlock(&mutex->mutex);
}

void clrie_os_recursive_mutex_init(struct clrie_os_recursive_mutex *mutex)
{
    pthread_mutexattr_t recursive;
    pthread_mutexattr_init(&recursive);
    pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&mutex->mutex, &recursive);
    pthread_mutexattr_destroy(&recursive);
}

void clrie_os_recursive_mutex_finish(struct clrie_os_recursive_mutex *mutex)
{
    pthread_mutex_destroy(&mutex->mutex);
}

void clrie_os_recursive_mutex_lock(struct clrie_os_recursive_mutex *mutex)
{
    pthread_mutex_lock(&mutex->mutex);
}

void clrie_os_recursive_mutex_unlock(struct clrie_os_recursive_mutex *mutex)
{
    pthread_mutex_unlock(&mutex->mutex);
}

void clrie_os_rwlock_init(struct clrie_os_rwlock *lock)
{
    pthread_rwlock_init(&lock->rwlock, NULL);
}

void clrie_os_rwlock_finish(struct clrie_os_rwlock *lock)
{
    pthread_rwlock_destroy(&lock->rwlock);
}

void clrie_os_rwlock_read_lock(struct clrie_os_rwlock *lock)
{
    pthread_rwlock_rdlock(&lock->rwlock);
}

void clrie_os_rwlock_read_unlock(struct clrie_os_rwlock *lock)
{
    pthread_rwlock_unlock(&lock->rwlock);
}

void clrie_os_rwlock_write_lock(struct clrie_os_rwlock *lock)
{
    pthread_rwlock_wrlock(&lock->rwlock);
}

void clrie_os_rwlock_write_unlock(struct clrie_os_rwlock *lock)
{
    pthread_rwlock_unlock(&lock->rwlock);
}

/* The waits measure time on the monotonic clock, as clrie_os_monotonic_ms does, so that a
 * change of the wall clock neither ends nor prolongs them. */
void clrie_os_cond_init(struct clrie_os_cond *cond)
{
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&cond->cond, &monotonic);
    pthread_condattr_destroy(&monotonic);
}

void clrie_os_cond_finish(struct clrie_os_cond *cond)
{
    pthread_cond_destroy(&cond->cond);
}

void clrie_os_cond_wait(struct clrie_os_cond *cond, struct clrie_os_mutex *mutex)
{
    pthread_cond_wait(&cond->cond, &mutex->mutex);
}

uint64_t clrie_os_monotonic_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

void clrie_os_sleep_ms(unsigned ms)
{
    struct timespec left = {.tv_sec = (time_t)(ms / 1000u),
                            .tv_nsec = (long)(ms % 1000u) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}

int clrie_os_cond_wait_until(struct clrie_os_cond *cond, struct clrie_os_mutex *mutex,
                             uint64_t deadline)
{
    struct timespec until = {.tv_sec = (time_t)(deadline / 1000u),
                             .tv_nsec = (long)(deadline % 1000u) * 1000000L};
    return pthread_cond_timedwait(&cond->cond, &mutex->mutex, &until) == ETIMEDOUT ? -ETIMEDOUT : 0;
}

void clrie_os_cond_signal(struct clrie_os_cond *cond)
{
    pthread_cond_signal(&cond->cond);
}

void clrie_os_cond_broadcast(struct clrie_os_cond *cond)
{
    pthread_cond_broadcast(&cond->cond);
}

void clrie_os_once_run(struct clrie_os_once *once, void (*init)(void))
{
    pthread_once(&once->once, init);
}

/* What a new thread runs, handed over on the heap: pthreads wants another signature. */
struct start {
    clrie_os_thread_fn *run;
    void *arg;
};

static void *thread_main(void *arg)
{
    struct start start = *(struct start *)arg;
    free(arg);
    start.run(start.arg);
    return NULL;
}

static int start_thread(pthread_t *thread, bool detached, clrie_os_thread_fn *run, void *arg)
{
    struct start *start = malloc(sizeof(*start));
    if (!start)
        return -ENOMEM;
    start->run = run;
    start->arg = arg;
    pthread_attr_t attr;
    int r = pthread_attr_init(&attr);
    if (r == 0) {
        if (detached)
            r = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (r == 0)
            r = pthread_create(thread, &attr, thread_main, start);
        pthread_attr_destroy(&attr);
    }
    if (r != 0) {
        free(start);
        return -r;
    }
    return 0;
}

int clrie_os_thread_start(struct clrie_os_thread *thread, clrie_os_thread_fn *run, void *arg)
{
    pthread_t started;
    int r = start_thread(&started, false, run, arg);
    if (r == 0)
        thread->thread = started;
    return r;
}

void clrie_os_thread_join(struct clrie_os_thread *thread)
{
    pthread_join(thread->thread, NULL);
}

int clrie_os_thread_start_detached(clrie_os_thread_fn *run, void *arg)
{
    pthread_t thread;
    return start_thread(&thread, true, run, arg);
}

int clrie_os_barrier_init(struct clrie_os_barrier *barrier, unsigned count)
{
    return -pthread_barrier_init(&barrier->barrier, NULL, count);
}

void clrie_os_barrier_finish(struct clrie_os_barrier *barrier)
{
    pthread_barrier_destroy(&barrier->barrier);
}

void clrie_os_barrier_wait(struct clrie_os_barrier *barrier)
{
    pthread_barrier_wait(&barrier->barrier);
}
