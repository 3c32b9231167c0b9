/* Threads and their locks on Windows (clrie/os/thread.h): the system's own slim
 * reader/writer locks, condition variables, one-time initialisation and critical sections,
 * held in the header's types, which lay them out without <windows.h>. */
#include "clrie/os/thread.h"

#include <errno.h>
#include <process.h>
#include <stdlib.h>
#include <windows.h>

_Static_assert(sizeof(SRWLOCK) == sizeof(struct clrie_os_mutex), "SRWLOCK is one pointer");
_Static_assert(sizeof(SRWLOCK) == sizeof(struct clrie_os_rwlock), "SRWLOCK is one pointer");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(struct clrie_os_cond),
               "CONDITION_VARIABLE is one pointer");
_Static_assert(sizeof(INIT_ONCE) == sizeof(struct clrie_os_once), "INIT_ONCE is one pointer");
_Static_assert(sizeof(CRITICAL_SECTION) <= sizeof(struct clrie_os_recursive_mutex),
               "a CRITICAL_SECTION fits the recursive mutex");
_Static_assert(_Alignof(CRITICAL_SECTION) <= _Alignof(struct clrie_os_recursive_mutex),
               "and is aligned there");

static SRWLOCK *srw(struct clrie_os_mutex *mutex)
{
    return (SRWLOCK *)&mutex->srwlock;
}

static CRITICAL_SECTION *section(struct clrie_os_recursive_mutex *mutex)
{
    return (CRITICAL_SECTION *)mutex->critical_section;
}

void clrie_os_mutex_init(struct clrie_os_mutex *mutex)
{
    InitializeSRWLock(srw(mutex));
}

void clrie_os_mutex_finish(struct clrie_os_mutex *mutex)
{
    (void)mutex; /* an SRW lock holds nothing */
}

void clrie_os_mutex_lock(struct clrie_os_mutex *mutex)
{
    AcquireSRWLockExclusive(srw(mutex));
}

void clrie_os_mutex_unlock(struct clrie_os_mutex *mutex)
{
    ReleaseSRWLockExclusive(srw(mutex));
}

void clrie_os_recursive_mutex_init(struct clrie_os_recursive_mutex *mutex)
{
    InitializeCriticalSection(section(mutex));
}

void clrie_os_recursive_mutex_finish(struct clrie_os_recursive_mutex *mutex)
{
    DeleteCriticalSection(section(mutex));
}

void clrie_os_recursive_mutex_lock(struct clrie_os_recursive_mutex *mutex)
{
    EnterCriticalSection(section(mutex));
}

void clrie_os_recursive_mutex_unlock(struct clrie_os_recursive_mutex *mutex)
{
    LeaveCriticalSection(section(mutex));
}

void clrie_os_rwlock_init(struct clrie_os_rwlock *lock)
{
    InitializeSRWLock((SRWLOCK *)&lock->srwlock);
}

void clrie_os_rwlock_finish(struct clrie_os_rwlock *lock)
{
    (void)lock;
}

void clrie_os_rwlock_read_lock(struct clrie_os_rwlock *lock)
{
    AcquireSRWLockShared((SRWLOCK *)&lock->srwlock);
}

void clrie_os_rwlock_read_unlock(struct clrie_os_rwlock *lock)
{
    ReleaseSRWLockShared((SRWLOCK *)&lock->srwlock);
}

void clrie_os_rwlock_write_lock(struct clrie_os_rwlock *lock)
{
    AcquireSRWLockExclusive((SRWLOCK *)&lock->srwlock);
}

void clrie_os_rwlock_write_unlock(struct clrie_os_rwlock *lock)
{
    ReleaseSRWLockExclusive((SRWLOCK *)&lock->srwlock);
}

static CONDITION_VARIABLE *condition(struct clrie_os_cond *cond)
{
    return (CONDITION_VARIABLE *)&cond->condition_variable;
}

void clrie_os_cond_init(struct clrie_os_cond *cond)
{
    InitializeConditionVariable(condition(cond));
}

void clrie_os_cond_finish(struct clrie_os_cond *cond)
{
    (void)cond;
}

void clrie_os_cond_wait(struct clrie_os_cond *cond, struct clrie_os_mutex *mutex)
{
    SleepConditionVariableSRW(condition(cond), srw(mutex), INFINITE, 0);
}

uint64_t clrie_os_monotonic_ms(void)
{
    return GetTickCount64();
}

void clrie_os_sleep_ms(unsigned ms)
{
    Sleep(ms);
}

/* The system's timeout is relative, and may end a little before GetTickCount64 reaches the
 * deadline (their timers tick apart): that is a spurious wake-up, the next call waits the
 * rest. So -ETIMEDOUT means the deadline has passed on the clock callers read. */
int clrie_os_cond_wait_until(struct clrie_os_cond *cond, struct clrie_os_mutex *mutex,
                             uint64_t deadline)
{
    uint64_t now = GetTickCount64();
    if (now >= deadline)
        return -ETIMEDOUT;
    uint64_t left = deadline - now;
    DWORD wait = left < INFINITE ? (DWORD)left : INFINITE - 1;
    if (!SleepConditionVariableSRW(condition(cond), srw(mutex), wait, 0) &&
        GetLastError() == ERROR_TIMEOUT && GetTickCount64() >= deadline)
        return -ETIMEDOUT;
    return 0;
}

void clrie_os_cond_signal(struct clrie_os_cond *cond)
{
    WakeConditionVariable(condition(cond));
}

void clrie_os_cond_broadcast(struct clrie_os_cond *cond)
{
    WakeAllConditionVariable(condition(cond));
}

/* The function to call once, in a struct: ISO C has no conversion from a function pointer to
 * the system's void * parameter. */
struct once_call {
    void (*init)(void);
};

static BOOL CALLBACK call_once(INIT_ONCE *once, void *param, void **context)
{
    (void)once;
    (void)context;
    ((struct once_call *)param)->init();
    return TRUE;
}

void clrie_os_once_run(struct clrie_os_once *once, void (*init)(void))
{
    struct once_call call = {init};
    InitOnceExecuteOnce((INIT_ONCE *)&once->init_once, call_once, &call, NULL);
}

/* What a new thread runs, handed over on the heap: the system wants another signature.
 * _beginthreadex, not CreateThread, so that the C runtime sets up the thread for itself. */
struct start {
    clrie_os_thread_fn *run;
    void *arg;
};

static unsigned __stdcall thread_main(void *arg)
{
    struct start start = *(struct start *)arg;
    free(arg);
    start.run(start.arg);
    return 0;
}

static int start_thread(HANDLE *handle, clrie_os_thread_fn *run, void *arg)
{
    struct start *start = malloc(sizeof(*start));
    if (!start)
        return -ENOMEM;
    start->run = run;
    start->arg = arg;
    uintptr_t h = _beginthreadex(NULL, 0, thread_main, start, 0, NULL);
    if (h == 0) {
        int error = errno == ENOMEM ? -ENOMEM : -EAGAIN;
        free(start);
        return error;
    }
    *handle = (HANDLE)h;
    return 0;
}

int clrie_os_thread_start(struct clrie_os_thread *thread, clrie_os_thread_fn *run, void *arg)
{
    HANDLE handle;
    int r = start_thread(&handle, run, arg);
    if (r == 0)
        thread->handle = handle;
    return r;
}

void clrie_os_thread_join(struct clrie_os_thread *thread)
{
    WaitForSingleObject(thread->handle, INFINITE);
    CloseHandle(thread->handle);
}

int clrie_os_thread_start_detached(clrie_os_thread_fn *run, void *arg)
{
    HANDLE handle;
    int r = start_thread(&handle, run, arg);
    if (r == 0)
        CloseHandle(handle); /* the thread runs on; the system frees it when it ends */
    return r;
}

/* Windows 8's SYNCHRONIZATION_BARRIER would do, but Vista's primitives do as well. */
int clrie_os_barrier_init(struct clrie_os_barrier *barrier, unsigned count)
{
    clrie_os_mutex_init(&barrier->lock);
    clrie_os_cond_init(&barrier->all_in);
    barrier->count = count;
    barrier->waiting = 0;
    barrier->round = 0;
    return 0;
}

void clrie_os_barrier_finish(struct clrie_os_barrier *barrier)
{
    clrie_os_cond_finish(&barrier->all_in);
    clrie_os_mutex_finish(&barrier->lock);
}

void clrie_os_barrier_wait(struct clrie_os_barrier *barrier)
{
    clrie_os_mutex_lock(&barrier->lock);
    unsigned long round = barrier->round;
    if (++barrier->waiting == barrier->count) {
        barrier->waiting = 0;
        barrier->round++;
        clrie_os_cond_broadcast(&barrier->all_in);
    } else {
        while (barrier->round == round)
            clrie_os_cond_wait(&barrier->all_in, &barrier->lock);
    }
    clrie_os_mutex_unlock(&barrier->lock);
}
