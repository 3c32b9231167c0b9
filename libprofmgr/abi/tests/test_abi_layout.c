/* The ABI headers describe CoreCLR's and CLRIE's binary interface: slot positions, struct
 * layouts, IIDs and constant values a plugin or the runtime depends on. Most checks are
 * compile-time; the IIDs are compared with their textual form from the sources. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/abi/base.h"
#include "clrie/abi/corprof.h"
#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"

#define SLOT(iface, method, index) \
    _Static_assert(offsetof(struct iface##Vtbl, method) == (index) * sizeof(void *), \
        #iface "::" #method " is slot " #index);

/* ---- slot positions ---------------------------------------------------------------- */

SLOT(IUnknown, QueryInterface, 0)
SLOT(IUnknown, AddRef, 1)
SLOT(IUnknown, Release, 2)
SLOT(IClassFactory, CreateInstance, 3)
SLOT(IClassFactory, LockServer, 4)

SLOT(ICorProfilerCallback, Initialize, 3)
SLOT(ICorProfilerCallback, Shutdown, 4)
SLOT(ICorProfilerCallback, ModuleLoadFinished, 14)
SLOT(ICorProfilerCallback, JITCompilationStarted, 23)
SLOT(ICorProfilerCallback, JITCompilationFinished, 24)
SLOT(ICorProfilerCallback, JITInlining, 28)
SLOT(ICorProfilerCallback, ExceptionThrown, 54)
SLOT(ICorProfilerCallback, ExceptionCLRCatcherExecute, 71)
SLOT(ICorProfilerCallback2, ThreadNameChanged, 72)
SLOT(ICorProfilerCallback3, InitializeForAttach, 80)
SLOT(ICorProfilerCallback4, ReJITCompilationStarted, 83)
SLOT(ICorProfilerCallback4, GetReJITParameters, 84)
SLOT(ICorProfilerCallback4, MovedReferences2, 87)
SLOT(ICorProfilerCallback5, ConditionalWeakTableElementReferences, 89)
SLOT(ICorProfilerCallback6, GetAssemblyReferences, 90)
SLOT(ICorProfilerCallback7, ModuleInMemorySymbolsUpdated, 91)
SLOT(ICorProfilerCallback8, DynamicMethodJITCompilationStarted, 92)
SLOT(ICorProfilerCallback9, DynamicMethodUnloaded, 94)
SLOT(ICorProfilerCallback10, EventPipeEventDelivered, 95)
SLOT(ICorProfilerCallback10, EventPipeProviderCreated, 96)
SLOT(ICorProfilerCallback11, LoadAsNotificationOnly, 97)
SLOT(ICorProfilerCallback11, JITCompilationStarted, 23)

SLOT(ICorProfilerInfo, GetClassFromObject, 3)
SLOT(ICorProfilerInfo, GetEventMask, 6)
SLOT(ICorProfilerInfo, GetFunctionInfo, 15)
SLOT(ICorProfilerInfo, SetEventMask, 16)
SLOT(ICorProfilerInfo, GetModuleInfo, 20)
SLOT(ICorProfilerInfo, GetModuleMetaData, 21)
SLOT(ICorProfilerInfo, GetILFunctionBody, 22)
SLOT(ICorProfilerInfo, GetILFunctionBodyAllocator, 23)
SLOT(ICorProfilerInfo, SetILFunctionBody, 24)
SLOT(ICorProfilerInfo, SetILInstrumentedCodeMap, 29)
SLOT(ICorProfilerInfo, GetThreadContext, 32)
SLOT(ICorProfilerInfo3, SetEnterLeaveFunctionHooks3WithInfo, 62)
SLOT(ICorProfilerInfo3, GetModuleInfo2, 70)
SLOT(ICorProfilerInfo4, RequestReJIT, 73)
SLOT(ICorProfilerInfo4, RequestRevert, 74)
SLOT(ICorProfilerInfo5, GetEventMask2, 81)
SLOT(ICorProfilerInfo5, SetEventMask2, 82)
SLOT(ICorProfilerInfo7, ApplyMetaData, 84)
SLOT(ICorProfilerInfo10, RequestReJITWithInliners, 96)
SLOT(ICorProfilerInfo10, SuspendRuntime, 97)
SLOT(ICorProfilerInfo10, ResumeRuntime, 98)
SLOT(ICorProfilerInfo11, GetEnvironmentVariable, 99)
SLOT(ICorProfilerInfo12, EventPipeStartSession, 101)
SLOT(ICorProfilerInfo12, EventPipeWriteEvent, 107)
SLOT(ICorProfilerInfo13, CreateHandle, 108)
SLOT(ICorProfilerInfo14, EnumerateNonGCObjects, 111)
SLOT(ICorProfilerInfo14, GetNonGCHeapBounds, 112)
SLOT(ICorProfilerInfo14, EventPipeCreateProvider2, 113)
SLOT(ICorProfilerInfo15, EnumerateGCHeapObjects, 114)
SLOT(ICorProfilerInfo15, SetILFunctionBody, 24)

SLOT(ICorProfilerFunctionControl, SetCodegenFlags, 3)
SLOT(ICorProfilerFunctionControl, SetILFunctionBody, 4)
SLOT(ICorProfilerFunctionControl, SetILInstrumentedCodeMap, 5)
SLOT(IMethodMalloc, Alloc, 3)
SLOT(ICorProfilerModuleEnum, Skip, 3)
SLOT(ICorProfilerModuleEnum, Next, 7)
SLOT(ICorProfilerThreadEnum, Next, 7)
SLOT(ICorProfilerAssemblyReferenceProvider, AddAssemblyReference, 3)

SLOT(IMetaDataImport, CloseEnum, 3)
SLOT(IMetaDataImport, EnumTypeDefs, 6)
SLOT(IMetaDataImport, FindTypeDefByName, 9)
SLOT(IMetaDataImport, GetTypeDefProps, 12)
SLOT(IMetaDataImport, GetMethodProps, 30)
SLOT(IMetaDataImport, GetMemberRefProps, 31)
SLOT(IMetaDataImport, GetSigFromToken, 41)
SLOT(IMetaDataImport, GetUserString, 47)
SLOT(IMetaDataImport, GetCustomAttributeByName, 60)
SLOT(IMetaDataImport, IsGlobal, 64)
SLOT(IMetaDataImport2, EnumGenericParams, 65)
SLOT(IMetaDataImport2, GetVersionString, 71)
SLOT(IMetaDataImport2, EnumMethodSpecs, 72)
SLOT(IMetaDataEmit, SetModuleProps, 3)
SLOT(IMetaDataEmit, DefineTypeDef, 7)
SLOT(IMetaDataEmit, DefineMethod, 10)
SLOT(IMetaDataEmit, DefineTypeRefByName, 12)
SLOT(IMetaDataEmit, DefineMemberRef, 14)
SLOT(IMetaDataEmit, GetTokenFromSig, 23)
SLOT(IMetaDataEmit, DefineUserString, 28)
SLOT(IMetaDataEmit2, DefineMethodSpec, 52)
SLOT(IMetaDataEmit2, ResetENCLog, 59)
SLOT(IMetaDataAssemblyImport, GetAssemblyProps, 3)
SLOT(IMetaDataAssemblyImport, GetAssemblyRefProps, 4)
SLOT(IMetaDataAssemblyImport, EnumAssemblyRefs, 8)
SLOT(IMetaDataAssemblyImport, FindExportedTypeByName, 13)
SLOT(IMetaDataAssemblyImport, FindAssembliesByName, 16)
SLOT(IMetaDataAssemblyEmit, DefineAssembly, 3)
SLOT(IMetaDataAssemblyEmit, DefineAssemblyRef, 4)
SLOT(IMetaDataAssemblyEmit, SetAssemblyRefProps, 9)
SLOT(IMetaDataDispenser, OpenScopeOnMemory, 5)
SLOT(IMetaDataDispenserEx, FindAssemblyModule, 11)
SLOT(IMetaDataTables, GetNumTables, 7)
SLOT(IMetaDataTables, GetNextUserString, 21)
SLOT(IMetaDataTables2, GetMetaDataStreamInfo, 23)

/* CLRIE: slot numbers as listed in reference/clrie-api.md. */
SLOT(IProfilerManager, SetupProfilingEnvironment, 3)
SLOT(IProfilerManager, GetCorProfilerInfo, 6)
SLOT(IProfilerManager, GetLoggingInstance, 8)
SLOT(IProfilerManager, AddInstrumentationMethod, 14)
SLOT(IProfilerManager, GetRuntimeType, 15)
SLOT(IProfilerManager2, ApplyMetadata, 4)
SLOT(IProfilerManager3, GetApiVersion, 3)
SLOT(IProfilerManager4, GetGlobalLoggingInstance, 3)
SLOT(IProfilerManager5, IsInstrumentationMethodRegistered, 3)
SLOT(IProfilerStringManager, FreeString, 3)
SLOT(IProfilerManagerLogging, SetLoggingFlags, 8)
SLOT(IProfilerManagerLoggingHost, LogDumpMessage, 5)
SLOT(IInstrumentationMethod, Initialize, 3)
SLOT(IInstrumentationMethod, OnModuleLoaded, 8)
SLOT(IInstrumentationMethod, ShouldInstrumentMethod, 11)
SLOT(IInstrumentationMethod, InstrumentMethod, 13)
SLOT(IInstrumentationMethod, AllowInlineSite, 15)
SLOT(IInstrumentationMethodExceptionEvents, ExceptionThrown, 10)
SLOT(IInstrumentationMethodExceptionEvents, ExceptionUnwindFunctionLeave, 14)
SLOT(IDataContainer, GetDataItem, 4)
SLOT(IInstruction, GetOffset, 3)
SLOT(IInstruction, GetOpCode, 6)
SLOT(IInstruction, GetTerminationType, 18)
SLOT(IInstruction, GetInstructionGeneration, 24)
SLOT(IOperandInstruction, SetOperandValue, 5)
SLOT(IBranchInstruction, SetBranchTarget, 7)
SLOT(ISwitchInstruction, GetBranchOffset, 9)
SLOT(IEnumInstructions, GetCount, 7)
SLOT(IInstructionGraph, GetInstructionAtOffset, 10)
SLOT(IInstructionGraph, InsertBefore, 13)
SLOT(IInstructionGraph, Remove, 17)
SLOT(IInstructionGraph, CreateBaseline, 19)
SLOT(IInstructionGraph, ExpandBranches, 21)
SLOT(IExceptionClause, SetExceptionHandlerType, 16)
SLOT(IExceptionSection, AddNewExceptionClause, 8)
SLOT(IInstructionFactory, CreateSwitchInstruction, 12)
SLOT(IInstructionFactory, DecodeInstructionByteStream, 19)
SLOT(IMethodInfo, GetModuleInfo, 3)
SLOT(IMethodInfo, GetInstructions, 6)
SLOT(IMethodInfo, GetMethodToken, 10)
SLOT(IMethodInfo, GetCorSignature, 23)
SLOT(IMethodInfo, MethodImplFlags, 29)
SLOT(IMethodInfo, GetSingleRetDefaultInstrumentation, 35)
SLOT(IMethodInfo2, GetOriginalLocalVariables, 36)
SLOT(IModuleInfo, GetMetaDataImport, 7)
SLOT(IModuleInfo, GetModuleID, 11)
SLOT(IModuleInfo, RequestRejit, 23)
SLOT(IModuleInfo, ImportModule, 27)
SLOT(IModuleInfo2, ResolveRva, 29)
SLOT(IModuleInfo3, GetIsLoadedFromDisk, 30)
SLOT(IAssemblyInfo, GetMetaDataToken, 17)
SLOT(IAppDomainInfo, GetModuleInfosByName, 15)
SLOT(IAppDomainCollection, GetMethodInfoById, 10)
SLOT(ILocalVariableCollection, CommitSignature, 8)
SLOT(ILocalVariableCollection2, GetEnum, 9)
SLOT(IMethodLocal, GetType, 3)
SLOT(IMethodParameter, GetType, 3)
SLOT(ISignatureBuilder, GetCorSignaturePtr, 12)
SLOT(ISignatureParser, ParseTypeSequence, 5)
SLOT(IType, GetName, 8)
SLOT(ITokenType, GetOwningModule, 4)
SLOT(ICompositeType, GetRelatedType, 3)
SLOT(IGenericParameterType, GetPosition, 3)
SLOT(ITypeCreator, FromToken, 5)
SLOT(ISingleRetDefaultInstrumentation2, GetBranchTargetInstruction, 5)
SLOT(IInstrumentationMethodJitEvents, JitComplete, 4)
SLOT(IInstrumentationMethodJitEvents2, JitComplete, 4)
SLOT(IInstrumentationMethodJitEvents2, JitComplete2, 5)
SLOT(IMethodJitInfo, GetModuleInfo, 8)
SLOT(IMethodJitInfo2, GetNativeCodeAddress, 12)
SLOT(IInstrumentationMethodSetting, GetValue, 4)
SLOT(IInstrumentationMethodAttachContext, EnumSettings, 3)
SLOT(IInstrumentationMethodAttach, AttachComplete, 4)

/* ---- slot counts, from the tables themselves --------------------------------------- */

_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK11_METHODS) == 98, "Callback11");
_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO15_METHODS) == 115, "Info15");
_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_IMETADATAIMPORT2_METHODS) == 73, "Import2");
_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_IINSTRUMENTATIONMETHOD_METHODS) == 16, "IM");

/* ---- struct layouts (LP64) ----------------------------------------------------------- */

#define SIZE(type, bytes) _Static_assert(sizeof(type) == (bytes), #type " is " #bytes " bytes");
#define AT(type, field, off) \
    _Static_assert(offsetof(type, field) == (off), #type "." #field " at " #off);

SIZE(GUID, 16)
AT(GUID, Data2, 4)
AT(GUID, Data4, 8)
SIZE(WCHAR, 2)
SIZE(mdToken, 4)
SIZE(ObjectID, 8)
SIZE(ReJITID, 8)
SIZE(COR_PRF_FRAME_INFO, 8)
SIZE(COR_PRF_ELT_INFO, 8)
SIZE(FunctionIDOrClientID, 8)
SIZE(ObjectHandleID, 8)
SIZE(EVENTPIPE_SESSION, 8)
SIZE(COR_PRF_MONITOR, 4)
SIZE(COR_PRF_JIT_CACHE, 4)
SIZE(COR_PRF_TRANSITION_REASON, 4)
SIZE(COR_PRF_SUSPEND_REASON, 4)
SIZE(COR_PRF_HANDLE_TYPE, 4)
SIZE(COR_PRF_RUNTIME_TYPE, 4)
SIZE(ILOrdinalOpcode, 4)
SIZE(LoggingFlags, 4)
SIZE(InstructionTerminationType, 4)
SIZE(COR_IL_MAP, 12)
SIZE(COR_DEBUG_IL_TO_NATIVE_MAP, 12)
SIZE(COR_FIELD_OFFSET, 8)
SIZE(COR_PRF_CODE_INFO, 16)
SIZE(COR_PRF_FUNCTION, 16)
SIZE(COR_PRF_METHOD, 16)
SIZE(COR_PRF_FUNCTION_ARGUMENT_RANGE, 16)
SIZE(COR_PRF_FUNCTION_ARGUMENT_INFO, 24)
AT(COR_PRF_FUNCTION_ARGUMENT_INFO, ranges, 8)
SIZE(COR_PRF_EX_CLAUSE_INFO, 32)
AT(COR_PRF_EX_CLAUSE_INFO, programCounter, 8)
SIZE(COR_PRF_GC_GENERATION_RANGE, 32)
AT(COR_PRF_GC_GENERATION_RANGE, rangeStart, 8)
SIZE(COR_PRF_NONGC_HEAP_RANGE, 24)
SIZE(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, 32)
AT(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, loggingLevel, 16)
SIZE(COR_PRF_EVENTPIPE_PARAM_DESC, 16)
SIZE(COR_PRF_EVENT_DATA, 16)
SIZE(COR_PRF_FILTER_DATA, 16)
SIZE(COR_PRF_ASSEMBLY_REFERENCE_INFO, 48)
AT(COR_PRF_ASSEMBLY_REFERENCE_INFO, szName, 16)
AT(COR_PRF_ASSEMBLY_REFERENCE_INFO, dwAssemblyRefFlags, 44)
SIZE(COR_SECATTR, 24)
SIZE(OSINFO, 12)
SIZE(ASSEMBLYMETADATA, 56)
AT(ASSEMBLYMETADATA, szLocale, 8)
AT(ASSEMBLYMETADATA, rOS, 40)

/* ---- runtime checks -------------------------------------------------------------------- */

/* Parses "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}" the way the registry and CORECLR_PROFILER
 * spell a GUID. */
static GUID guid_from_text(const char *s)
{
    GUID g;
    unsigned d[11];
    int n = sscanf(s, "{%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x}", &d[0], &d[1], &d[2], &d[3],
        &d[4], &d[5], &d[6], &d[7], &d[8], &d[9], &d[10]);
    assert_int_equal(n, 11);
    g.Data1 = d[0];
    g.Data2 = (USHORT)d[1];
    g.Data3 = (USHORT)d[2];
    for (int i = 0; i < 8; i++)
        g.Data4[i] = (UCHAR)d[3 + i];
    return g;
}

static void assert_iid(const IID *iid, const char *text)
{
    GUID expected = guid_from_text(text);
    if (!IsEqualIID(iid, &expected))
        fail_msg("IID differs from %s", text);
}

static void iids_match_the_published_values(void **state)
{
    (void)state;
    assert_iid(&IID_IUnknown, "{00000000-0000-0000-C000-000000000046}");
    assert_iid(&IID_IClassFactory, "{00000001-0000-0000-C000-000000000046}");
    assert_iid(&IID_ICorProfilerCallback, "{176FBED1-A55C-4796-98CA-A9DA0EF883E7}");
    assert_iid(&IID_ICorProfilerCallback2, "{8A8CC829-CCF2-49FE-BBAE-0F022228071A}");
    assert_iid(&IID_ICorProfilerCallback3, "{4FD2ED52-7731-4B8D-9469-03D2CC3086C5}");
    assert_iid(&IID_ICorProfilerCallback10, "{CEC5B60E-C69C-495F-87F6-84D28EE16FFB}");
    assert_iid(&IID_ICorProfilerCallback11, "{42350846-AAED-47F7-B128-FD0C98881CDE}");
    assert_iid(&IID_ICorProfilerInfo, "{28B5557D-3F3F-48B4-90B2-5F9EEA2F6C48}");
    assert_iid(&IID_ICorProfilerInfo4, "{0D8FDCAA-6257-47BF-B1BF-94DAC88466EE}");
    assert_iid(&IID_ICorProfilerInfo14, "{F460E352-D76D-4FE9-835F-F6AF9D6E862D}");
    assert_iid(&IID_ICorProfilerInfo15, "{B446462D-BD22-41DD-872D-DC714C49EB56}");
    assert_iid(&IID_ICorProfilerFunctionControl, "{F0963021-E1EA-4732-8581-E01B0BD3C0C6}");
    assert_iid(&IID_IMetaDataImport, "{7DAC8207-D3AE-4C75-9B67-92801A497D44}");
    assert_iid(&IID_IMetaDataImport2, "{FCE5EFA0-8BBA-4F8E-A036-8F2022B08466}");
    assert_iid(&IID_IMetaDataEmit, "{BA3FEE4C-ECB9-4E41-83B7-183FA41CD859}");
    assert_iid(&IID_IMetaDataEmit2, "{F5DD9950-F693-42E6-830E-7B833E8146A9}");
    assert_iid(&IID_IMetaDataAssemblyImport, "{EE62470B-E94B-424E-9B7C-2F00C9249F93}");
    assert_iid(&IID_IMetaDataAssemblyEmit, "{211EF15B-5317-4438-B196-DEC87B887693}");
    assert_iid(&IID_IMetaDataTables, "{D8F579AB-402D-4B8E-82D9-5D63B1065C68}");
    assert_iid(&IID_IMetaDataTables2, "{BADB5F70-58DA-43A9-A1C6-D74819F19B15}");
    assert_iid(&IID_IProfilerManager, "{3A09AD0A-25C6-4093-93E1-3F64EB160A9D}");
    assert_iid(&IID_IInstrumentationMethod, "{0D92A8D9-6645-4803-B94B-06A1C4F4E633}");
    assert_iid(&IID_IMethodInfo, "{CC21A894-F4DF-4726-8318-D6C24C4985B1}");
    assert_iid(&IID_IModuleInfo2, "{4200C448-7EDE-4E61-AE67-B017D3021F12}");
    assert_iid(&IID_IInstrumentationMethodJitEvents2, "{DC5B373D-C38D-4299-83D9-129B6ACCEE2F}");
    assert_iid(&IID_IInstrumentationMethodAttach, "{3BD6C171-4F3C-45C3-8CB9-BC8C337D1683}");
    assert_iid(&CLSID_CProfilerManager, "{324F817A-7420-4E6D-B3C1-143FBED6D855}");
}

static void guid_comparison_sees_every_byte(void **state)
{
    (void)state;
    GUID a = IID_ICorProfilerCallback11;
    assert_true(IsEqualGUID(&a, &IID_ICorProfilerCallback11));
    for (size_t i = 0; i < sizeof a; i++) {
        GUID b = a;
        ((unsigned char *)&b)[i] ^= 0x01;
        assert_false(IsEqualGUID(&a, &b));
    }
    assert_false(IsEqualIID(&IID_ICorProfilerInfo14, &IID_ICorProfilerInfo15));
}

static void every_iid_is_distinct(void **state)
{
    (void)state;
#define ADDRESS(name, ...) &IID_##name,
    static const IID *const all[] = {
        CLRIE_BASE_IIDS(ADDRESS) CLRIE_CORPROF_IIDS(ADDRESS) CLRIE_METADATA_IIDS(ADDRESS)
        CLRIE_INSTRUMENTATION_IIDS(ADDRESS)
    };
#undef ADDRESS
    size_t n = sizeof all / sizeof all[0];
    assert_int_equal(n, 2 + 34 + 10 + 58);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (IsEqualIID(all[i], all[j]))
                fail_msg("IIDs %zu and %zu are equal", i, j);
}

static void hresults_have_their_published_values(void **state)
{
    (void)state;
    assert_int_equal((uint32_t)S_OK, 0);
    assert_int_equal((uint32_t)S_FALSE, 1);
    assert_int_equal((uint32_t)E_NOTIMPL, 0x80004001u);
    assert_int_equal((uint32_t)E_NOINTERFACE, 0x80004002u);
    assert_int_equal((uint32_t)E_POINTER, 0x80004003u);
    assert_int_equal((uint32_t)E_FAIL, 0x80004005u);
    assert_int_equal((uint32_t)E_OUTOFMEMORY, 0x8007000Eu);
    assert_int_equal((uint32_t)E_INVALIDARG, 0x80070057u);
    assert_int_equal((uint32_t)CLASS_E_CLASSNOTAVAILABLE, 0x80040111u);
    assert_int_equal((uint32_t)CORPROF_E_PROFILER_CANCEL_ACTIVATION, 0x80131375u);
    assert_int_equal((uint32_t)CORPROF_E_UNSUPPORTED_CALL_SEQUENCE, 0x80131363u);
    assert_int_equal((uint32_t)CORPROF_E_FUNCTION_NOT_IL, 0x80131354u);
    assert_int_equal((uint32_t)CORPROF_E_DATAINCOMPLETE, 0x80131351u);
    assert_int_equal((uint32_t)CORPROF_E_NOT_MANAGED_THREAD, 0x80131355u);
    assert_int_equal((uint32_t)CORPROF_E_REJIT_NOT_ENABLED, 0x8013137Cu);
    assert_int_equal((uint32_t)CORPROF_E_REJIT_INLINING_DISABLED, 0x80131383u);
    assert_int_equal((uint32_t)COR_E_INVALIDPROGRAM, 0x8013153Au);
    assert_int_equal((uint32_t)META_E_BADMETADATA, 0x8013118Au);
    assert_int_equal((uint32_t)CLRIE_E_FILE_NOT_FOUND, 0x80070002u);
    assert_true(SUCCEEDED(S_OK) && SUCCEEDED(S_FALSE));
    assert_true(FAILED(E_FAIL) && FAILED(CORPROF_E_PROFILER_CANCEL_ACTIVATION));
    assert_true(E_FAIL < 0);
}

static void event_masks_have_their_published_values(void **state)
{
    (void)state;
    /* CLRIE's default mask: app domain, assembly and module loads, JIT, ReJIT. */
    assert_int_equal(COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
            COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_JIT_COMPILATION |
            COR_PRF_ENABLE_REJIT,
        0x4003C);
    assert_int_equal(COR_PRF_MONITOR_REMOTING_COOKIE, 0x4400);
    assert_int_equal(COR_PRF_MONITOR_REMOTING_ASYNC, 0x8400);
    assert_int_equal(COR_PRF_MONITOR_ALL, 0x0107FFFF);
    assert_int_equal(COR_PRF_DISABLE_ALL_NGEN_IMAGES, 0x80000000u);
    assert_int_equal(COR_PRF_ALL, 0x8FFFFFFFu);
    assert_int_equal(COR_PRF_HIGH_DISABLE_TIERED_COMPILATION, 0x8);
    assert_int_equal(COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED, 0x100);
    assert_int_equal(COR_PRF_HIGH_MONITOR_IMMUTABLE, 0x8);
    assert_int_equal(COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER & COR_PRF_ENABLE_REJIT, 0);
    assert_int_equal(COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER & COR_PRF_MONITOR_ENTERLEAVE, 0);
}

static void il_opcode_ordinals_follow_the_encoding(void **state)
{
    (void)state;
    assert_int_equal(Cee_Nop, 0x00);
    assert_int_equal(Cee_Ldarg_0, 0x02);
    assert_int_equal(Cee_Br_S, 0x2B);
    assert_int_equal(Cee_Blt_Un_S, 0x37);
    assert_int_equal(Cee_Br, 0x38);
    assert_int_equal(Cee_Blt_Un, 0x44);
    assert_int_equal(Cee_Switch, 0x45);
    assert_int_equal(Cee_Ret, 0x2A);
    assert_int_equal(Cee_Call, 0x28);
    assert_int_equal(Cee_Callvirt, 0x6F);
    assert_int_equal(Cee_Leave, 0xDD);
    assert_int_equal(Cee_Leave_S, 0xDE);
    assert_int_equal(Cee_Prefixref, 0xFF);
    assert_int_equal(Cee_Arglist, 0x100);
    assert_int_equal(Cee_Ceq, 0x101);
    assert_int_equal(Cee_Unused70, 0x122);
    assert_int_equal(Cee_Count, 0x123);
    assert_int_equal(Cee_Invalid, 0xFFFF);
#define COUNT_OPCODE(name, ordinal) +1
    assert_int_equal(0 CLRIE_IL_ORDINAL_OPCODES(COUNT_OPCODE), 293);
#undef COUNT_OPCODE
}

struct two_faces {
    int tag;
    IUnknown unknown;
    IClassFactory factory;
};

static void container_of_recovers_the_object_from_any_interface(void **state)
{
    (void)state;
    struct two_faces obj = {.tag = 42};
    IClassFactory *f = &obj.factory;
    IUnknown *u = &obj.unknown;
    assert_ptr_equal(CLRIE_CONTAINER_OF(f, struct two_faces, factory), &obj);
    assert_ptr_equal(CLRIE_CONTAINER_OF(u, struct two_faces, unknown), &obj);
    assert_int_equal(CLRIE_CONTAINER_OF(f, struct two_faces, factory)->tag, 42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(iids_match_the_published_values),
        cmocka_unit_test(guid_comparison_sees_every_byte),
        cmocka_unit_test(every_iid_is_distinct),
        cmocka_unit_test(hresults_have_their_published_values),
        cmocka_unit_test(event_masks_have_their_published_values),
        cmocka_unit_test(il_opcode_ordinals_follow_the_encoding),
        cmocka_unit_test(container_of_recovers_the_object_from_any_interface),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
