/* clrie ABI: CoreCLR's profiling interfaces (corprof.idl), ICorProfilerCallback to
 * ICorProfilerCallback11 and ICorProfilerInfo to ICorProfilerInfo15 with the enumerators,
 * ICorProfilerFunctionControl, IMethodMalloc and the types their methods use.
 *
 * Every interface is a method table (see base.h) from which the vtable struct is made;
 * the engine generates its forwarding wrappers from the same tables. */
#ifndef CLRIE_ABI_CORPROF_H
#define CLRIE_ABI_CORPROF_H

#include "clrie/abi/base.h"
#include "clrie/abi/metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- IDs: opaque, pointer-sized ------------------------------------------------------ */

typedef UINT_PTR ProcessID;
typedef UINT_PTR AssemblyID;
typedef UINT_PTR AppDomainID;
typedef UINT_PTR ModuleID;
typedef UINT_PTR ClassID;
typedef UINT_PTR ThreadID;
typedef UINT_PTR ContextID;
typedef UINT_PTR FunctionID;
typedef UINT_PTR ObjectID;
typedef UINT_PTR GCHandleID;
typedef UINT_PTR COR_PRF_ELT_INFO;
typedef UINT_PTR ReJITID;
typedef UINT_PTR COR_PRF_FRAME_INFO;
typedef UINT_PTR EVENTPIPE_PROVIDER;
typedef UINT_PTR EVENTPIPE_EVENT;
typedef UINT64 EVENTPIPE_SESSION;
typedef void **ObjectHandleID;

typedef union FunctionIDOrClientID {
    FunctionID functionID;
    UINT_PTR clientID;
} FunctionIDOrClientID;

/* ---- event masks (SetEventMask / SetEventMask2) ---------------------------------------
 * The low mask uses bit 31, outside the range of a C enum constant, so both masks are
 * DWORD constants. */
typedef DWORD COR_PRF_MONITOR;
#define COR_PRF_MONITOR_NONE 0x00000000u
#define COR_PRF_MONITOR_FUNCTION_UNLOADS 0x00000001u
#define COR_PRF_MONITOR_CLASS_LOADS 0x00000002u
#define COR_PRF_MONITOR_MODULE_LOADS 0x00000004u
#define COR_PRF_MONITOR_ASSEMBLY_LOADS 0x00000008u
#define COR_PRF_MONITOR_APPDOMAIN_LOADS 0x00000010u
#define COR_PRF_MONITOR_JIT_COMPILATION 0x00000020u
#define COR_PRF_MONITOR_EXCEPTIONS 0x00000040u
#define COR_PRF_MONITOR_GC 0x00000080u
#define COR_PRF_MONITOR_OBJECT_ALLOCATED 0x00000100u
#define COR_PRF_MONITOR_THREADS 0x00000200u
#define COR_PRF_MONITOR_REMOTING 0x00000400u
#define COR_PRF_MONITOR_CODE_TRANSITIONS 0x00000800u
#define COR_PRF_MONITOR_ENTERLEAVE 0x00001000u
#define COR_PRF_MONITOR_CCW 0x00002000u
#define COR_PRF_MONITOR_REMOTING_COOKIE (0x00004000u | COR_PRF_MONITOR_REMOTING)
#define COR_PRF_MONITOR_REMOTING_ASYNC (0x00008000u | COR_PRF_MONITOR_REMOTING)
#define COR_PRF_MONITOR_SUSPENDS 0x00010000u
#define COR_PRF_MONITOR_CACHE_SEARCHES 0x00020000u
#define COR_PRF_ENABLE_REJIT 0x00040000u
#define COR_PRF_ENABLE_INPROC_DEBUGGING 0x00080000u
#define COR_PRF_ENABLE_JIT_MAPS 0x00100000u
#define COR_PRF_DISABLE_INLINING 0x00200000u
#define COR_PRF_DISABLE_OPTIMIZATIONS 0x00400000u
#define COR_PRF_ENABLE_OBJECT_ALLOCATED 0x00800000u
#define COR_PRF_MONITOR_CLR_EXCEPTIONS 0x01000000u
#define COR_PRF_MONITOR_ALL 0x0107FFFFu
#define COR_PRF_ENABLE_FUNCTION_ARGS 0x02000000u
#define COR_PRF_ENABLE_FUNCTION_RETVAL 0x04000000u
#define COR_PRF_ENABLE_FRAME_INFO 0x08000000u
#define COR_PRF_ENABLE_STACK_SNAPSHOT 0x10000000u
#define COR_PRF_USE_PROFILE_IMAGES 0x20000000u
#define COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST 0x40000000u
#define COR_PRF_DISABLE_ALL_NGEN_IMAGES 0x80000000u
#define COR_PRF_ALL 0x8FFFFFFFu
#define COR_PRF_REQUIRE_PROFILE_IMAGE \
    (COR_PRF_USE_PROFILE_IMAGES | COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_ENTERLEAVE)
#define COR_PRF_ALLOWABLE_AFTER_ATTACH \
    (COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS | \
     COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_MONITOR_GC | \
     COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_EXCEPTIONS | \
     COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_DISABLE_INLINING | \
     COR_PRF_DISABLE_OPTIMIZATIONS | COR_PRF_ENABLE_REJIT)
#define COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER \
    (COR_PRF_MONITOR_FUNCTION_UNLOADS | COR_PRF_MONITOR_CLASS_LOADS | \
     COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS | \
     COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_JIT_COMPILATION | \
     COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_OBJECT_ALLOCATED | COR_PRF_MONITOR_THREADS | \
     COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_CCW | COR_PRF_MONITOR_SUSPENDS | \
     COR_PRF_MONITOR_CACHE_SEARCHES | COR_PRF_DISABLE_INLINING | \
     COR_PRF_DISABLE_OPTIMIZATIONS | COR_PRF_ENABLE_OBJECT_ALLOCATED | \
     COR_PRF_MONITOR_CLR_EXCEPTIONS | COR_PRF_ENABLE_STACK_SNAPSHOT | \
     COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_ALL_NGEN_IMAGES)
#define COR_PRF_MONITOR_IMMUTABLE \
    (COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_REMOTING | \
     COR_PRF_MONITOR_REMOTING_COOKIE | COR_PRF_MONITOR_REMOTING_ASYNC | \
     COR_PRF_ENABLE_INPROC_DEBUGGING | COR_PRF_ENABLE_JIT_MAPS | \
     COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_ENABLE_FUNCTION_ARGS | \
     COR_PRF_ENABLE_FUNCTION_RETVAL | COR_PRF_ENABLE_FRAME_INFO | COR_PRF_USE_PROFILE_IMAGES | \
     COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST | COR_PRF_DISABLE_ALL_NGEN_IMAGES)

typedef DWORD COR_PRF_HIGH_MONITOR;
#define COR_PRF_HIGH_MONITOR_NONE 0x00000000u
#define COR_PRF_HIGH_ADD_ASSEMBLY_REFERENCES 0x00000001u /* no longer checked by CoreCLR */
#define COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED 0x00000002u
#define COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS 0x00000004u
#define COR_PRF_HIGH_DISABLE_TIERED_COMPILATION 0x00000008u
#define COR_PRF_HIGH_BASIC_GC 0x00000010u
#define COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS 0x00000020u
#define COR_PRF_HIGH_REQUIRE_PROFILE_IMAGE 0x00000000u
#define COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED 0x00000040u
#define COR_PRF_HIGH_MONITOR_EVENT_PIPE 0x00000080u
#define COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED 0x00000100u
#define COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH \
    (COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS | \
     COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | \
     COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | COR_PRF_HIGH_MONITOR_EVENT_PIPE)
#define COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER \
    (COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS | \
     COR_PRF_HIGH_DISABLE_TIERED_COMPILATION | COR_PRF_HIGH_BASIC_GC | \
     COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | \
     COR_PRF_HIGH_MONITOR_EVENT_PIPE)
#define COR_PRF_HIGH_MONITOR_IMMUTABLE COR_PRF_HIGH_DISABLE_TIERED_COMPILATION

/* Special IDs (COR_PRF_MISC); 32-bit values, also outside a C enum's range. */
#define PROFILER_PARENT_UNKNOWN 0xFFFFFFFDu
#define PROFILER_GLOBAL_CLASS 0xFFFFFFFEu
#define PROFILER_GLOBAL_MODULE 0xFFFFFFFFu

/* ---- enums passed as 32-bit values ----------------------------------------------------- */

typedef enum COR_PRF_JIT_CACHE {
    COR_PRF_CACHED_FUNCTION_FOUND = 0,
    COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1
} COR_PRF_JIT_CACHE;

typedef enum COR_PRF_TRANSITION_REASON {
    COR_PRF_TRANSITION_CALL = 0,
    COR_PRF_TRANSITION_RETURN = 1
} COR_PRF_TRANSITION_REASON;

typedef enum COR_PRF_SUSPEND_REASON {
    COR_PRF_SUSPEND_OTHER = 0,
    COR_PRF_SUSPEND_FOR_GC = 1,
    COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2,
    COR_PRF_SUSPEND_FOR_CODE_PITCHING = 3,
    COR_PRF_SUSPEND_FOR_SHUTDOWN = 4,
    COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER = 6,
    COR_PRF_SUSPEND_FOR_GC_PREP = 7,
    COR_PRF_SUSPEND_FOR_REJIT = 8,
    COR_PRF_SUSPEND_FOR_PROFILER = 9
} COR_PRF_SUSPEND_REASON;

typedef enum COR_PRF_RUNTIME_TYPE {
    COR_PRF_DESKTOP_CLR = 0x1,
    COR_PRF_CORE_CLR = 0x2
} COR_PRF_RUNTIME_TYPE;

typedef enum COR_PRF_REJIT_FLAGS {
    COR_PRF_REJIT_BLOCK_INLINING = 0x1,
    COR_PRF_REJIT_INLINING_CALLBACKS = 0x2
} COR_PRF_REJIT_FLAGS;

typedef enum COR_PRF_SNAPSHOT_INFO {
    COR_PRF_SNAPSHOT_DEFAULT = 0x0,
    COR_PRF_SNAPSHOT_REGISTER_CONTEXT = 0x1,
    COR_PRF_SNAPSHOT_X86_OPTIMIZED = 0x2
} COR_PRF_SNAPSHOT_INFO;

typedef enum COR_PRF_STATIC_TYPE {
    COR_PRF_FIELD_NOT_A_STATIC = 0x0,
    COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1,
    COR_PRF_FIELD_THREAD_STATIC = 0x2,
    COR_PRF_FIELD_CONTEXT_STATIC = 0x4,
    COR_PRF_FIELD_RVA_STATIC = 0x8
} COR_PRF_STATIC_TYPE;

typedef enum COR_PRF_GC_ROOT_KIND {
    COR_PRF_GC_ROOT_OTHER = 0,
    COR_PRF_GC_ROOT_STACK = 1,
    COR_PRF_GC_ROOT_FINALIZER = 2,
    COR_PRF_GC_ROOT_HANDLE = 3
} COR_PRF_GC_ROOT_KIND;

typedef enum COR_PRF_GC_ROOT_FLAGS {
    COR_PRF_GC_ROOT_PINNING = 0x1,
    COR_PRF_GC_ROOT_WEAKREF = 0x2,
    COR_PRF_GC_ROOT_INTERIOR = 0x4,
    COR_PRF_GC_ROOT_REFCOUNTED = 0x8
} COR_PRF_GC_ROOT_FLAGS;

typedef enum COR_PRF_FINALIZER_FLAGS {
    COR_PRF_FINALIZER_CRITICAL = 0x1
} COR_PRF_FINALIZER_FLAGS;

typedef enum COR_PRF_GC_GENERATION {
    COR_PRF_GC_GEN_0 = 0,
    COR_PRF_GC_GEN_1 = 1,
    COR_PRF_GC_GEN_2 = 2,
    COR_PRF_GC_LARGE_OBJECT_HEAP = 3,
    COR_PRF_GC_PINNED_OBJECT_HEAP = 4
} COR_PRF_GC_GENERATION;

typedef enum COR_PRF_CLAUSE_TYPE {
    COR_PRF_CLAUSE_NONE = 0,
    COR_PRF_CLAUSE_FILTER = 1,
    COR_PRF_CLAUSE_CATCH = 2,
    COR_PRF_CLAUSE_FINALLY = 3
} COR_PRF_CLAUSE_TYPE;

typedef enum COR_PRF_GC_REASON {
    COR_PRF_GC_OTHER = 0,
    COR_PRF_GC_INDUCED = 1
} COR_PRF_GC_REASON;

typedef enum COR_PRF_MODULE_FLAGS {
    COR_PRF_MODULE_DISK = 0x1,
    COR_PRF_MODULE_NGEN = 0x2,
    COR_PRF_MODULE_DYNAMIC = 0x4,
    COR_PRF_MODULE_COLLECTIBLE = 0x8,
    COR_PRF_MODULE_RESOURCE = 0x10,
    COR_PRF_MODULE_FLAT_LAYOUT = 0x20,
    COR_PRF_MODULE_WINDOWS_RUNTIME = 0x40
} COR_PRF_MODULE_FLAGS;

typedef enum COR_PRF_CODEGEN_FLAGS {
    COR_PRF_CODEGEN_DISABLE_INLINING = 0x1,
    COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS = 0x2
} COR_PRF_CODEGEN_FLAGS;

typedef enum COR_PRF_EVENTPIPE_PARAM_TYPE {
    COR_PRF_EVENTPIPE_OBJECT = 1,
    COR_PRF_EVENTPIPE_BOOLEAN = 3,
    COR_PRF_EVENTPIPE_CHAR = 4,
    COR_PRF_EVENTPIPE_SBYTE = 5,
    COR_PRF_EVENTPIPE_BYTE = 6,
    COR_PRF_EVENTPIPE_INT16 = 7,
    COR_PRF_EVENTPIPE_UINT16 = 8,
    COR_PRF_EVENTPIPE_INT32 = 9,
    COR_PRF_EVENTPIPE_UINT32 = 10,
    COR_PRF_EVENTPIPE_INT64 = 11,
    COR_PRF_EVENTPIPE_UINT64 = 12,
    COR_PRF_EVENTPIPE_SINGLE = 13,
    COR_PRF_EVENTPIPE_DOUBLE = 14,
    COR_PRF_EVENTPIPE_DECIMAL = 15,
    COR_PRF_EVENTPIPE_DATETIME = 16,
    COR_PRF_EVENTPIPE_GUID = 17,
    COR_PRF_EVENTPIPE_STRING = 18,
    COR_PRF_EVENTPIPE_ARRAY = 19
} COR_PRF_EVENTPIPE_PARAM_TYPE;

typedef enum COR_PRF_EVENTPIPE_LEVEL {
    COR_PRF_EVENTPIPE_LOGALWAYS = 0,
    COR_PRF_EVENTPIPE_CRITICAL = 1,
    COR_PRF_EVENTPIPE_ERROR = 2,
    COR_PRF_EVENTPIPE_WARNING = 3,
    COR_PRF_EVENTPIPE_INFORMATIONAL = 4,
    COR_PRF_EVENTPIPE_VERBOSE = 5
} COR_PRF_EVENTPIPE_LEVEL;

typedef enum COR_PRF_HANDLE_TYPE {
    COR_PRF_HANDLE_TYPE_WEAK = 0x1,
    COR_PRF_HANDLE_TYPE_STRONG = 0x2,
    COR_PRF_HANDLE_TYPE_PINNED = 0x3
} COR_PRF_HANDLE_TYPE;

typedef enum CorDebugIlToNativeMappingTypes {
    NO_MAPPING = -1,
    PROLOG = -2,
    EPILOG = -3
} CorDebugIlToNativeMappingTypes;

/* ---- structs ----------------------------------------------------------------------- */

typedef struct COR_IL_MAP {
    ULONG32 oldOffset;
    ULONG32 newOffset;
    BOOL fAccurate;
} COR_IL_MAP;

typedef struct COR_DEBUG_IL_TO_NATIVE_MAP {
    ULONG32 ilOffset;
    ULONG32 nativeStartOffset;
    ULONG32 nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;

typedef struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
    UINT_PTR startAddress;
    ULONG length;
} COR_PRF_FUNCTION_ARGUMENT_RANGE;

/* ranges has numRanges entries; the runtime allocates it with that many. */
typedef struct COR_PRF_FUNCTION_ARGUMENT_INFO {
    ULONG numRanges;
    ULONG totalArgumentSize;
    COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1];
} COR_PRF_FUNCTION_ARGUMENT_INFO;

typedef struct COR_PRF_CODE_INFO {
    UINT_PTR startAddress;
    SIZE_T size;
} COR_PRF_CODE_INFO;

typedef struct COR_PRF_FUNCTION {
    FunctionID functionId;
    ReJITID reJitId;
} COR_PRF_FUNCTION;

typedef struct COR_PRF_ASSEMBLY_REFERENCE_INFO {
    void *pbPublicKeyOrToken;
    ULONG cbPublicKeyOrToken;
    LPCWSTR szName;
    ASSEMBLYMETADATA *pMetaData;
    void *pbHashValue;
    ULONG cbHashValue;
    DWORD dwAssemblyRefFlags;
} COR_PRF_ASSEMBLY_REFERENCE_INFO;

typedef struct COR_PRF_METHOD {
    ModuleID moduleId;
    mdMethodDef methodId;
} COR_PRF_METHOD;

typedef struct COR_PRF_GC_GENERATION_RANGE {
    COR_PRF_GC_GENERATION generation;
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
} COR_PRF_GC_GENERATION_RANGE;

typedef struct COR_PRF_NONGC_HEAP_RANGE {
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
} COR_PRF_NONGC_HEAP_RANGE;

typedef struct COR_PRF_EX_CLAUSE_INFO {
    COR_PRF_CLAUSE_TYPE clauseType;
    UINT_PTR programCounter;
    UINT_PTR framePointer;
    UINT_PTR shadowStackPointer;
} COR_PRF_EX_CLAUSE_INFO;

typedef struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
    const WCHAR *providerName;
    UINT64 keywords;
    UINT32 loggingLevel;
    const WCHAR *filterData; /* "key1=value1;key2=value2;" */
} COR_PRF_EVENTPIPE_PROVIDER_CONFIG;

typedef struct COR_PRF_EVENTPIPE_PARAM_DESC {
    UINT32 type;
    UINT32 elementType; /* when type is COR_PRF_EVENTPIPE_ARRAY */
    const WCHAR *name;
} COR_PRF_EVENTPIPE_PARAM_DESC;

typedef struct COR_PRF_EVENT_DATA {
    UINT64 ptr;
    UINT32 size;
    UINT32 reserved;
} COR_PRF_EVENT_DATA;

typedef struct COR_PRF_FILTER_DATA {
    UINT64 Ptr;
    UINT32 Size;
    UINT32 Type;
} COR_PRF_FILTER_DATA;

/* ---- callback function types ----------------------------------------------------------- */

/* Functions the runtime calls: __stdcall on x86 Windows, as corprof.idl declares them (some as
 * STDMETHODCALLTYPE, some as __stdcall, the same convention there). */
typedef UINT_PTR STDMETHODCALLTYPE FunctionIDMapper(FunctionID funcId, BOOL *pbHookFunction);
typedef UINT_PTR STDMETHODCALLTYPE FunctionIDMapper2(FunctionID funcId, void *clientData,
    BOOL *pbHookFunction);
typedef void STDMETHODCALLTYPE FunctionEnter(FunctionID funcID);
typedef void STDMETHODCALLTYPE FunctionLeave(FunctionID funcID);
typedef void STDMETHODCALLTYPE FunctionTailcall(FunctionID funcID);
typedef void STDMETHODCALLTYPE FunctionEnter2(FunctionID funcId, UINT_PTR clientData,
    COR_PRF_FRAME_INFO func, COR_PRF_FUNCTION_ARGUMENT_INFO *argumentInfo);
typedef void STDMETHODCALLTYPE FunctionLeave2(FunctionID funcId, UINT_PTR clientData,
    COR_PRF_FRAME_INFO func, COR_PRF_FUNCTION_ARGUMENT_RANGE *retvalRange);
typedef void STDMETHODCALLTYPE FunctionTailcall2(FunctionID funcId, UINT_PTR clientData,
    COR_PRF_FRAME_INFO func);
typedef void STDMETHODCALLTYPE FunctionEnter3(FunctionIDOrClientID functionIDOrClientID);
typedef void STDMETHODCALLTYPE FunctionLeave3(FunctionIDOrClientID functionIDOrClientID);
typedef void STDMETHODCALLTYPE FunctionTailcall3(FunctionIDOrClientID functionIDOrClientID);
typedef void STDMETHODCALLTYPE FunctionEnter3WithInfo(FunctionIDOrClientID functionIDOrClientID,
    COR_PRF_ELT_INFO eltInfo);
typedef void STDMETHODCALLTYPE FunctionLeave3WithInfo(FunctionIDOrClientID functionIDOrClientID,
    COR_PRF_ELT_INFO eltInfo);
typedef void STDMETHODCALLTYPE FunctionTailcall3WithInfo(
    FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
typedef HRESULT STDMETHODCALLTYPE StackSnapshotCallback(FunctionID funcId, UINT_PTR ip,
    COR_PRF_FRAME_INFO frameInfo, ULONG32 contextSize, BYTE context[], void *clientData);
typedef BOOL STDMETHODCALLTYPE ObjectReferenceCallback(ObjectID root, ObjectID *reference,
    void *clientData);
typedef BOOL(STDMETHODCALLTYPE *ObjectCallback)(ObjectID object, void *callbackState);
typedef void STDMETHODCALLTYPE EventPipeProviderCallback(const UINT8 *source_id,
    UINT32 is_enabled, UINT8 level, UINT64 match_any_keywords, UINT64 match_all_keywords,
    COR_PRF_FILTER_DATA *filter_data, void *callback_data);

/* ---- interfaces ---------------------------------------------------------------------- */

CLRIE_ABI_FORWARD(ICorProfilerCallback)
CLRIE_ABI_FORWARD(ICorProfilerCallback2)
CLRIE_ABI_FORWARD(ICorProfilerCallback3)
CLRIE_ABI_FORWARD(ICorProfilerCallback4)
CLRIE_ABI_FORWARD(ICorProfilerCallback5)
CLRIE_ABI_FORWARD(ICorProfilerCallback6)
CLRIE_ABI_FORWARD(ICorProfilerCallback7)
CLRIE_ABI_FORWARD(ICorProfilerCallback8)
CLRIE_ABI_FORWARD(ICorProfilerCallback9)
CLRIE_ABI_FORWARD(ICorProfilerCallback10)
CLRIE_ABI_FORWARD(ICorProfilerCallback11)
CLRIE_ABI_FORWARD(ICorProfilerInfo)
CLRIE_ABI_FORWARD(ICorProfilerInfo2)
CLRIE_ABI_FORWARD(ICorProfilerInfo3)
CLRIE_ABI_FORWARD(ICorProfilerInfo4)
CLRIE_ABI_FORWARD(ICorProfilerInfo5)
CLRIE_ABI_FORWARD(ICorProfilerInfo6)
CLRIE_ABI_FORWARD(ICorProfilerInfo7)
CLRIE_ABI_FORWARD(ICorProfilerInfo8)
CLRIE_ABI_FORWARD(ICorProfilerInfo9)
CLRIE_ABI_FORWARD(ICorProfilerInfo10)
CLRIE_ABI_FORWARD(ICorProfilerInfo11)
CLRIE_ABI_FORWARD(ICorProfilerInfo12)
CLRIE_ABI_FORWARD(ICorProfilerInfo13)
CLRIE_ABI_FORWARD(ICorProfilerInfo14)
CLRIE_ABI_FORWARD(ICorProfilerInfo15)
CLRIE_ABI_FORWARD(ICorProfilerObjectEnum)
CLRIE_ABI_FORWARD(ICorProfilerFunctionEnum)
CLRIE_ABI_FORWARD(ICorProfilerModuleEnum)
CLRIE_ABI_FORWARD(ICorProfilerMethodEnum)
CLRIE_ABI_FORWARD(ICorProfilerThreadEnum)
CLRIE_ABI_FORWARD(IMethodMalloc)
CLRIE_ABI_FORWARD(ICorProfilerFunctionControl)
CLRIE_ABI_FORWARD(ICorProfilerAssemblyReferenceProvider)

/* ICorProfilerCallback : IUnknown, 69 methods, 72 slots */
#define CLRIE_ICORPROFILERCALLBACK_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Initialize, (SELF, IUnknown *pICorProfilerInfoUnk), (OBJ, pICorProfilerInfoUnk)) \
    X(HRESULT, Shutdown, (SELF), (OBJ)) \
    X(HRESULT, AppDomainCreationStarted, (SELF, AppDomainID appDomainId), (OBJ, appDomainId)) \
    X(HRESULT, AppDomainCreationFinished, \
      (SELF, AppDomainID appDomainId, HRESULT hrStatus), \
      (OBJ, appDomainId, hrStatus)) \
    X(HRESULT, AppDomainShutdownStarted, (SELF, AppDomainID appDomainId), (OBJ, appDomainId)) \
    X(HRESULT, AppDomainShutdownFinished, \
      (SELF, AppDomainID appDomainId, HRESULT hrStatus), \
      (OBJ, appDomainId, hrStatus)) \
    X(HRESULT, AssemblyLoadStarted, (SELF, AssemblyID assemblyId), (OBJ, assemblyId)) \
    X(HRESULT, AssemblyLoadFinished, \
      (SELF, AssemblyID assemblyId, HRESULT hrStatus), \
      (OBJ, assemblyId, hrStatus)) \
    X(HRESULT, AssemblyUnloadStarted, (SELF, AssemblyID assemblyId), (OBJ, assemblyId)) \
    X(HRESULT, AssemblyUnloadFinished, \
      (SELF, AssemblyID assemblyId, HRESULT hrStatus), \
      (OBJ, assemblyId, hrStatus)) \
    X(HRESULT, ModuleLoadStarted, (SELF, ModuleID moduleId), (OBJ, moduleId)) \
    X(HRESULT, ModuleLoadFinished, \
      (SELF, ModuleID moduleId, HRESULT hrStatus), \
      (OBJ, moduleId, hrStatus)) \
    X(HRESULT, ModuleUnloadStarted, (SELF, ModuleID moduleId), (OBJ, moduleId)) \
    X(HRESULT, ModuleUnloadFinished, \
      (SELF, ModuleID moduleId, HRESULT hrStatus), \
      (OBJ, moduleId, hrStatus)) \
    X(HRESULT, ModuleAttachedToAssembly, \
      (SELF, ModuleID moduleId, AssemblyID AssemblyId), \
      (OBJ, moduleId, AssemblyId)) \
    X(HRESULT, ClassLoadStarted, (SELF, ClassID classId), (OBJ, classId)) \
    X(HRESULT, ClassLoadFinished, \
      (SELF, ClassID classId, HRESULT hrStatus), \
      (OBJ, classId, hrStatus)) \
    X(HRESULT, ClassUnloadStarted, (SELF, ClassID classId), (OBJ, classId)) \
    X(HRESULT, ClassUnloadFinished, \
      (SELF, ClassID classId, HRESULT hrStatus), \
      (OBJ, classId, hrStatus)) \
    X(HRESULT, FunctionUnloadStarted, (SELF, FunctionID functionId), (OBJ, functionId)) \
    X(HRESULT, JITCompilationStarted, \
      (SELF, FunctionID functionId, BOOL fIsSafeToBlock), \
      (OBJ, functionId, fIsSafeToBlock)) \
    X(HRESULT, JITCompilationFinished, \
      (SELF, FunctionID functionId, HRESULT hrStatus, BOOL fIsSafeToBlock), \
      (OBJ, functionId, hrStatus, fIsSafeToBlock)) \
    X(HRESULT, JITCachedFunctionSearchStarted, \
      (SELF, FunctionID functionId, BOOL *pbUseCachedFunction), \
      (OBJ, functionId, pbUseCachedFunction)) \
    X(HRESULT, JITCachedFunctionSearchFinished, \
      (SELF, FunctionID functionId, COR_PRF_JIT_CACHE result), \
      (OBJ, functionId, result)) \
    X(HRESULT, JITFunctionPitched, (SELF, FunctionID functionId), (OBJ, functionId)) \
    X(HRESULT, JITInlining, \
      (SELF, FunctionID callerId, FunctionID calleeId, BOOL *pfShouldInline), \
      (OBJ, callerId, calleeId, pfShouldInline)) \
    X(HRESULT, ThreadCreated, (SELF, ThreadID threadId), (OBJ, threadId)) \
    X(HRESULT, ThreadDestroyed, (SELF, ThreadID threadId), (OBJ, threadId)) \
    X(HRESULT, ThreadAssignedToOSThread, \
      (SELF, ThreadID managedThreadId, DWORD osThreadId), \
      (OBJ, managedThreadId, osThreadId)) \
    X(HRESULT, RemotingClientInvocationStarted, (SELF), (OBJ)) \
    X(HRESULT, RemotingClientSendingMessage, \
      (SELF, GUID *pCookie, BOOL fIsAsync), \
      (OBJ, pCookie, fIsAsync)) \
    X(HRESULT, RemotingClientReceivingReply, \
      (SELF, GUID *pCookie, BOOL fIsAsync), \
      (OBJ, pCookie, fIsAsync)) \
    X(HRESULT, RemotingClientInvocationFinished, (SELF), (OBJ)) \
    X(HRESULT, RemotingServerReceivingMessage, \
      (SELF, GUID *pCookie, BOOL fIsAsync), \
      (OBJ, pCookie, fIsAsync)) \
    X(HRESULT, RemotingServerInvocationStarted, (SELF), (OBJ)) \
    X(HRESULT, RemotingServerInvocationReturned, (SELF), (OBJ)) \
    X(HRESULT, RemotingServerSendingReply, \
      (SELF, GUID *pCookie, BOOL fIsAsync), \
      (OBJ, pCookie, fIsAsync)) \
    X(HRESULT, UnmanagedToManagedTransition, \
      (SELF, FunctionID functionId, COR_PRF_TRANSITION_REASON reason), \
      (OBJ, functionId, reason)) \
    X(HRESULT, ManagedToUnmanagedTransition, \
      (SELF, FunctionID functionId, COR_PRF_TRANSITION_REASON reason), \
      (OBJ, functionId, reason)) \
    X(HRESULT, RuntimeSuspendStarted, \
      (SELF, COR_PRF_SUSPEND_REASON suspendReason), \
      (OBJ, suspendReason)) \
    X(HRESULT, RuntimeSuspendFinished, (SELF), (OBJ)) \
    X(HRESULT, RuntimeSuspendAborted, (SELF), (OBJ)) \
    X(HRESULT, RuntimeResumeStarted, (SELF), (OBJ)) \
    X(HRESULT, RuntimeResumeFinished, (SELF), (OBJ)) \
    X(HRESULT, RuntimeThreadSuspended, (SELF, ThreadID threadId), (OBJ, threadId)) \
    X(HRESULT, RuntimeThreadResumed, (SELF, ThreadID threadId), (OBJ, threadId)) \
    X(HRESULT, MovedReferences, \
      (SELF, ULONG cMovedObjectIDRanges, ObjectID oldObjectIDRangeStart[], \
       ObjectID newObjectIDRangeStart[], ULONG cObjectIDRangeLength[]), \
      (OBJ, cMovedObjectIDRanges, oldObjectIDRangeStart, newObjectIDRangeStart, \
       cObjectIDRangeLength)) \
    X(HRESULT, ObjectAllocated, \
      (SELF, ObjectID objectId, ClassID classId), \
      (OBJ, objectId, classId)) \
    X(HRESULT, ObjectsAllocatedByClass, \
      (SELF, ULONG cClassCount, ClassID classIds[], ULONG cObjects[]), \
      (OBJ, cClassCount, classIds, cObjects)) \
    X(HRESULT, ObjectReferences, \
      (SELF, ObjectID objectId, ClassID classId, ULONG cObjectRefs, ObjectID objectRefIds[]), \
      (OBJ, objectId, classId, cObjectRefs, objectRefIds)) \
    X(HRESULT, RootReferences, \
      (SELF, ULONG cRootRefs, ObjectID rootRefIds[]), \
      (OBJ, cRootRefs, rootRefIds)) \
    X(HRESULT, ExceptionThrown, (SELF, ObjectID thrownObjectId), (OBJ, thrownObjectId)) \
    X(HRESULT, ExceptionSearchFunctionEnter, (SELF, FunctionID functionId), (OBJ, functionId)) \
    X(HRESULT, ExceptionSearchFunctionLeave, (SELF), (OBJ)) \
    X(HRESULT, ExceptionSearchFilterEnter, (SELF, FunctionID functionId), (OBJ, functionId)) \
    X(HRESULT, ExceptionSearchFilterLeave, (SELF), (OBJ)) \
    X(HRESULT, ExceptionSearchCatcherFound, (SELF, FunctionID functionId), (OBJ, functionId)) \
    X(HRESULT, ExceptionOSHandlerEnter, (SELF, UINT_PTR reserved), (OBJ, reserved)) \
    X(HRESULT, ExceptionOSHandlerLeave, (SELF, UINT_PTR reserved), (OBJ, reserved)) \
    X(HRESULT, ExceptionUnwindFunctionEnter, (SELF, FunctionID functionId), (OBJ, functionId)) \
    X(HRESULT, ExceptionUnwindFunctionLeave, (SELF), (OBJ)) \
    X(HRESULT, ExceptionUnwindFinallyEnter, (SELF, FunctionID functionId), (OBJ, functionId)) \
    X(HRESULT, ExceptionUnwindFinallyLeave, (SELF), (OBJ)) \
    X(HRESULT, ExceptionCatcherEnter, \
      (SELF, FunctionID functionId, ObjectID objectId), \
      (OBJ, functionId, objectId)) \
    X(HRESULT, ExceptionCatcherLeave, (SELF), (OBJ)) \
    X(HRESULT, COMClassicVTableCreated, \
      (SELF, ClassID wrappedClassId, REFGUID implementedIID, void *pVTable, ULONG cSlots), \
      (OBJ, wrappedClassId, implementedIID, pVTable, cSlots)) \
    X(HRESULT, COMClassicVTableDestroyed, \
      (SELF, ClassID wrappedClassId, REFGUID implementedIID, void *pVTable), \
      (OBJ, wrappedClassId, implementedIID, pVTable)) \
    X(HRESULT, ExceptionCLRCatcherFound, (SELF), (OBJ)) \
    X(HRESULT, ExceptionCLRCatcherExecute, (SELF), (OBJ))

/* ICorProfilerCallback2 : ICorProfilerCallback, 8 methods, 80 slots */
#define CLRIE_ICORPROFILERCALLBACK2_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK_METHODS(X, SELF, OBJ) \
    X(HRESULT, ThreadNameChanged, \
      (SELF, ThreadID threadId, ULONG cchName, WCHAR name[]), \
      (OBJ, threadId, cchName, name)) \
    X(HRESULT, GarbageCollectionStarted, \
      (SELF, int cGenerations, BOOL generationCollected[], COR_PRF_GC_REASON reason), \
      (OBJ, cGenerations, generationCollected, reason)) \
    X(HRESULT, SurvivingReferences, \
      (SELF, ULONG cSurvivingObjectIDRanges, ObjectID objectIDRangeStart[], \
       ULONG cObjectIDRangeLength[]), \
      (OBJ, cSurvivingObjectIDRanges, objectIDRangeStart, cObjectIDRangeLength)) \
    X(HRESULT, GarbageCollectionFinished, (SELF), (OBJ)) \
    X(HRESULT, FinalizeableObjectQueued, \
      (SELF, DWORD finalizerFlags, ObjectID objectID), \
      (OBJ, finalizerFlags, objectID)) \
    X(HRESULT, RootReferences2, \
      (SELF, ULONG cRootRefs, ObjectID rootRefIds[], COR_PRF_GC_ROOT_KIND rootKinds[], \
       COR_PRF_GC_ROOT_FLAGS rootFlags[], UINT_PTR rootIds[]), \
      (OBJ, cRootRefs, rootRefIds, rootKinds, rootFlags, rootIds)) \
    X(HRESULT, HandleCreated, \
      (SELF, GCHandleID handleId, ObjectID initialObjectId), \
      (OBJ, handleId, initialObjectId)) \
    X(HRESULT, HandleDestroyed, (SELF, GCHandleID handleId), (OBJ, handleId))

/* ICorProfilerCallback3 : ICorProfilerCallback2, 3 methods, 83 slots */
#define CLRIE_ICORPROFILERCALLBACK3_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK2_METHODS(X, SELF, OBJ) \
    X(HRESULT, InitializeForAttach, \
      (SELF, IUnknown *pCorProfilerInfoUnk, void *pvClientData, UINT cbClientData), \
      (OBJ, pCorProfilerInfoUnk, pvClientData, cbClientData)) \
    X(HRESULT, ProfilerAttachComplete, (SELF), (OBJ)) \
    X(HRESULT, ProfilerDetachSucceeded, (SELF), (OBJ))

/* ICorProfilerCallback4 : ICorProfilerCallback3, 6 methods, 89 slots */
#define CLRIE_ICORPROFILERCALLBACK4_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK3_METHODS(X, SELF, OBJ) \
    X(HRESULT, ReJITCompilationStarted, \
      (SELF, FunctionID functionId, ReJITID rejitId, BOOL fIsSafeToBlock), \
      (OBJ, functionId, rejitId, fIsSafeToBlock)) \
    X(HRESULT, GetReJITParameters, \
      (SELF, ModuleID moduleId, mdMethodDef methodId, \
       ICorProfilerFunctionControl *pFunctionControl), \
      (OBJ, moduleId, methodId, pFunctionControl)) \
    X(HRESULT, ReJITCompilationFinished, \
      (SELF, FunctionID functionId, ReJITID rejitId, HRESULT hrStatus, BOOL fIsSafeToBlock), \
      (OBJ, functionId, rejitId, hrStatus, fIsSafeToBlock)) \
    X(HRESULT, ReJITError, \
      (SELF, ModuleID moduleId, mdMethodDef methodId, FunctionID functionId, HRESULT hrStatus), \
      (OBJ, moduleId, methodId, functionId, hrStatus)) \
    X(HRESULT, MovedReferences2, \
      (SELF, ULONG cMovedObjectIDRanges, ObjectID oldObjectIDRangeStart[], \
       ObjectID newObjectIDRangeStart[], SIZE_T cObjectIDRangeLength[]), \
      (OBJ, cMovedObjectIDRanges, oldObjectIDRangeStart, newObjectIDRangeStart, \
       cObjectIDRangeLength)) \
    X(HRESULT, SurvivingReferences2, \
      (SELF, ULONG cSurvivingObjectIDRanges, ObjectID objectIDRangeStart[], \
       SIZE_T cObjectIDRangeLength[]), \
      (OBJ, cSurvivingObjectIDRanges, objectIDRangeStart, cObjectIDRangeLength))

/* ICorProfilerCallback5 : ICorProfilerCallback4, 1 method, 90 slots */
#define CLRIE_ICORPROFILERCALLBACK5_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK4_METHODS(X, SELF, OBJ) \
    X(HRESULT, ConditionalWeakTableElementReferences, \
      (SELF, ULONG cRootRefs, ObjectID keyRefIds[], ObjectID valueRefIds[], \
       GCHandleID rootIds[]), \
      (OBJ, cRootRefs, keyRefIds, valueRefIds, rootIds))

/* ICorProfilerCallback6 : ICorProfilerCallback5, 1 method, 91 slots */
#define CLRIE_ICORPROFILERCALLBACK6_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK5_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetAssemblyReferences, \
      (SELF, const WCHAR *wszAssemblyPath, \
       ICorProfilerAssemblyReferenceProvider *pAsmRefProvider), \
      (OBJ, wszAssemblyPath, pAsmRefProvider))

/* ICorProfilerCallback7 : ICorProfilerCallback6, 1 method, 92 slots */
#define CLRIE_ICORPROFILERCALLBACK7_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK6_METHODS(X, SELF, OBJ) \
    X(HRESULT, ModuleInMemorySymbolsUpdated, (SELF, ModuleID moduleId), (OBJ, moduleId))

/* ICorProfilerCallback8 : ICorProfilerCallback7, 2 methods, 94 slots */
#define CLRIE_ICORPROFILERCALLBACK8_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK7_METHODS(X, SELF, OBJ) \
    X(HRESULT, DynamicMethodJITCompilationStarted, \
      (SELF, FunctionID functionId, BOOL fIsSafeToBlock, LPCBYTE pILHeader, ULONG cbILHeader), \
      (OBJ, functionId, fIsSafeToBlock, pILHeader, cbILHeader)) \
    X(HRESULT, DynamicMethodJITCompilationFinished, \
      (SELF, FunctionID functionId, HRESULT hrStatus, BOOL fIsSafeToBlock), \
      (OBJ, functionId, hrStatus, fIsSafeToBlock))

/* ICorProfilerCallback9 : ICorProfilerCallback8, 1 method, 95 slots */
#define CLRIE_ICORPROFILERCALLBACK9_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK8_METHODS(X, SELF, OBJ) \
    X(HRESULT, DynamicMethodUnloaded, (SELF, FunctionID functionId), (OBJ, functionId))

/* ICorProfilerCallback10 : ICorProfilerCallback9, 2 methods, 97 slots */
#define CLRIE_ICORPROFILERCALLBACK10_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK9_METHODS(X, SELF, OBJ) \
    X(HRESULT, EventPipeEventDelivered, \
      (SELF, EVENTPIPE_PROVIDER provider, DWORD eventId, DWORD eventVersion, \
       ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData, \
       LPCGUID pActivityId, LPCGUID pRelatedActivityId, ThreadID eventThread, \
       ULONG numStackFrames, UINT_PTR stackFrames[]), \
      (OBJ, provider, eventId, eventVersion, cbMetadataBlob, metadataBlob, cbEventData, \
       eventData, pActivityId, pRelatedActivityId, eventThread, numStackFrames, stackFrames)) \
    X(HRESULT, EventPipeProviderCreated, (SELF, EVENTPIPE_PROVIDER provider), (OBJ, provider))

/* ICorProfilerCallback11 : ICorProfilerCallback10, 1 method, 98 slots */
#define CLRIE_ICORPROFILERCALLBACK11_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERCALLBACK10_METHODS(X, SELF, OBJ) \
    X(HRESULT, LoadAsNotificationOnly, \
      (SELF, BOOL *pbNotificationOnly), \
      (OBJ, pbNotificationOnly))

/* ICorProfilerInfo : IUnknown, 33 methods, 36 slots */
#define CLRIE_ICORPROFILERINFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetClassFromObject, \
      (SELF, ObjectID objectId, ClassID *pClassId), \
      (OBJ, objectId, pClassId)) \
    X(HRESULT, GetClassFromToken, \
      (SELF, ModuleID moduleId, mdTypeDef typeDef, ClassID *pClassId), \
      (OBJ, moduleId, typeDef, pClassId)) \
    X(HRESULT, GetCodeInfo, \
      (SELF, FunctionID functionId, LPCBYTE *pStart, ULONG *pcSize), \
      (OBJ, functionId, pStart, pcSize)) \
    X(HRESULT, GetEventMask, (SELF, DWORD *pdwEvents), (OBJ, pdwEvents)) \
    X(HRESULT, GetFunctionFromIP, \
      (SELF, LPCBYTE ip, FunctionID *pFunctionId), \
      (OBJ, ip, pFunctionId)) \
    X(HRESULT, GetFunctionFromToken, \
      (SELF, ModuleID moduleId, mdToken token, FunctionID *pFunctionId), \
      (OBJ, moduleId, token, pFunctionId)) \
    X(HRESULT, GetHandleFromThread, \
      (SELF, ThreadID threadId, HANDLE *phThread), \
      (OBJ, threadId, phThread)) \
    X(HRESULT, GetObjectSize, (SELF, ObjectID objectId, ULONG *pcSize), (OBJ, objectId, pcSize)) \
    X(HRESULT, IsArrayClass, \
      (SELF, ClassID classId, CorElementType *pBaseElemType, ClassID *pBaseClassId, \
       ULONG *pcRank), \
      (OBJ, classId, pBaseElemType, pBaseClassId, pcRank)) \
    X(HRESULT, GetThreadInfo, \
      (SELF, ThreadID threadId, DWORD *pdwWin32ThreadId), \
      (OBJ, threadId, pdwWin32ThreadId)) \
    X(HRESULT, GetCurrentThreadID, (SELF, ThreadID *pThreadId), (OBJ, pThreadId)) \
    X(HRESULT, GetClassIDInfo, \
      (SELF, ClassID classId, ModuleID *pModuleId, mdTypeDef *pTypeDefToken), \
      (OBJ, classId, pModuleId, pTypeDefToken)) \
    X(HRESULT, GetFunctionInfo, \
      (SELF, FunctionID functionId, ClassID *pClassId, ModuleID *pModuleId, mdToken *pToken), \
      (OBJ, functionId, pClassId, pModuleId, pToken)) \
    X(HRESULT, SetEventMask, (SELF, DWORD dwEvents), (OBJ, dwEvents)) \
    X(HRESULT, SetEnterLeaveFunctionHooks, \
      (SELF, FunctionEnter *pFuncEnter, FunctionLeave *pFuncLeave, \
       FunctionTailcall *pFuncTailcall), \
      (OBJ, pFuncEnter, pFuncLeave, pFuncTailcall)) \
    X(HRESULT, SetFunctionIDMapper, (SELF, FunctionIDMapper *pFunc), (OBJ, pFunc)) \
    X(HRESULT, GetTokenAndMetaDataFromFunction, \
      (SELF, FunctionID functionId, REFIID riid, IUnknown **ppImport, mdToken *pToken), \
      (OBJ, functionId, riid, ppImport, pToken)) \
    X(HRESULT, GetModuleInfo, \
      (SELF, ModuleID moduleId, LPCBYTE *ppBaseLoadAddress, ULONG cchName, ULONG *pcchName, \
       WCHAR szName[], AssemblyID *pAssemblyId), \
      (OBJ, moduleId, ppBaseLoadAddress, cchName, pcchName, szName, pAssemblyId)) \
    X(HRESULT, GetModuleMetaData, \
      (SELF, ModuleID moduleId, DWORD dwOpenFlags, REFIID riid, IUnknown **ppOut), \
      (OBJ, moduleId, dwOpenFlags, riid, ppOut)) \
    X(HRESULT, GetILFunctionBody, \
      (SELF, ModuleID moduleId, mdMethodDef methodId, LPCBYTE *ppMethodHeader, \
       ULONG *pcbMethodSize), \
      (OBJ, moduleId, methodId, ppMethodHeader, pcbMethodSize)) \
    X(HRESULT, GetILFunctionBodyAllocator, \
      (SELF, ModuleID moduleId, IMethodMalloc **ppMalloc), \
      (OBJ, moduleId, ppMalloc)) \
    X(HRESULT, SetILFunctionBody, \
      (SELF, ModuleID moduleId, mdMethodDef methodid, LPCBYTE pbNewILMethodHeader), \
      (OBJ, moduleId, methodid, pbNewILMethodHeader)) \
    X(HRESULT, GetAppDomainInfo, \
      (SELF, AppDomainID appDomainId, ULONG cchName, ULONG *pcchName, WCHAR szName[], \
       ProcessID *pProcessId), \
      (OBJ, appDomainId, cchName, pcchName, szName, pProcessId)) \
    X(HRESULT, GetAssemblyInfo, \
      (SELF, AssemblyID assemblyId, ULONG cchName, ULONG *pcchName, WCHAR szName[], \
       AppDomainID *pAppDomainId, ModuleID *pModuleId), \
      (OBJ, assemblyId, cchName, pcchName, szName, pAppDomainId, pModuleId)) \
    X(HRESULT, SetFunctionReJIT, (SELF, FunctionID functionId), (OBJ, functionId)) \
    X(HRESULT, ForceGC, (SELF), (OBJ)) \
    X(HRESULT, SetILInstrumentedCodeMap, \
      (SELF, FunctionID functionId, BOOL fStartJit, ULONG cILMapEntries, \
       COR_IL_MAP rgILMapEntries[]), \
      (OBJ, functionId, fStartJit, cILMapEntries, rgILMapEntries)) \
    X(HRESULT, GetInprocInspectionInterface, (SELF, IUnknown **ppicd), (OBJ, ppicd)) \
    X(HRESULT, GetInprocInspectionIThisThread, (SELF, IUnknown **ppicd), (OBJ, ppicd)) \
    X(HRESULT, GetThreadContext, \
      (SELF, ThreadID threadId, ContextID *pContextId), \
      (OBJ, threadId, pContextId)) \
    X(HRESULT, BeginInprocDebugging, \
      (SELF, BOOL fThisThreadOnly, DWORD *pdwProfilerContext), \
      (OBJ, fThisThreadOnly, pdwProfilerContext)) \
    X(HRESULT, EndInprocDebugging, (SELF, DWORD dwProfilerContext), (OBJ, dwProfilerContext)) \
    X(HRESULT, GetILToNativeMapping, \
      (SELF, FunctionID functionId, ULONG32 cMap, ULONG32 *pcMap, \
       COR_DEBUG_IL_TO_NATIVE_MAP map[]), \
      (OBJ, functionId, cMap, pcMap, map))

/* ICorProfilerInfo2 : ICorProfilerInfo, 21 methods, 57 slots */
#define CLRIE_ICORPROFILERINFO2_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO_METHODS(X, SELF, OBJ) \
    X(HRESULT, DoStackSnapshot, \
      (SELF, ThreadID thread, StackSnapshotCallback *callback, ULONG32 infoFlags, \
       void *clientData, BYTE context[], ULONG32 contextSize), \
      (OBJ, thread, callback, infoFlags, clientData, context, contextSize)) \
    X(HRESULT, SetEnterLeaveFunctionHooks2, \
      (SELF, FunctionEnter2 *pFuncEnter, FunctionLeave2 *pFuncLeave, \
       FunctionTailcall2 *pFuncTailcall), \
      (OBJ, pFuncEnter, pFuncLeave, pFuncTailcall)) \
    X(HRESULT, GetFunctionInfo2, \
      (SELF, FunctionID funcId, COR_PRF_FRAME_INFO frameInfo, ClassID *pClassId, \
       ModuleID *pModuleId, mdToken *pToken, ULONG32 cTypeArgs, ULONG32 *pcTypeArgs, \
       ClassID typeArgs[]), \
      (OBJ, funcId, frameInfo, pClassId, pModuleId, pToken, cTypeArgs, pcTypeArgs, typeArgs)) \
    X(HRESULT, GetStringLayout, \
      (SELF, ULONG *pBufferLengthOffset, ULONG *pStringLengthOffset, ULONG *pBufferOffset), \
      (OBJ, pBufferLengthOffset, pStringLengthOffset, pBufferOffset)) \
    X(HRESULT, GetClassLayout, \
      (SELF, ClassID classID, COR_FIELD_OFFSET rFieldOffset[], ULONG cFieldOffset, \
       ULONG *pcFieldOffset, ULONG *pulClassSize), \
      (OBJ, classID, rFieldOffset, cFieldOffset, pcFieldOffset, pulClassSize)) \
    X(HRESULT, GetClassIDInfo2, \
      (SELF, ClassID classId, ModuleID *pModuleId, mdTypeDef *pTypeDefToken, \
       ClassID *pParentClassId, ULONG32 cNumTypeArgs, ULONG32 *pcNumTypeArgs, \
       ClassID typeArgs[]), \
      (OBJ, classId, pModuleId, pTypeDefToken, pParentClassId, cNumTypeArgs, pcNumTypeArgs, \
       typeArgs)) \
    X(HRESULT, GetCodeInfo2, \
      (SELF, FunctionID functionID, ULONG32 cCodeInfos, ULONG32 *pcCodeInfos, \
       COR_PRF_CODE_INFO codeInfos[]), \
      (OBJ, functionID, cCodeInfos, pcCodeInfos, codeInfos)) \
    X(HRESULT, GetClassFromTokenAndTypeArgs, \
      (SELF, ModuleID moduleID, mdTypeDef typeDef, ULONG32 cTypeArgs, ClassID typeArgs[], \
       ClassID *pClassID), \
      (OBJ, moduleID, typeDef, cTypeArgs, typeArgs, pClassID)) \
    X(HRESULT, GetFunctionFromTokenAndTypeArgs, \
      (SELF, ModuleID moduleID, mdMethodDef funcDef, ClassID classId, ULONG32 cTypeArgs, \
       ClassID typeArgs[], FunctionID *pFunctionID), \
      (OBJ, moduleID, funcDef, classId, cTypeArgs, typeArgs, pFunctionID)) \
    X(HRESULT, EnumModuleFrozenObjects, \
      (SELF, ModuleID moduleID, ICorProfilerObjectEnum **ppEnum), \
      (OBJ, moduleID, ppEnum)) \
    X(HRESULT, GetArrayObjectInfo, \
      (SELF, ObjectID objectId, ULONG32 cDimensions, ULONG32 pDimensionSizes[], \
       int pDimensionLowerBounds[], BYTE **ppData), \
      (OBJ, objectId, cDimensions, pDimensionSizes, pDimensionLowerBounds, ppData)) \
    X(HRESULT, GetBoxClassLayout, \
      (SELF, ClassID classId, ULONG32 *pBufferOffset), \
      (OBJ, classId, pBufferOffset)) \
    X(HRESULT, GetThreadAppDomain, \
      (SELF, ThreadID threadId, AppDomainID *pAppDomainId), \
      (OBJ, threadId, pAppDomainId)) \
    X(HRESULT, GetRVAStaticAddress, \
      (SELF, ClassID classId, mdFieldDef fieldToken, void **ppAddress), \
      (OBJ, classId, fieldToken, ppAddress)) \
    X(HRESULT, GetAppDomainStaticAddress, \
      (SELF, ClassID classId, mdFieldDef fieldToken, AppDomainID appDomainId, void **ppAddress), \
      (OBJ, classId, fieldToken, appDomainId, ppAddress)) \
    X(HRESULT, GetThreadStaticAddress, \
      (SELF, ClassID classId, mdFieldDef fieldToken, ThreadID threadId, void **ppAddress), \
      (OBJ, classId, fieldToken, threadId, ppAddress)) \
    X(HRESULT, GetContextStaticAddress, \
      (SELF, ClassID classId, mdFieldDef fieldToken, ContextID contextId, void **ppAddress), \
      (OBJ, classId, fieldToken, contextId, ppAddress)) \
    X(HRESULT, GetStaticFieldInfo, \
      (SELF, ClassID classId, mdFieldDef fieldToken, COR_PRF_STATIC_TYPE *pFieldInfo), \
      (OBJ, classId, fieldToken, pFieldInfo)) \
    X(HRESULT, GetGenerationBounds, \
      (SELF, ULONG cObjectRanges, ULONG *pcObjectRanges, COR_PRF_GC_GENERATION_RANGE ranges[]), \
      (OBJ, cObjectRanges, pcObjectRanges, ranges)) \
    X(HRESULT, GetObjectGeneration, \
      (SELF, ObjectID objectId, COR_PRF_GC_GENERATION_RANGE *range), \
      (OBJ, objectId, range)) \
    X(HRESULT, GetNotifiedExceptionClauseInfo, \
      (SELF, COR_PRF_EX_CLAUSE_INFO *pinfo), \
      (OBJ, pinfo))

/* ICorProfilerInfo3 : ICorProfilerInfo2, 14 methods, 71 slots */
#define CLRIE_ICORPROFILERINFO3_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO2_METHODS(X, SELF, OBJ) \
    X(HRESULT, EnumJITedFunctions, (SELF, ICorProfilerFunctionEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, RequestProfilerDetach, \
      (SELF, DWORD dwExpectedCompletionMilliseconds), \
      (OBJ, dwExpectedCompletionMilliseconds)) \
    X(HRESULT, SetFunctionIDMapper2, \
      (SELF, FunctionIDMapper2 *pFunc, void *clientData), \
      (OBJ, pFunc, clientData)) \
    X(HRESULT, GetStringLayout2, \
      (SELF, ULONG *pStringLengthOffset, ULONG *pBufferOffset), \
      (OBJ, pStringLengthOffset, pBufferOffset)) \
    X(HRESULT, SetEnterLeaveFunctionHooks3, \
      (SELF, FunctionEnter3 *pFuncEnter3, FunctionLeave3 *pFuncLeave3, \
       FunctionTailcall3 *pFuncTailcall3), \
      (OBJ, pFuncEnter3, pFuncLeave3, pFuncTailcall3)) \
    X(HRESULT, SetEnterLeaveFunctionHooks3WithInfo, \
      (SELF, FunctionEnter3WithInfo *pFuncEnter3WithInfo, \
       FunctionLeave3WithInfo *pFuncLeave3WithInfo, \
       FunctionTailcall3WithInfo *pFuncTailcall3WithInfo), \
      (OBJ, pFuncEnter3WithInfo, pFuncLeave3WithInfo, pFuncTailcall3WithInfo)) \
    X(HRESULT, GetFunctionEnter3Info, \
      (SELF, FunctionID functionId, COR_PRF_ELT_INFO eltInfo, COR_PRF_FRAME_INFO *pFrameInfo, \
       ULONG *pcbArgumentInfo, COR_PRF_FUNCTION_ARGUMENT_INFO *pArgumentInfo), \
      (OBJ, functionId, eltInfo, pFrameInfo, pcbArgumentInfo, pArgumentInfo)) \
    X(HRESULT, GetFunctionLeave3Info, \
      (SELF, FunctionID functionId, COR_PRF_ELT_INFO eltInfo, COR_PRF_FRAME_INFO *pFrameInfo, \
       COR_PRF_FUNCTION_ARGUMENT_RANGE *pRetvalRange), \
      (OBJ, functionId, eltInfo, pFrameInfo, pRetvalRange)) \
    X(HRESULT, GetFunctionTailcall3Info, \
      (SELF, FunctionID functionId, COR_PRF_ELT_INFO eltInfo, COR_PRF_FRAME_INFO *pFrameInfo), \
      (OBJ, functionId, eltInfo, pFrameInfo)) \
    X(HRESULT, EnumModules, (SELF, ICorProfilerModuleEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, GetRuntimeInformation, \
      (SELF, USHORT *pClrInstanceId, COR_PRF_RUNTIME_TYPE *pRuntimeType, USHORT *pMajorVersion, \
       USHORT *pMinorVersion, USHORT *pBuildNumber, USHORT *pQFEVersion, ULONG cchVersionString, \
       ULONG *pcchVersionString, WCHAR szVersionString[]), \
      (OBJ, pClrInstanceId, pRuntimeType, pMajorVersion, pMinorVersion, pBuildNumber, \
       pQFEVersion, cchVersionString, pcchVersionString, szVersionString)) \
    X(HRESULT, GetThreadStaticAddress2, \
      (SELF, ClassID classId, mdFieldDef fieldToken, AppDomainID appDomainId, ThreadID threadId, \
       void **ppAddress), \
      (OBJ, classId, fieldToken, appDomainId, threadId, ppAddress)) \
    X(HRESULT, GetAppDomainsContainingModule, \
      (SELF, ModuleID moduleId, ULONG32 cAppDomainIds, ULONG32 *pcAppDomainIds, \
       AppDomainID appDomainIds[]), \
      (OBJ, moduleId, cAppDomainIds, pcAppDomainIds, appDomainIds)) \
    X(HRESULT, GetModuleInfo2, \
      (SELF, ModuleID moduleId, LPCBYTE *ppBaseLoadAddress, ULONG cchName, ULONG *pcchName, \
       WCHAR szName[], AssemblyID *pAssemblyId, DWORD *pdwModuleFlags), \
      (OBJ, moduleId, ppBaseLoadAddress, cchName, pcchName, szName, pAssemblyId, pdwModuleFlags))

/* ICorProfilerInfo4 : ICorProfilerInfo3, 10 methods, 81 slots */
#define CLRIE_ICORPROFILERINFO4_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO3_METHODS(X, SELF, OBJ) \
    X(HRESULT, EnumThreads, (SELF, ICorProfilerThreadEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, InitializeCurrentThread, (SELF), (OBJ)) \
    X(HRESULT, RequestReJIT, \
      (SELF, ULONG cFunctions, ModuleID moduleIds[], mdMethodDef methodIds[]), \
      (OBJ, cFunctions, moduleIds, methodIds)) \
    X(HRESULT, RequestRevert, \
      (SELF, ULONG cFunctions, ModuleID moduleIds[], mdMethodDef methodIds[], HRESULT status[]), \
      (OBJ, cFunctions, moduleIds, methodIds, status)) \
    X(HRESULT, GetCodeInfo3, \
      (SELF, FunctionID functionID, ReJITID reJitId, ULONG32 cCodeInfos, ULONG32 *pcCodeInfos, \
       COR_PRF_CODE_INFO codeInfos[]), \
      (OBJ, functionID, reJitId, cCodeInfos, pcCodeInfos, codeInfos)) \
    X(HRESULT, GetFunctionFromIP2, \
      (SELF, LPCBYTE ip, FunctionID *pFunctionId, ReJITID *pReJitId), \
      (OBJ, ip, pFunctionId, pReJitId)) \
    X(HRESULT, GetReJITIDs, \
      (SELF, FunctionID functionId, ULONG cReJitIds, ULONG *pcReJitIds, ReJITID reJitIds[]), \
      (OBJ, functionId, cReJitIds, pcReJitIds, reJitIds)) \
    X(HRESULT, GetILToNativeMapping2, \
      (SELF, FunctionID functionId, ReJITID reJitId, ULONG32 cMap, ULONG32 *pcMap, \
       COR_DEBUG_IL_TO_NATIVE_MAP map[]), \
      (OBJ, functionId, reJitId, cMap, pcMap, map)) \
    X(HRESULT, EnumJITedFunctions2, (SELF, ICorProfilerFunctionEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, GetObjectSize2, (SELF, ObjectID objectId, SIZE_T *pcSize), (OBJ, objectId, pcSize))

/* ICorProfilerInfo5 : ICorProfilerInfo4, 2 methods, 83 slots */
#define CLRIE_ICORPROFILERINFO5_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO4_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetEventMask2, \
      (SELF, DWORD *pdwEventsLow, DWORD *pdwEventsHigh), \
      (OBJ, pdwEventsLow, pdwEventsHigh)) \
    X(HRESULT, SetEventMask2, \
      (SELF, DWORD dwEventsLow, DWORD dwEventsHigh), \
      (OBJ, dwEventsLow, dwEventsHigh))

/* ICorProfilerInfo6 : ICorProfilerInfo5, 1 method, 84 slots */
#define CLRIE_ICORPROFILERINFO6_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO5_METHODS(X, SELF, OBJ) \
    X(HRESULT, EnumNgenModuleMethodsInliningThisMethod, \
      (SELF, ModuleID inlinersModuleId, ModuleID inlineeModuleId, mdMethodDef inlineeMethodId, \
       BOOL *incompleteData, ICorProfilerMethodEnum **ppEnum), \
      (OBJ, inlinersModuleId, inlineeModuleId, inlineeMethodId, incompleteData, ppEnum))

/* ICorProfilerInfo7 : ICorProfilerInfo6, 3 methods, 87 slots */
#define CLRIE_ICORPROFILERINFO7_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO6_METHODS(X, SELF, OBJ) \
    X(HRESULT, ApplyMetaData, (SELF, ModuleID moduleId), (OBJ, moduleId)) \
    X(HRESULT, GetInMemorySymbolsLength, \
      (SELF, ModuleID moduleId, DWORD *pCountSymbolBytes), \
      (OBJ, moduleId, pCountSymbolBytes)) \
    X(HRESULT, ReadInMemorySymbols, \
      (SELF, ModuleID moduleId, DWORD symbolsReadOffset, BYTE *pSymbolBytes, \
       DWORD countSymbolBytes, DWORD *pCountSymbolBytesRead), \
      (OBJ, moduleId, symbolsReadOffset, pSymbolBytes, countSymbolBytes, pCountSymbolBytesRead))

/* ICorProfilerInfo8 : ICorProfilerInfo7, 3 methods, 90 slots */
#define CLRIE_ICORPROFILERINFO8_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO7_METHODS(X, SELF, OBJ) \
    X(HRESULT, IsFunctionDynamic, \
      (SELF, FunctionID functionId, BOOL *isDynamic), \
      (OBJ, functionId, isDynamic)) \
    X(HRESULT, GetFunctionFromIP3, \
      (SELF, LPCBYTE ip, FunctionID *functionId, ReJITID *pReJitId), \
      (OBJ, ip, functionId, pReJitId)) \
    X(HRESULT, GetDynamicFunctionInfo, \
      (SELF, FunctionID functionId, ModuleID *moduleId, PCCOR_SIGNATURE *ppvSig, ULONG *pbSig, \
       ULONG cchName, ULONG *pcchName, WCHAR wszName[]), \
      (OBJ, functionId, moduleId, ppvSig, pbSig, cchName, pcchName, wszName))

/* ICorProfilerInfo9 : ICorProfilerInfo8, 3 methods, 93 slots */
#define CLRIE_ICORPROFILERINFO9_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO8_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetNativeCodeStartAddresses, \
      (SELF, FunctionID functionID, ReJITID reJitId, ULONG32 cCodeStartAddresses, \
       ULONG32 *pcCodeStartAddresses, UINT_PTR codeStartAddresses[]), \
      (OBJ, functionID, reJitId, cCodeStartAddresses, pcCodeStartAddresses, codeStartAddresses)) \
    X(HRESULT, GetILToNativeMapping3, \
      (SELF, UINT_PTR pNativeCodeStartAddress, ULONG32 cMap, ULONG32 *pcMap, \
       COR_DEBUG_IL_TO_NATIVE_MAP map[]), \
      (OBJ, pNativeCodeStartAddress, cMap, pcMap, map)) \
    X(HRESULT, GetCodeInfo4, \
      (SELF, UINT_PTR pNativeCodeStartAddress, ULONG32 cCodeInfos, ULONG32 *pcCodeInfos, \
       COR_PRF_CODE_INFO codeInfos[]), \
      (OBJ, pNativeCodeStartAddress, cCodeInfos, pcCodeInfos, codeInfos))

/* ICorProfilerInfo10 : ICorProfilerInfo9, 6 methods, 99 slots */
#define CLRIE_ICORPROFILERINFO10_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO9_METHODS(X, SELF, OBJ) \
    X(HRESULT, EnumerateObjectReferences, \
      (SELF, ObjectID objectId, ObjectReferenceCallback callback, void *clientData), \
      (OBJ, objectId, callback, clientData)) \
    X(HRESULT, IsFrozenObject, \
      (SELF, ObjectID objectId, BOOL *pbFrozen), \
      (OBJ, objectId, pbFrozen)) \
    X(HRESULT, GetLOHObjectSizeThreshold, (SELF, DWORD *pThreshold), (OBJ, pThreshold)) \
    X(HRESULT, RequestReJITWithInliners, \
      (SELF, DWORD dwRejitFlags, ULONG cFunctions, ModuleID moduleIds[], \
       mdMethodDef methodIds[]), \
      (OBJ, dwRejitFlags, cFunctions, moduleIds, methodIds)) \
    X(HRESULT, SuspendRuntime, (SELF), (OBJ)) \
    X(HRESULT, ResumeRuntime, (SELF), (OBJ))

/* ICorProfilerInfo11 : ICorProfilerInfo10, 2 methods, 101 slots */
#define CLRIE_ICORPROFILERINFO11_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO10_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetEnvironmentVariable, \
      (SELF, const WCHAR *szName, ULONG cchValue, ULONG *pcchValue, WCHAR szValue[]), \
      (OBJ, szName, cchValue, pcchValue, szValue)) \
    X(HRESULT, SetEnvironmentVariable, \
      (SELF, const WCHAR *szName, const WCHAR *szValue), \
      (OBJ, szName, szValue))

/* ICorProfilerInfo12 : ICorProfilerInfo11, 7 methods, 108 slots */
#define CLRIE_ICORPROFILERINFO12_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO11_METHODS(X, SELF, OBJ) \
    X(HRESULT, EventPipeStartSession, \
      (SELF, UINT32 cProviderConfigs, COR_PRF_EVENTPIPE_PROVIDER_CONFIG pProviderConfigs[], \
       BOOL requestRundown, EVENTPIPE_SESSION *pSession), \
      (OBJ, cProviderConfigs, pProviderConfigs, requestRundown, pSession)) \
    X(HRESULT, EventPipeAddProviderToSession, \
      (SELF, EVENTPIPE_SESSION session, COR_PRF_EVENTPIPE_PROVIDER_CONFIG providerConfig), \
      (OBJ, session, providerConfig)) \
    X(HRESULT, EventPipeStopSession, (SELF, EVENTPIPE_SESSION session), (OBJ, session)) \
    X(HRESULT, EventPipeCreateProvider, \
      (SELF, const WCHAR *providerName, EVENTPIPE_PROVIDER *pProvider), \
      (OBJ, providerName, pProvider)) \
    X(HRESULT, EventPipeGetProviderInfo, \
      (SELF, EVENTPIPE_PROVIDER provider, ULONG cchName, ULONG *pcchName, WCHAR providerName[]), \
      (OBJ, provider, cchName, pcchName, providerName)) \
    X(HRESULT, EventPipeDefineEvent, \
      (SELF, EVENTPIPE_PROVIDER provider, const WCHAR *eventName, UINT32 eventID, \
       UINT64 keywords, UINT32 eventVersion, UINT32 level, UINT8 opcode, BOOL needStack, \
       UINT32 cParamDescs, COR_PRF_EVENTPIPE_PARAM_DESC pParamDescs[], EVENTPIPE_EVENT *pEvent), \
      (OBJ, provider, eventName, eventID, keywords, eventVersion, level, opcode, needStack, \
       cParamDescs, pParamDescs, pEvent)) \
    X(HRESULT, EventPipeWriteEvent, \
      (SELF, EVENTPIPE_EVENT event, UINT32 cData, COR_PRF_EVENT_DATA data[], \
       LPCGUID pActivityId, LPCGUID pRelatedActivityId), \
      (OBJ, event, cData, data, pActivityId, pRelatedActivityId))

/* ICorProfilerInfo13 : ICorProfilerInfo12, 3 methods, 111 slots */
#define CLRIE_ICORPROFILERINFO13_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO12_METHODS(X, SELF, OBJ) \
    X(HRESULT, CreateHandle, \
      (SELF, ObjectID object, COR_PRF_HANDLE_TYPE type, ObjectHandleID *pHandle), \
      (OBJ, object, type, pHandle)) \
    X(HRESULT, DestroyHandle, (SELF, ObjectHandleID handle), (OBJ, handle)) \
    X(HRESULT, GetObjectIDFromHandle, \
      (SELF, ObjectHandleID handle, ObjectID *pObject), \
      (OBJ, handle, pObject))

/* ICorProfilerInfo14 : ICorProfilerInfo13, 3 methods, 114 slots */
#define CLRIE_ICORPROFILERINFO14_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO13_METHODS(X, SELF, OBJ) \
    X(HRESULT, EnumerateNonGCObjects, (SELF, ICorProfilerObjectEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, GetNonGCHeapBounds, \
      (SELF, ULONG cObjectRanges, ULONG *pcObjectRanges, COR_PRF_NONGC_HEAP_RANGE ranges[]), \
      (OBJ, cObjectRanges, pcObjectRanges, ranges)) \
    X(HRESULT, EventPipeCreateProvider2, \
      (SELF, const WCHAR *providerName, EventPipeProviderCallback *pCallback, \
       EVENTPIPE_PROVIDER *pProvider), \
      (OBJ, providerName, pCallback, pProvider))

/* ICorProfilerInfo15 : ICorProfilerInfo14, 1 method, 115 slots */
#define CLRIE_ICORPROFILERINFO15_METHODS(X, SELF, OBJ) \
    CLRIE_ICORPROFILERINFO14_METHODS(X, SELF, OBJ) \
    X(HRESULT, EnumerateGCHeapObjects, \
      (SELF, ObjectCallback callback, void *callbackState), \
      (OBJ, callback, callbackState))

/* ICorProfilerObjectEnum : IUnknown, 5 methods, 8 slots */
#define CLRIE_ICORPROFILEROBJECTENUM_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, ICorProfilerObjectEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, GetCount, (SELF, ULONG *pcelt), (OBJ, pcelt)) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, ObjectID objects[], ULONG *pceltFetched), \
      (OBJ, celt, objects, pceltFetched))

/* ICorProfilerFunctionEnum : IUnknown, 5 methods, 8 slots */
#define CLRIE_ICORPROFILERFUNCTIONENUM_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, ICorProfilerFunctionEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, GetCount, (SELF, ULONG *pcelt), (OBJ, pcelt)) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, COR_PRF_FUNCTION ids[], ULONG *pceltFetched), \
      (OBJ, celt, ids, pceltFetched))

/* ICorProfilerModuleEnum : IUnknown, 5 methods, 8 slots */
#define CLRIE_ICORPROFILERMODULEENUM_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, ICorProfilerModuleEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, GetCount, (SELF, ULONG *pcelt), (OBJ, pcelt)) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, ModuleID ids[], ULONG *pceltFetched), \
      (OBJ, celt, ids, pceltFetched))

/* ICorProfilerMethodEnum : IUnknown, 5 methods, 8 slots */
#define CLRIE_ICORPROFILERMETHODENUM_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, ICorProfilerMethodEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, GetCount, (SELF, ULONG *pcelt), (OBJ, pcelt)) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, COR_PRF_METHOD elements[], ULONG *pceltFetched), \
      (OBJ, celt, elements, pceltFetched))

/* ICorProfilerThreadEnum : IUnknown, 5 methods, 8 slots */
#define CLRIE_ICORPROFILERTHREADENUM_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, ICorProfilerThreadEnum **ppEnum), (OBJ, ppEnum)) \
    X(HRESULT, GetCount, (SELF, ULONG *pcelt), (OBJ, pcelt)) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, ThreadID ids[], ULONG *pceltFetched), \
      (OBJ, celt, ids, pceltFetched))

/* IMethodMalloc : IUnknown, 1 method, 4 slots */
#define CLRIE_IMETHODMALLOC_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(PVOID, Alloc, (SELF, ULONG cb), (OBJ, cb))

/* ICorProfilerFunctionControl : IUnknown, 3 methods, 6 slots */
#define CLRIE_ICORPROFILERFUNCTIONCONTROL_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, SetCodegenFlags, (SELF, DWORD flags), (OBJ, flags)) \
    X(HRESULT, SetILFunctionBody, \
      (SELF, ULONG cbNewILMethodHeader, LPCBYTE pbNewILMethodHeader), \
      (OBJ, cbNewILMethodHeader, pbNewILMethodHeader)) \
    X(HRESULT, SetILInstrumentedCodeMap, \
      (SELF, ULONG cILMapEntries, COR_IL_MAP rgILMapEntries[]), \
      (OBJ, cILMapEntries, rgILMapEntries))

/* ICorProfilerAssemblyReferenceProvider : IUnknown, 1 method, 4 slots */
#define CLRIE_ICORPROFILERASSEMBLYREFERENCEPROVIDER_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, AddAssemblyReference, \
      (SELF, const COR_PRF_ASSEMBLY_REFERENCE_INFO *pAssemblyRefInfo), \
      (OBJ, pAssemblyRefInfo))

/* IIDs: X(Name, Data1, Data2, Data3, Data4[0..7]). */
#define CLRIE_CORPROF_IIDS(X) \
    X(ICorProfilerCallback, 0x176FBED1, 0xA55C, 0x4796, 0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7) \
    X(ICorProfilerCallback2, 0x8A8CC829, 0xCCF2, 0x49FE, 0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A) \
    X(ICorProfilerCallback3, 0x4FD2ED52, 0x7731, 0x4B8D, 0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5) \
    X(ICorProfilerCallback4, 0x7B63B2E3, 0x107D, 0x4D48, 0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2) \
    X(ICorProfilerCallback5, 0x8DFBA405, 0x8C9F, 0x45F8, 0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5) \
    X(ICorProfilerCallback6, 0xFC13DF4B, 0x4448, 0x4F4F, 0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36) \
    X(ICorProfilerCallback7, 0xF76A2DBA, 0x1D52, 0x4539, 0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3) \
    X(ICorProfilerCallback8, 0x5BED9B15, 0xC079, 0x4D47, 0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0) \
    X(ICorProfilerCallback9, 0x27583EC3, 0xC8F5, 0x482F, 0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A) \
    X(ICorProfilerCallback10, 0xCEC5B60E, 0xC69C, 0x495F, 0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB) \
    X(ICorProfilerCallback11, 0x42350846, 0xAAED, 0x47F7, 0xB1, 0x28, 0xFD, 0x0C, 0x98, 0x88, 0x1C, 0xDE) \
    X(ICorProfilerInfo, 0x28B5557D, 0x3F3F, 0x48B4, 0x90, 0xB2, 0x5F, 0x9E, 0xEA, 0x2F, 0x6C, 0x48) \
    X(ICorProfilerInfo2, 0xCC0935CD, 0xA518, 0x487D, 0xB0, 0xBB, 0xA9, 0x32, 0x14, 0xE6, 0x54, 0x78) \
    X(ICorProfilerInfo3, 0xB555ED4F, 0x452A, 0x4E54, 0x8B, 0x39, 0xB5, 0x36, 0x0B, 0xAD, 0x32, 0xA0) \
    X(ICorProfilerInfo4, 0x0D8FDCAA, 0x6257, 0x47BF, 0xB1, 0xBF, 0x94, 0xDA, 0xC8, 0x84, 0x66, 0xEE) \
    X(ICorProfilerInfo5, 0x07602928, 0xCE38, 0x4B83, 0x81, 0xE7, 0x74, 0xAD, 0xAF, 0x78, 0x12, 0x14) \
    X(ICorProfilerInfo6, 0xF30A070D, 0xBFFB, 0x46A7, 0xB1, 0xD8, 0x87, 0x81, 0xEF, 0x7B, 0x69, 0x8A) \
    X(ICorProfilerInfo7, 0x9AEECC0D, 0x63E0, 0x4187, 0x8C, 0x00, 0xE3, 0x12, 0xF5, 0x03, 0xF6, 0x63) \
    X(ICorProfilerInfo8, 0xC5AC80A6, 0x782E, 0x4716, 0x80, 0x44, 0x39, 0x59, 0x8C, 0x60, 0xCF, 0xBF) \
    X(ICorProfilerInfo9, 0x008170DB, 0xF8CC, 0x4796, 0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12) \
    X(ICorProfilerInfo10, 0x2F1B5152, 0xC869, 0x40C9, 0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20) \
    X(ICorProfilerInfo11, 0x06398876, 0x8987, 0x4154, 0xB6, 0x21, 0x40, 0xA0, 0x0D, 0x6E, 0x4D, 0x04) \
    X(ICorProfilerInfo12, 0x27B24CCD, 0x1CB1, 0x47C5, 0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59) \
    X(ICorProfilerInfo13, 0x6E6C7EE2, 0x0701, 0x4EC2, 0x9D, 0x29, 0x2E, 0x87, 0x33, 0xB6, 0x69, 0x34) \
    X(ICorProfilerInfo14, 0xF460E352, 0xD76D, 0x4FE9, 0x83, 0x5F, 0xF6, 0xAF, 0x9D, 0x6E, 0x86, 0x2D) \
    X(ICorProfilerInfo15, 0xB446462D, 0xBD22, 0x41DD, 0x87, 0x2D, 0xDC, 0x71, 0x4C, 0x49, 0xEB, 0x56) \
    X(ICorProfilerObjectEnum, 0x2C6269BD, 0x2D13, 0x4321, 0xAE, 0x12, 0x66, 0x86, 0x36, 0x5F, 0xD6, 0xAF) \
    X(ICorProfilerFunctionEnum, 0xFF71301A, 0xB994, 0x429D, 0xA1, 0x0B, 0xB3, 0x45, 0xA6, 0x52, 0x80, 0xEF) \
    X(ICorProfilerModuleEnum, 0xB0266D75, 0x2081, 0x4493, 0xAF, 0x7F, 0x02, 0x8B, 0xA3, 0x4D, 0xB8, 0x91) \
    X(ICorProfilerMethodEnum, 0xFCCEE788, 0x0088, 0x454B, 0xA8, 0x11, 0xC9, 0x9F, 0x29, 0x8D, 0x19, 0x42) \
    X(ICorProfilerThreadEnum, 0x571194F7, 0x25ED, 0x419F, 0xAA, 0x8B, 0x70, 0x16, 0xB3, 0x15, 0x97, 0x01) \
    X(IMethodMalloc, 0xA0EFB28B, 0x6EE2, 0x4D7B, 0xB9, 0x83, 0xA7, 0x5E, 0xF7, 0xBE, 0xED, 0xB8) \
    X(ICorProfilerFunctionControl, 0xF0963021, 0xE1EA, 0x4732, 0x85, 0x81, 0xE0, 0x1B, 0x0B, 0xD3, 0xC0, 0xC6) \
    X(ICorProfilerAssemblyReferenceProvider, 0x66A78C24, 0x2EEF, 0x4F65, 0xB4, 0x5F, 0xDD, 0x1D, 0x80, 0x38, 0xBF, 0x3C)

CLRIE_CORPROF_IIDS(CLRIE_ABI_DECLARE_IID)

/* Every interface of this header as X(name, method table, vtable slots including
 * IUnknown's three). CLRIE_ABI_INTERFACE defines struct <name>Vtbl and struct <name>
 * from the table and checks the slot count at compile time. */
#define CLRIE_CORPROF_INTERFACES(X) \
    X(ICorProfilerCallback, CLRIE_ICORPROFILERCALLBACK_METHODS, 72) \
    X(ICorProfilerCallback2, CLRIE_ICORPROFILERCALLBACK2_METHODS, 80) \
    X(ICorProfilerCallback3, CLRIE_ICORPROFILERCALLBACK3_METHODS, 83) \
    X(ICorProfilerCallback4, CLRIE_ICORPROFILERCALLBACK4_METHODS, 89) \
    X(ICorProfilerCallback5, CLRIE_ICORPROFILERCALLBACK5_METHODS, 90) \
    X(ICorProfilerCallback6, CLRIE_ICORPROFILERCALLBACK6_METHODS, 91) \
    X(ICorProfilerCallback7, CLRIE_ICORPROFILERCALLBACK7_METHODS, 92) \
    X(ICorProfilerCallback8, CLRIE_ICORPROFILERCALLBACK8_METHODS, 94) \
    X(ICorProfilerCallback9, CLRIE_ICORPROFILERCALLBACK9_METHODS, 95) \
    X(ICorProfilerCallback10, CLRIE_ICORPROFILERCALLBACK10_METHODS, 97) \
    X(ICorProfilerCallback11, CLRIE_ICORPROFILERCALLBACK11_METHODS, 98) \
    X(ICorProfilerInfo, CLRIE_ICORPROFILERINFO_METHODS, 36) \
    X(ICorProfilerInfo2, CLRIE_ICORPROFILERINFO2_METHODS, 57) \
    X(ICorProfilerInfo3, CLRIE_ICORPROFILERINFO3_METHODS, 71) \
    X(ICorProfilerInfo4, CLRIE_ICORPROFILERINFO4_METHODS, 81) \
    X(ICorProfilerInfo5, CLRIE_ICORPROFILERINFO5_METHODS, 83) \
    X(ICorProfilerInfo6, CLRIE_ICORPROFILERINFO6_METHODS, 84) \
    X(ICorProfilerInfo7, CLRIE_ICORPROFILERINFO7_METHODS, 87) \
    X(ICorProfilerInfo8, CLRIE_ICORPROFILERINFO8_METHODS, 90) \
    X(ICorProfilerInfo9, CLRIE_ICORPROFILERINFO9_METHODS, 93) \
    X(ICorProfilerInfo10, CLRIE_ICORPROFILERINFO10_METHODS, 99) \
    X(ICorProfilerInfo11, CLRIE_ICORPROFILERINFO11_METHODS, 101) \
    X(ICorProfilerInfo12, CLRIE_ICORPROFILERINFO12_METHODS, 108) \
    X(ICorProfilerInfo13, CLRIE_ICORPROFILERINFO13_METHODS, 111) \
    X(ICorProfilerInfo14, CLRIE_ICORPROFILERINFO14_METHODS, 114) \
    X(ICorProfilerInfo15, CLRIE_ICORPROFILERINFO15_METHODS, 115) \
    X(ICorProfilerObjectEnum, CLRIE_ICORPROFILEROBJECTENUM_METHODS, 8) \
    X(ICorProfilerFunctionEnum, CLRIE_ICORPROFILERFUNCTIONENUM_METHODS, 8) \
    X(ICorProfilerModuleEnum, CLRIE_ICORPROFILERMODULEENUM_METHODS, 8) \
    X(ICorProfilerMethodEnum, CLRIE_ICORPROFILERMETHODENUM_METHODS, 8) \
    X(ICorProfilerThreadEnum, CLRIE_ICORPROFILERTHREADENUM_METHODS, 8) \
    X(IMethodMalloc, CLRIE_IMETHODMALLOC_METHODS, 4) \
    X(ICorProfilerFunctionControl, CLRIE_ICORPROFILERFUNCTIONCONTROL_METHODS, 6) \
    X(ICorProfilerAssemblyReferenceProvider, CLRIE_ICORPROFILERASSEMBLYREFERENCEPROVIDER_METHODS, 4)

CLRIE_CORPROF_INTERFACES(CLRIE_ABI_INTERFACE)

#ifdef __cplusplus
}
#endif

#endif
