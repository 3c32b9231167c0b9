/* Which runtime callbacks the raw profiler hook hears. The runtime sends a callback when the
 * union of the masks asks for it (the plugins', the engine's and the hook's), so the hook would
 * otherwise hear events only the plugins or the engine asked for. A profiler written alone in
 * a process never sees those, and some cannot cope with them; so each callback that a mask bit
 * gates reaches the hook only when the hook's own mask (its SetEventMask or SetEventMask2
 * through its wrapped info) has one of the bits that make the runtime send it.
 *
 * The gates are corprof.idl's: which COR_PRF_MONITOR_* (low) or COR_PRF_HIGH_* (high) bit
 * controls which callback. Callbacks no bit controls (Initialize, Shutdown, attach and
 * detach, GetReJITParameters for a ReJIT the hook asked for, ReJITError,
 * GetAssemblyReferences, which CoreCLR calls whatever the mask says) always reach it. */
#include <stddef.h>

#include "manager.h"

#define SLOT_OF(name) (offsetof(struct ICorProfilerCallback11Vtbl, name) / sizeof(void *))
#define SLOT_COUNT (sizeof(struct ICorProfilerCallback11Vtbl) / sizeof(void *))

struct gate {
    DWORD low, high; /* any one of these bits lets the callback through */
};

#define LOW(name, bits) [SLOT_OF(name)] = {.low = (bits)}
#define BOTH(name, low_bits, high_bits) [SLOT_OF(name)] = {.low = (low_bits), .high = (high_bits)}
#define HIGH(name, bits) [SLOT_OF(name)] = {.high = (bits)}

static const struct gate gates[SLOT_COUNT] = {
    LOW(AppDomainCreationStarted, COR_PRF_MONITOR_APPDOMAIN_LOADS),
    LOW(AppDomainCreationFinished, COR_PRF_MONITOR_APPDOMAIN_LOADS),
    LOW(AppDomainShutdownStarted, COR_PRF_MONITOR_APPDOMAIN_LOADS),
    LOW(AppDomainShutdownFinished, COR_PRF_MONITOR_APPDOMAIN_LOADS),

    LOW(AssemblyLoadStarted, COR_PRF_MONITOR_ASSEMBLY_LOADS),
    LOW(AssemblyLoadFinished, COR_PRF_MONITOR_ASSEMBLY_LOADS),
    LOW(AssemblyUnloadStarted, COR_PRF_MONITOR_ASSEMBLY_LOADS),
    LOW(AssemblyUnloadFinished, COR_PRF_MONITOR_ASSEMBLY_LOADS),

    LOW(ModuleLoadStarted, COR_PRF_MONITOR_MODULE_LOADS),
    LOW(ModuleLoadFinished, COR_PRF_MONITOR_MODULE_LOADS),
    LOW(ModuleUnloadStarted, COR_PRF_MONITOR_MODULE_LOADS),
    LOW(ModuleUnloadFinished, COR_PRF_MONITOR_MODULE_LOADS),
    LOW(ModuleAttachedToAssembly, COR_PRF_MONITOR_MODULE_LOADS),
    HIGH(ModuleInMemorySymbolsUpdated, COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED),

    LOW(ClassLoadStarted, COR_PRF_MONITOR_CLASS_LOADS),
    LOW(ClassLoadFinished, COR_PRF_MONITOR_CLASS_LOADS),
    LOW(ClassUnloadStarted, COR_PRF_MONITOR_CLASS_LOADS),
    LOW(ClassUnloadFinished, COR_PRF_MONITOR_CLASS_LOADS),

    LOW(FunctionUnloadStarted, COR_PRF_MONITOR_FUNCTION_UNLOADS),
    HIGH(DynamicMethodUnloaded, COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS),

    LOW(JITCompilationStarted, COR_PRF_MONITOR_JIT_COMPILATION),
    LOW(JITCompilationFinished, COR_PRF_MONITOR_JIT_COMPILATION),
    LOW(JITFunctionPitched, COR_PRF_MONITOR_JIT_COMPILATION),
    LOW(JITInlining, COR_PRF_MONITOR_JIT_COMPILATION),
    LOW(ReJITCompilationStarted, COR_PRF_MONITOR_JIT_COMPILATION),
    LOW(ReJITCompilationFinished, COR_PRF_MONITOR_JIT_COMPILATION),
    LOW(DynamicMethodJITCompilationStarted, COR_PRF_MONITOR_JIT_COMPILATION),
    LOW(DynamicMethodJITCompilationFinished, COR_PRF_MONITOR_JIT_COMPILATION),
    LOW(JITCachedFunctionSearchStarted, COR_PRF_MONITOR_CACHE_SEARCHES),
    LOW(JITCachedFunctionSearchFinished, COR_PRF_MONITOR_CACHE_SEARCHES),

    LOW(ThreadCreated, COR_PRF_MONITOR_THREADS),
    LOW(ThreadDestroyed, COR_PRF_MONITOR_THREADS),
    LOW(ThreadAssignedToOSThread, COR_PRF_MONITOR_THREADS),
    LOW(ThreadNameChanged, COR_PRF_MONITOR_THREADS),

    LOW(RemotingClientInvocationStarted, COR_PRF_MONITOR_REMOTING),
    LOW(RemotingClientSendingMessage, COR_PRF_MONITOR_REMOTING),
    LOW(RemotingClientReceivingReply, COR_PRF_MONITOR_REMOTING),
    LOW(RemotingClientInvocationFinished, COR_PRF_MONITOR_REMOTING),
    LOW(RemotingServerReceivingMessage, COR_PRF_MONITOR_REMOTING),
    LOW(RemotingServerInvocationStarted, COR_PRF_MONITOR_REMOTING),
    LOW(RemotingServerInvocationReturned, COR_PRF_MONITOR_REMOTING),
    LOW(RemotingServerSendingReply, COR_PRF_MONITOR_REMOTING),

    LOW(UnmanagedToManagedTransition, COR_PRF_MONITOR_CODE_TRANSITIONS),
    LOW(ManagedToUnmanagedTransition, COR_PRF_MONITOR_CODE_TRANSITIONS),

    LOW(RuntimeSuspendStarted, COR_PRF_MONITOR_SUSPENDS),
    LOW(RuntimeSuspendFinished, COR_PRF_MONITOR_SUSPENDS),
    LOW(RuntimeSuspendAborted, COR_PRF_MONITOR_SUSPENDS),
    LOW(RuntimeResumeStarted, COR_PRF_MONITOR_SUSPENDS),
    LOW(RuntimeResumeFinished, COR_PRF_MONITOR_SUSPENDS),
    LOW(RuntimeThreadSuspended, COR_PRF_MONITOR_SUSPENDS),
    LOW(RuntimeThreadResumed, COR_PRF_MONITOR_SUSPENDS),

    BOTH(GarbageCollectionStarted, COR_PRF_MONITOR_GC, COR_PRF_HIGH_BASIC_GC),
    BOTH(GarbageCollectionFinished, COR_PRF_MONITOR_GC, COR_PRF_HIGH_BASIC_GC),
    BOTH(MovedReferences, COR_PRF_MONITOR_GC, COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS),
    BOTH(MovedReferences2, COR_PRF_MONITOR_GC, COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS),
    BOTH(SurvivingReferences, COR_PRF_MONITOR_GC, COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS),
    BOTH(SurvivingReferences2, COR_PRF_MONITOR_GC, COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS),
    LOW(ObjectsAllocatedByClass, COR_PRF_MONITOR_GC),
    LOW(ObjectReferences, COR_PRF_MONITOR_GC),
    LOW(RootReferences, COR_PRF_MONITOR_GC),
    LOW(RootReferences2, COR_PRF_MONITOR_GC),
    LOW(FinalizeableObjectQueued, COR_PRF_MONITOR_GC),
    LOW(HandleCreated, COR_PRF_MONITOR_GC),
    LOW(HandleDestroyed, COR_PRF_MONITOR_GC),
    LOW(ConditionalWeakTableElementReferences, COR_PRF_MONITOR_GC),
    BOTH(ObjectAllocated, COR_PRF_MONITOR_OBJECT_ALLOCATED,
         COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED),

    LOW(ExceptionThrown, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionSearchFunctionEnter, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionSearchFunctionLeave, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionSearchFilterEnter, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionSearchFilterLeave, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionSearchCatcherFound, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionOSHandlerEnter, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionOSHandlerLeave, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionUnwindFunctionEnter, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionUnwindFunctionLeave, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionUnwindFinallyEnter, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionUnwindFinallyLeave, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionCatcherEnter, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionCatcherLeave, COR_PRF_MONITOR_EXCEPTIONS),
    LOW(ExceptionCLRCatcherFound, COR_PRF_MONITOR_CLR_EXCEPTIONS),
    LOW(ExceptionCLRCatcherExecute, COR_PRF_MONITOR_CLR_EXCEPTIONS),

    LOW(COMClassicVTableCreated, COR_PRF_MONITOR_CCW),
    LOW(COMClassicVTableDestroyed, COR_PRF_MONITOR_CCW),

    HIGH(EventPipeEventDelivered, COR_PRF_HIGH_MONITOR_EVENT_PIPE),
    HIGH(EventPipeProviderCreated, COR_PRF_HIGH_MONITOR_EVENT_PIPE),
};

bool clrie_pm__hook_hears(const struct raw_hook *hook, size_t slot)
{
    if (slot >= SLOT_COUNT || (!gates[slot].low && !gates[slot].high))
        return true;
    return (atomic_load(&hook->host.event_mask) & gates[slot].low) ||
           (atomic_load(&hook->host.event_mask_high) & gates[slot].high);
}
