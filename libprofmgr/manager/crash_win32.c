/* The vectored exception handler that names a crashing plugin: Windows (crash.h, crash_os.h).
 *
 * On Windows the runtime does not own the faults the way it owns signals on Linux: a fault is
 * an exception that the system offers first to the vectored handlers, then to the handlers of
 * the frames on the stack (the runtime's, for managed code and its helpers), and the runtime
 * turns it into a managed exception or fails the process from there. So the engine only looks:
 * its handler comes first among the vectored ones, writes one line when the fault is a
 * plugin's, and always lets the search go on (EXCEPTION_CONTINUE_SEARCH), so the runtime
 * handles every fault exactly as without the engine.
 *
 * The handler sees a fault before anyone knows whether it will be handled. A fault in a
 * plugin's code is the plugin's: the runtime cannot recover from it, and the line is written.
 * A fault elsewhere during a plugin call is named only when it is in a module that is not the
 * runtime's (a library the plugin called): in code of no module (what the runtime compiled,
 * managed code among it) or in the runtime itself, the runtime may recover, as it does when a
 * null dereference in managed code becomes a NullReferenceException, and no line is written.
 *
 * What the handler reads is fixed storage and fiber-local storage made when a thread first
 * calls a plugin; it writes with WriteFile. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <windows.h>

#include "crash_os.h"

static atomic_bool installed;
static HMODULE runtimes[2]; /* the runtime's module (coreclr.dll, or clr.dll), when installed */

/* ---- the handler ------------------------------------------------------------------------ */

/* Code the runtime may recover a fault in: code of no module (what it compiled: managed code,
 * its stubs) and its own. */
static bool runtime_may_recover(uintptr_t pc)
{
    HMODULE module;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCWSTR)pc, &module))
        return true;
    for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
        if (runtimes[i] && module == runtimes[i])
            return true;
    return false;
}

/* The rare path: the thread is in a plugin call, or pc is in a plugin's code. */
static void report(const EXCEPTION_RECORD *record)
{
    DWORD last_error = GetLastError();
    uintptr_t pc = (uintptr_t)record->ExceptionAddress;
    bool with_address = (record->ExceptionCode == EXCEPTION_ACCESS_VIOLATION ||
                         record->ExceptionCode == EXCEPTION_IN_PAGE_ERROR) &&
                        record->NumberParameters >= 2;
    uintptr_t address = with_address ? (uintptr_t)record->ExceptionInformation[1] : 0;
    char line[512];
    bool in_code = false;
    size_t len = clrie_pm__crash_line(line, sizeof(line), (int)record->ExceptionCode,
                                      with_address ? 1 : 0, address, pc, &in_code);
    if (len > 0 && (in_code || !runtime_may_recover(pc)))
        clrie_pm__crash_write_line(line, len);
    SetLastError(last_error);
}

static LONG CALLBACK on_exception(EXCEPTION_POINTERS *exception)
{
    const EXCEPTION_RECORD *record = exception->ExceptionRecord;
    if (clrie_pm__crash_os_is_fault((int)record->ExceptionCode) &&
        clrie_pm__crash_maybe_plugins((uintptr_t)record->ExceptionAddress))
        report(record);
    return EXCEPTION_CONTINUE_SEARCH;
}

void clrie_pm__crash_install(int log_fd)
{
    if (atomic_exchange(&installed, true))
        return;
    clrie_pm__crash_os_init(log_fd);
    runtimes[0] = GetModuleHandleW(L"coreclr.dll");
    runtimes[1] = GetModuleHandleW(L"clr.dll");
    AddVectoredExceptionHandler(1, on_exception);
}
