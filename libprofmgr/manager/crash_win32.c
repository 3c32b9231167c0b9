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
#include <io.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <windows.h>

#include "clrie/os/thread.h"
#include "crash_os.h"

static atomic_bool installed;
static HANDLE line_file;    /* the log file, or NULL */
static HMODULE runtimes[2]; /* the runtime's module (coreclr.dll, or clr.dll), when installed */

/* The processor's faults: what a crash is. Software exceptions (C++, the runtime's own) are
 * not. */
/* clang-format off */
#define FAULT(code) {code, #code}
/* clang-format on */
static const struct {
    DWORD code;
    const char *name;
} faults[] = {
    FAULT(EXCEPTION_ACCESS_VIOLATION),      FAULT(EXCEPTION_IN_PAGE_ERROR),
    FAULT(EXCEPTION_ILLEGAL_INSTRUCTION),   FAULT(EXCEPTION_PRIV_INSTRUCTION),
    FAULT(EXCEPTION_INT_DIVIDE_BY_ZERO),    FAULT(EXCEPTION_INT_OVERFLOW),
    FAULT(EXCEPTION_STACK_OVERFLOW),        FAULT(EXCEPTION_DATATYPE_MISALIGNMENT),
    FAULT(EXCEPTION_ARRAY_BOUNDS_EXCEEDED), FAULT(EXCEPTION_FLT_DIVIDE_BY_ZERO),
    FAULT(EXCEPTION_FLT_INVALID_OPERATION), FAULT(EXCEPTION_FLT_OVERFLOW),
    FAULT(EXCEPTION_FLT_UNDERFLOW),         FAULT(EXCEPTION_FLT_INEXACT_RESULT),
    FAULT(EXCEPTION_FLT_DENORMAL_OPERAND),  FAULT(EXCEPTION_FLT_STACK_CHECK),
};
#define FAULT_COUNT (sizeof(faults) / sizeof(faults[0]))

static const char *name_of(DWORD code)
{
    for (size_t i = 0; i < FAULT_COUNT; i++)
        if (faults[i].code == code)
            return faults[i].name;
    return NULL;
}

/* ---- what crash.c asks of the system ---------------------------------------------------- */

/* MinGW's thread-local variables are emulated, and the first read of one on a thread
 * allocates: the handler must not. Fiber-local storage is read from the thread's own block,
 * and frees a thread's storage when the thread ends. */
static _Atomic DWORD thread_slot = FLS_OUT_OF_INDEXES;
static struct clrie_os_once thread_slot_once = CLRIE_OS_ONCE_INIT;

static VOID WINAPI free_thread(PVOID storage)
{
    if (storage)
        HeapFree(GetProcessHeap(), 0, storage);
}

static void make_thread_slot(void)
{
    atomic_store(&thread_slot, FlsAlloc(free_thread));
}

struct clrie_pm__crash_thread *clrie_pm__crash_thread(bool create)
{
    if (create)
        clrie_os_once_run(&thread_slot_once, make_thread_slot);
    DWORD slot = atomic_load_explicit(&thread_slot, memory_order_acquire);
    if (slot == FLS_OUT_OF_INDEXES)
        return NULL;
    DWORD last_error = GetLastError(); /* FlsGetValue clears it */
    struct clrie_pm__crash_thread *thread = FlsGetValue(slot);
    if (!thread && create) {
        thread = HeapAlloc(GetProcessHeap(), HEAP_ZERO_MEMORY, sizeof(*thread));
        if (thread && !FlsSetValue(slot, thread)) {
            HeapFree(GetProcessHeap(), 0, thread);
            thread = NULL;
        }
    }
    SetLastError(last_error);
    return thread;
}

/* The executable sections of the image that holds the address. */
unsigned clrie_pm__crash_code_ranges(const void *address, uintptr_t *start, uintptr_t *end,
                                     unsigned max)
{
    HMODULE module;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCWSTR)address, &module))
        return 0;
    const unsigned char *base = (const unsigned char *)module;
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
    const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)(base + dos->e_lfanew);
    const IMAGE_SECTION_HEADER *section = IMAGE_FIRST_SECTION(nt);
    unsigned count = 0;
    for (WORD i = 0; i < nt->FileHeader.NumberOfSections && count < max; i++, section++) {
        if (!(section->Characteristics & IMAGE_SCN_MEM_EXECUTE))
            continue;
        DWORD size = section->Misc.VirtualSize ? section->Misc.VirtualSize : section->SizeOfRawData;
        start[count] = (uintptr_t)base + section->VirtualAddress;
        end[count] = start[count] + size;
        count++;
    }
    return count;
}

/* An exception code (as an int) and whether the address is the data address it names. */
const char *clrie_pm__crash_fault_name(int fault, int code, bool *with_address)
{
    *with_address = code == 1;
    const char *name = name_of((DWORD)fault);
    return name ? name : "a fatal exception";
}

long clrie_pm__crash_time_of_day(void)
{
    SYSTEMTIME now;
    GetLocalTime(&now);
    return (long)now.wHour * 3600 + (long)now.wMinute * 60 + now.wSecond;
}

static void write_all(HANDLE file, const char *text, size_t len)
{
    while (len > 0) {
        DWORD written = 0;
        DWORD chunk = len > 0x10000 ? 0x10000 : (DWORD)len;
        if (!WriteFile(file, text, chunk, &written, NULL) || written == 0)
            return;
        text += written;
        len -= written;
    }
}

void clrie_pm__crash_write_out(const char *prefix, size_t prefix_len, const char *text, size_t len)
{
    DWORD last_error = GetLastError();
    HANDLE files[2] = {line_file, GetStdHandle(STD_ERROR_HANDLE)};
    for (int i = 0; i < 2; i++) {
        if (!files[i] || files[i] == INVALID_HANDLE_VALUE)
            continue;
        if (i == 0) /* the end of the log, whoever wrote last */
            SetFilePointerEx(files[i], (LARGE_INTEGER){0}, NULL, FILE_END);
        write_all(files[i], prefix, prefix_len);
        write_all(files[i], text, len);
        write_all(files[i], "\n", 1);
    }
    SetLastError(last_error);
}

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
    if (name_of(record->ExceptionCode) &&
        clrie_pm__crash_maybe_plugins((uintptr_t)record->ExceptionAddress))
        report(record);
    return EXCEPTION_CONTINUE_SEARCH;
}

void clrie_pm__crash_install(int log_fd)
{
    if (atomic_exchange(&installed, true))
        return;
    if (log_fd >= 0) {
        intptr_t file = _get_osfhandle(log_fd);
        if (file != -1)
            line_file = (HANDLE)file;
    }
    runtimes[0] = GetModuleHandleW(L"coreclr.dll");
    runtimes[1] = GetModuleHandleW(L"clr.dll");
    clrie_os_once_run(&thread_slot_once, make_thread_slot);
    AddVectoredExceptionHandler(1, on_exception);
}
