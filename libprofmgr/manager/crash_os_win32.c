/* What the crash handler asks of Windows (crash_os.h): a thread's storage, a module's code,
 * the name of an exception, the time of day and writing, none of which takes a lock or
 * allocates in the handler. The handler itself is crash_win32.c. */
#include <io.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <windows.h>

#include "clrie/os/thread.h"
#include "crash_os.h"

static HANDLE line_file; /* the log file, or NULL */

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

bool clrie_pm__crash_os_is_fault(int fault)
{
    return name_of((DWORD)fault) != NULL;
}

void clrie_pm__crash_os_init(int log_fd)
{
    if (log_fd >= 0) {
        intptr_t file = _get_osfhandle(log_fd);
        if (file != -1)
            line_file = (HANDLE)file;
    }
    clrie_os_once_run(&thread_slot_once, make_thread_slot);
}
