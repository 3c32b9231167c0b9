/* clrie ABI: the CLR Instrumentation Engine API (InstrumentationEngine.idl), the 58
 * interfaces shared by the engine and its instrumentation methods, with their enums.
 * Same method-table form as corprof.h (see base.h). Plugins written for CLRIE in C++ see
 * the same vtables. */
#ifndef CLRIE_ABI_INSTRUMENTATION_H
#define CLRIE_ABI_INSTRUMENTATION_H

#include "clrie/abi/base.h"
#include "clrie/abi/corprof.h"
#include "clrie/abi/metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* IProfilerManager3::GetApiVersion answers this. */
#define CLR_INSTRUMENTATION_ENGINE_API_VER 7

/* The engine's class ID, {324F817A-7420-4E6D-B3C1-143FBED6D855}: what CORECLR_PROFILER
 * names. CLRIE calls it CLSID_CProfilerManager. */
#define CLRIE_CLSID_INSTRUMENTATION_ENGINE_INIT \
    CLRIE_ABI_GUID_INIT(0x324F817A, 0x7420, 0x4E6D, 0xB3, 0xC1, 0x14, 0x3F, 0xBE, 0xD6, 0xD8, 0x55)
extern const CLSID CLSID_CProfilerManager;

typedef enum LoggingFlags {
    LoggingFlags_None = 0x0,
    LoggingFlags_Errors = 0x1,
    LoggingFlags_Trace = 0x2,
    LoggingFlags_InstrumentationResults = 0x4
} LoggingFlags;
/* Every flag; the engine's own name for it, not part of the IDL. */
#define CLRIE_LOGGING_FLAGS_ALL 0x7

typedef enum ILOperandType {
    ILOperandType_None = 0,
    ILOperandType_Byte = 1,
    ILOperandType_Int = 2,
    ILOperandType_UShort = 3,
    ILOperandType_Long = 4,
    ILOperandType_Single = 5,
    ILOperandType_Double = 6,
    ILOperandType_Token = 7,
    ILOperandType_Switch = 8
} ILOperandType;

typedef enum ILOpcodeFlags {
    ILOpcodeFlag_None = 0x0,
    ILOpcodeFlag_Meta = 0x1,
    ILOpcodeFlag_Unused = 0x2,
    ILOpcodeFlag_Branch = 0x4
} ILOpcodeFlags;

typedef enum InstructionGeneration {
    Generation_Original = 1,
    Generation_Baseline = 2,
    Generation_New = 3
} InstructionGeneration;

typedef enum InstructionTerminationType {
    TerminationType_FallThrough = 0,
    TerminationType_Branch = 1,
    TerminationType_ConditionalBranch = 2,
    TerminationType_Throw = 3,
    TerminationType_Switch = 4,
    TerminationType_Call = 5,
    TerminationType_IndirectCall = 6,
    TerminationType_Return = 7,
    TerminationType_Trap = 8
} InstructionTerminationType;

/* ILOrdinalOpcode: a one-byte opcode's ordinal is its byte; a two-byte opcode 0xFE xx has
 * ordinal 0x100 | xx. Listed as X(name, ordinal), placeholders (Unused*, Prefix*) included,
 * then Cee_Count and Cee_Invalid. */
#define CLRIE_IL_ORDINAL_OPCODES(X) \
    X(Cee_Nop, 0x000) X(Cee_Break, 0x001) X(Cee_Ldarg_0, 0x002) X(Cee_Ldarg_1, 0x003) \
    X(Cee_Ldarg_2, 0x004) X(Cee_Ldarg_3, 0x005) X(Cee_Ldloc_0, 0x006) X(Cee_Ldloc_1, 0x007) \
    X(Cee_Ldloc_2, 0x008) X(Cee_Ldloc_3, 0x009) X(Cee_Stloc_0, 0x00A) X(Cee_Stloc_1, 0x00B) \
    X(Cee_Stloc_2, 0x00C) X(Cee_Stloc_3, 0x00D) X(Cee_Ldarg_S, 0x00E) X(Cee_Ldarga_S, 0x00F) \
    X(Cee_Starg_S, 0x010) X(Cee_Ldloc_S, 0x011) X(Cee_Ldloca_S, 0x012) X(Cee_Stloc_S, 0x013) \
    X(Cee_Ldnull, 0x014) X(Cee_Ldc_I4_M1, 0x015) X(Cee_Ldc_I4_0, 0x016) X(Cee_Ldc_I4_1, 0x017) \
    X(Cee_Ldc_I4_2, 0x018) X(Cee_Ldc_I4_3, 0x019) X(Cee_Ldc_I4_4, 0x01A) X(Cee_Ldc_I4_5, 0x01B) \
    X(Cee_Ldc_I4_6, 0x01C) X(Cee_Ldc_I4_7, 0x01D) X(Cee_Ldc_I4_8, 0x01E) X(Cee_Ldc_I4_S, 0x01F) \
    X(Cee_Ldc_I4, 0x020) X(Cee_Ldc_I8, 0x021) X(Cee_Ldc_R4, 0x022) X(Cee_Ldc_R8, 0x023) \
    X(Cee_Unused49, 0x024) X(Cee_Dup, 0x025) X(Cee_Pop, 0x026) X(Cee_Jmp, 0x027) \
    X(Cee_Call, 0x028) X(Cee_Calli, 0x029) X(Cee_Ret, 0x02A) X(Cee_Br_S, 0x02B) \
    X(Cee_Brfalse_S, 0x02C) X(Cee_Brtrue_S, 0x02D) X(Cee_Beq_S, 0x02E) X(Cee_Bge_S, 0x02F) \
    X(Cee_Bgt_S, 0x030) X(Cee_Ble_S, 0x031) X(Cee_Blt_S, 0x032) X(Cee_Bne_Un_S, 0x033) \
    X(Cee_Bge_Un_S, 0x034) X(Cee_Bgt_Un_S, 0x035) X(Cee_Ble_Un_S, 0x036) X(Cee_Blt_Un_S, 0x037) \
    X(Cee_Br, 0x038) X(Cee_Brfalse, 0x039) X(Cee_Brtrue, 0x03A) X(Cee_Beq, 0x03B) \
    X(Cee_Bge, 0x03C) X(Cee_Bgt, 0x03D) X(Cee_Ble, 0x03E) X(Cee_Blt, 0x03F) \
    X(Cee_Bne_Un, 0x040) X(Cee_Bge_Un, 0x041) X(Cee_Bgt_Un, 0x042) X(Cee_Ble_Un, 0x043) \
    X(Cee_Blt_Un, 0x044) X(Cee_Switch, 0x045) X(Cee_Ldind_I1, 0x046) X(Cee_Ldind_U1, 0x047) \
    X(Cee_Ldind_I2, 0x048) X(Cee_Ldind_U2, 0x049) X(Cee_Ldind_I4, 0x04A) X(Cee_Ldind_U4, 0x04B) \
    X(Cee_Ldind_I8, 0x04C) X(Cee_Ldind_I, 0x04D) X(Cee_Ldind_R4, 0x04E) X(Cee_Ldind_R8, 0x04F) \
    X(Cee_Ldind_Ref, 0x050) X(Cee_Stind_Ref, 0x051) X(Cee_Stind_I1, 0x052) X(Cee_Stind_I2, 0x053) \
    X(Cee_Stind_I4, 0x054) X(Cee_Stind_I8, 0x055) X(Cee_Stind_R4, 0x056) X(Cee_Stind_R8, 0x057) \
    X(Cee_Add, 0x058) X(Cee_Sub, 0x059) X(Cee_Mul, 0x05A) X(Cee_Div, 0x05B) \
    X(Cee_Div_Un, 0x05C) X(Cee_Rem, 0x05D) X(Cee_Rem_Un, 0x05E) X(Cee_And, 0x05F) \
    X(Cee_Or, 0x060) X(Cee_Xor, 0x061) X(Cee_Shl, 0x062) X(Cee_Shr, 0x063) \
    X(Cee_Shr_Un, 0x064) X(Cee_Neg, 0x065) X(Cee_Not, 0x066) X(Cee_Conv_I1, 0x067) \
    X(Cee_Conv_I2, 0x068) X(Cee_Conv_I4, 0x069) X(Cee_Conv_I8, 0x06A) X(Cee_Conv_R4, 0x06B) \
    X(Cee_Conv_R8, 0x06C) X(Cee_Conv_U4, 0x06D) X(Cee_Conv_U8, 0x06E) X(Cee_Callvirt, 0x06F) \
    X(Cee_Cpobj, 0x070) X(Cee_Ldobj, 0x071) X(Cee_Ldstr, 0x072) X(Cee_Newobj, 0x073) \
    X(Cee_Castclass, 0x074) X(Cee_Isinst, 0x075) X(Cee_Conv_R_Un, 0x076) X(Cee_Unused58, 0x077) \
    X(Cee_Unused1, 0x078) X(Cee_Unbox, 0x079) X(Cee_Throw, 0x07A) X(Cee_Ldfld, 0x07B) \
    X(Cee_Ldflda, 0x07C) X(Cee_Stfld, 0x07D) X(Cee_Ldsfld, 0x07E) X(Cee_Ldsflda, 0x07F) \
    X(Cee_Stsfld, 0x080) X(Cee_Stobj, 0x081) X(Cee_Conv_Ovf_I1_Un, 0x082) X(Cee_Conv_Ovf_I2_Un, 0x083) \
    X(Cee_Conv_Ovf_I4_Un, 0x084) X(Cee_Conv_Ovf_I8_Un, 0x085) X(Cee_Conv_Ovf_U1_Un, 0x086) X(Cee_Conv_Ovf_U2_Un, 0x087) \
    X(Cee_Conv_Ovf_U4_Un, 0x088) X(Cee_Conv_Ovf_U8_Un, 0x089) X(Cee_Conv_Ovf_I_Un, 0x08A) X(Cee_Conv_Ovf_U_Un, 0x08B) \
    X(Cee_Box, 0x08C) X(Cee_Newarr, 0x08D) X(Cee_Ldlen, 0x08E) X(Cee_Ldelema, 0x08F) \
    X(Cee_Ldelem_I1, 0x090) X(Cee_Ldelem_U1, 0x091) X(Cee_Ldelem_I2, 0x092) X(Cee_Ldelem_U2, 0x093) \
    X(Cee_Ldelem_I4, 0x094) X(Cee_Ldelem_U4, 0x095) X(Cee_Ldelem_I8, 0x096) X(Cee_Ldelem_I, 0x097) \
    X(Cee_Ldelem_R4, 0x098) X(Cee_Ldelem_R8, 0x099) X(Cee_Ldelem_Ref, 0x09A) X(Cee_Stelem_I, 0x09B) \
    X(Cee_Stelem_I1, 0x09C) X(Cee_Stelem_I2, 0x09D) X(Cee_Stelem_I4, 0x09E) X(Cee_Stelem_I8, 0x09F) \
    X(Cee_Stelem_R4, 0x0A0) X(Cee_Stelem_R8, 0x0A1) X(Cee_Stelem_Ref, 0x0A2) X(Cee_Ldelem, 0x0A3) \
    X(Cee_Stelem, 0x0A4) X(Cee_Unbox_Any, 0x0A5) X(Cee_Unused5, 0x0A6) X(Cee_Unused6, 0x0A7) \
    X(Cee_Unused7, 0x0A8) X(Cee_Unused8, 0x0A9) X(Cee_Unused9, 0x0AA) X(Cee_Unused10, 0x0AB) \
    X(Cee_Unused11, 0x0AC) X(Cee_Unused12, 0x0AD) X(Cee_Unused13, 0x0AE) X(Cee_Unused14, 0x0AF) \
    X(Cee_Unused15, 0x0B0) X(Cee_Unused16, 0x0B1) X(Cee_Unused17, 0x0B2) X(Cee_Conv_Ovf_I1, 0x0B3) \
    X(Cee_Conv_Ovf_U1, 0x0B4) X(Cee_Conv_Ovf_I2, 0x0B5) X(Cee_Conv_Ovf_U2, 0x0B6) X(Cee_Conv_Ovf_I4, 0x0B7) \
    X(Cee_Conv_Ovf_U4, 0x0B8) X(Cee_Conv_Ovf_I8, 0x0B9) X(Cee_Conv_Ovf_U8, 0x0BA) X(Cee_Unused50, 0x0BB) \
    X(Cee_Unused18, 0x0BC) X(Cee_Unused19, 0x0BD) X(Cee_Unused20, 0x0BE) X(Cee_Unused21, 0x0BF) \
    X(Cee_Unused22, 0x0C0) X(Cee_Unused23, 0x0C1) X(Cee_Refanyval, 0x0C2) X(Cee_Ckfinite, 0x0C3) \
    X(Cee_Unused24, 0x0C4) X(Cee_Unused25, 0x0C5) X(Cee_Mkrefany, 0x0C6) X(Cee_Unused59, 0x0C7) \
    X(Cee_Unused60, 0x0C8) X(Cee_Unused61, 0x0C9) X(Cee_Unused62, 0x0CA) X(Cee_Unused63, 0x0CB) \
    X(Cee_Unused64, 0x0CC) X(Cee_Unused65, 0x0CD) X(Cee_Unused66, 0x0CE) X(Cee_Unused67, 0x0CF) \
    X(Cee_Ldtoken, 0x0D0) X(Cee_Conv_U2, 0x0D1) X(Cee_Conv_U1, 0x0D2) X(Cee_Conv_I, 0x0D3) \
    X(Cee_Conv_Ovf_I, 0x0D4) X(Cee_Conv_Ovf_U, 0x0D5) X(Cee_Add_Ovf, 0x0D6) X(Cee_Add_Ovf_Un, 0x0D7) \
    X(Cee_Mul_Ovf, 0x0D8) X(Cee_Mul_Ovf_Un, 0x0D9) X(Cee_Sub_Ovf, 0x0DA) X(Cee_Sub_Ovf_Un, 0x0DB) \
    X(Cee_Endfinally, 0x0DC) X(Cee_Leave, 0x0DD) X(Cee_Leave_S, 0x0DE) X(Cee_Stind_I, 0x0DF) \
    X(Cee_Conv_U, 0x0E0) X(Cee_Unused26, 0x0E1) X(Cee_Unused27, 0x0E2) X(Cee_Unused28, 0x0E3) \
    X(Cee_Unused29, 0x0E4) X(Cee_Unused30, 0x0E5) X(Cee_Unused31, 0x0E6) X(Cee_Unused32, 0x0E7) \
    X(Cee_Unused33, 0x0E8) X(Cee_Unused34, 0x0E9) X(Cee_Unused35, 0x0EA) X(Cee_Unused36, 0x0EB) \
    X(Cee_Unused37, 0x0EC) X(Cee_Unused38, 0x0ED) X(Cee_Unused39, 0x0EE) X(Cee_Unused40, 0x0EF) \
    X(Cee_Unused41, 0x0F0) X(Cee_Unused42, 0x0F1) X(Cee_Unused43, 0x0F2) X(Cee_Unused44, 0x0F3) \
    X(Cee_Unused45, 0x0F4) X(Cee_Unused46, 0x0F5) X(Cee_Unused47, 0x0F6) X(Cee_Unused48, 0x0F7) \
    X(Cee_Prefix7, 0x0F8) X(Cee_Prefix6, 0x0F9) X(Cee_Prefix5, 0x0FA) X(Cee_Prefix4, 0x0FB) \
    X(Cee_Prefix3, 0x0FC) X(Cee_Prefix2, 0x0FD) X(Cee_Prefix1, 0x0FE) X(Cee_Prefixref, 0x0FF) \
    X(Cee_Arglist, 0x100) X(Cee_Ceq, 0x101) X(Cee_Cgt, 0x102) X(Cee_Cgt_Un, 0x103) \
    X(Cee_Clt, 0x104) X(Cee_Clt_Un, 0x105) X(Cee_Ldftn, 0x106) X(Cee_Ldvirtftn, 0x107) \
    X(Cee_Unused56, 0x108) X(Cee_Ldarg, 0x109) X(Cee_Ldarga, 0x10A) X(Cee_Starg, 0x10B) \
    X(Cee_Ldloc, 0x10C) X(Cee_Ldloca, 0x10D) X(Cee_Stloc, 0x10E) X(Cee_Localloc, 0x10F) \
    X(Cee_Unused57, 0x110) X(Cee_Endfilter, 0x111) X(Cee_Unaligned, 0x112) X(Cee_Volatile, 0x113) \
    X(Cee_Tailcall, 0x114) X(Cee_Initobj, 0x115) X(Cee_Constrained, 0x116) X(Cee_Cpblk, 0x117) \
    X(Cee_Initblk, 0x118) X(Cee_Unused69, 0x119) X(Cee_Rethrow, 0x11A) X(Cee_Unused51, 0x11B) \
    X(Cee_Sizeof, 0x11C) X(Cee_Refanytype, 0x11D) X(Cee_Readonly, 0x11E) X(Cee_Unused53, 0x11F) \
    X(Cee_Unused54, 0x120) X(Cee_Unused55, 0x121) X(Cee_Unused70, 0x122) X(Cee_Count, 0x123) \
    X(Cee_Invalid, 0xFFFF)

#define CLRIE_ABI_OPCODE_ENUMERATOR(name, ordinal) name = ordinal,
typedef enum ILOrdinalOpcode {
    CLRIE_IL_ORDINAL_OPCODES(CLRIE_ABI_OPCODE_ENUMERATOR)
} ILOrdinalOpcode;

/* ---- interfaces ---------------------------------------------------------------------- */

CLRIE_ABI_FORWARD(IProfilerManager)
CLRIE_ABI_FORWARD(IProfilerManager2)
CLRIE_ABI_FORWARD(IProfilerManager3)
CLRIE_ABI_FORWARD(IProfilerManager4)
CLRIE_ABI_FORWARD(IProfilerManager5)
CLRIE_ABI_FORWARD(IProfilerStringManager)
CLRIE_ABI_FORWARD(IProfilerManagerHost)
CLRIE_ABI_FORWARD(IProfilerManagerLogging)
CLRIE_ABI_FORWARD(IProfilerManagerLoggingHost)
CLRIE_ABI_FORWARD(IInstrumentationMethod)
CLRIE_ABI_FORWARD(IInstrumentationMethodExceptionEvents)
CLRIE_ABI_FORWARD(IDataContainer)
CLRIE_ABI_FORWARD(IInstruction)
CLRIE_ABI_FORWARD(IOperandInstruction)
CLRIE_ABI_FORWARD(IBranchInstruction)
CLRIE_ABI_FORWARD(ISwitchInstruction)
CLRIE_ABI_FORWARD(IEnumInstructions)
CLRIE_ABI_FORWARD(IInstructionGraph)
CLRIE_ABI_FORWARD(IEnumExceptionClauses)
CLRIE_ABI_FORWARD(IExceptionClause)
CLRIE_ABI_FORWARD(IExceptionSection)
CLRIE_ABI_FORWARD(IInstructionFactory)
CLRIE_ABI_FORWARD(IEnumAppMethodInfo)
CLRIE_ABI_FORWARD(IMethodInfo)
CLRIE_ABI_FORWARD(IMethodInfo2)
CLRIE_ABI_FORWARD(IModuleInfo)
CLRIE_ABI_FORWARD(IModuleInfo2)
CLRIE_ABI_FORWARD(IModuleInfo3)
CLRIE_ABI_FORWARD(IEnumModuleInfo)
CLRIE_ABI_FORWARD(IAssemblyInfo)
CLRIE_ABI_FORWARD(IEnumAssemblyInfo)
CLRIE_ABI_FORWARD(IAppDomainInfo)
CLRIE_ABI_FORWARD(IEnumAppDomainInfo)
CLRIE_ABI_FORWARD(IAppDomainCollection)
CLRIE_ABI_FORWARD(ILocalVariableCollection)
CLRIE_ABI_FORWARD(ILocalVariableCollection2)
CLRIE_ABI_FORWARD(IEnumMethodLocals)
CLRIE_ABI_FORWARD(IEnumMethodParameters)
CLRIE_ABI_FORWARD(IMethodLocal)
CLRIE_ABI_FORWARD(IMethodParameter)
CLRIE_ABI_FORWARD(ISignatureBuilder)
CLRIE_ABI_FORWARD(IEnumTypes)
CLRIE_ABI_FORWARD(ISignatureParser)
CLRIE_ABI_FORWARD(IType)
CLRIE_ABI_FORWARD(ITokenType)
CLRIE_ABI_FORWARD(ICompositeType)
CLRIE_ABI_FORWARD(IGenericParameterType)
CLRIE_ABI_FORWARD(ITypeCreator)
CLRIE_ABI_FORWARD(ISingleRetDefaultInstrumentation)
CLRIE_ABI_FORWARD(ISingleRetDefaultInstrumentation2)
CLRIE_ABI_FORWARD(IInstrumentationMethodJitEvents)
CLRIE_ABI_FORWARD(IMethodJitInfo)
CLRIE_ABI_FORWARD(IMethodJitInfo2)
CLRIE_ABI_FORWARD(IInstrumentationMethodJitEvents2)
CLRIE_ABI_FORWARD(IInstrumentationMethodSetting)
CLRIE_ABI_FORWARD(IEnumInstrumentationMethodSettings)
CLRIE_ABI_FORWARD(IInstrumentationMethodAttachContext)
CLRIE_ABI_FORWARD(IInstrumentationMethodAttach)

/* IProfilerManager : IUnknown, 13 methods, 16 slots */
#define CLRIE_IPROFILERMANAGER_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, SetupProfilingEnvironment, \
      (SELF, BSTR bstrConfigPath[], UINT numConfigPaths), \
      (OBJ, bstrConfigPath, numConfigPaths)) \
    X(HRESULT, AddRawProfilerHook, \
      (SELF, IUnknown *pUnkProfilerCallback), \
      (OBJ, pUnkProfilerCallback)) \
    X(HRESULT, RemoveRawProfilerHook, (SELF), (OBJ)) \
    X(HRESULT, GetCorProfilerInfo, (SELF, IUnknown **ppCorProfiler), (OBJ, ppCorProfiler)) \
    X(HRESULT, GetProfilerHost, \
      (SELF, IProfilerManagerHost **ppProfilerManagerHost), \
      (OBJ, ppProfilerManagerHost)) \
    X(HRESULT, GetLoggingInstance, (SELF, IProfilerManagerLogging **ppLogging), (OBJ, ppLogging)) \
    X(HRESULT, SetLoggingHost, \
      (SELF, IProfilerManagerLoggingHost *pLoggingHost), \
      (OBJ, pLoggingHost)) \
    X(HRESULT, GetAppDomainCollection, \
      (SELF, IAppDomainCollection **ppAppDomainCollection), \
      (OBJ, ppAppDomainCollection)) \
    X(HRESULT, CreateSignatureBuilder, \
      (SELF, ISignatureBuilder **ppSignatureBuilder), \
      (OBJ, ppSignatureBuilder)) \
    X(HRESULT, GetInstrumentationMethod, \
      (SELF, REFGUID cslid, IUnknown **ppUnknown), \
      (OBJ, cslid, ppUnknown)) \
    X(HRESULT, RemoveInstrumentationMethod, \
      (SELF, IInstrumentationMethod *pInstrumentationMethod), \
      (OBJ, pInstrumentationMethod)) \
    X(HRESULT, AddInstrumentationMethod, \
      (SELF, BSTR bstrModulePath, BSTR bstrName, BSTR bstrDescription, BSTR bstrModule, \
       BSTR bstrClassGuid, DWORD dwPriority, IInstrumentationMethod **pInstrumentationMethod), \
      (OBJ, bstrModulePath, bstrName, bstrDescription, bstrModule, bstrClassGuid, dwPriority, \
       pInstrumentationMethod)) \
    X(HRESULT, GetRuntimeType, (SELF, COR_PRF_RUNTIME_TYPE *pRuntimeType), (OBJ, pRuntimeType))

/* IProfilerManager2 : IUnknown, 2 methods, 5 slots */
#define CLRIE_IPROFILERMANAGER2_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, DisableProfiling, (SELF), (OBJ)) \
    X(HRESULT, ApplyMetadata, (SELF, IModuleInfo *pMethodInfo), (OBJ, pMethodInfo))

/* IProfilerManager3 : IUnknown, 1 method, 4 slots */
#define CLRIE_IPROFILERMANAGER3_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetApiVersion, (SELF, DWORD *pApiVer), (OBJ, pApiVer))

/* IProfilerManager4 : IUnknown, 1 method, 4 slots */
#define CLRIE_IPROFILERMANAGER4_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetGlobalLoggingInstance, \
      (SELF, IProfilerManagerLogging **ppLogging), \
      (OBJ, ppLogging))

/* IProfilerManager5 : IUnknown, 1 method, 4 slots */
#define CLRIE_IPROFILERMANAGER5_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, IsInstrumentationMethodRegistered, \
      (SELF, REFGUID cslid, BOOL *pfRegistered), \
      (OBJ, cslid, pfRegistered))

/* IProfilerStringManager : IUnknown, 1 method, 4 slots */
#define CLRIE_IPROFILERSTRINGMANAGER_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, FreeString, (SELF, BSTR bstr), (OBJ, bstr))

/* IProfilerManagerHost : IUnknown, 1 method, 4 slots */
#define CLRIE_IPROFILERMANAGERHOST_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Initialize, (SELF, IProfilerManager *pProfilerManager), (OBJ, pProfilerManager))

/* IProfilerManagerLogging : IUnknown, 6 methods, 9 slots */
#define CLRIE_IPROFILERMANAGERLOGGING_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, LogMessage, (SELF, const WCHAR *wszMessage), (OBJ, wszMessage)) \
    X(HRESULT, LogError, (SELF, const WCHAR *wszError), (OBJ, wszError)) \
    X(HRESULT, LogDumpMessage, (SELF, const WCHAR *wszMessage), (OBJ, wszMessage)) \
    X(HRESULT, EnableDiagnosticLogToDebugPort, (SELF, BOOL enable), (OBJ, enable)) \
    X(HRESULT, GetLoggingFlags, (SELF, LoggingFlags *pLoggingFlags), (OBJ, pLoggingFlags)) \
    X(HRESULT, SetLoggingFlags, (SELF, LoggingFlags loggingFlags), (OBJ, loggingFlags))

/* IProfilerManagerLoggingHost : IUnknown, 3 methods, 6 slots */
#define CLRIE_IPROFILERMANAGERLOGGINGHOST_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, LogMessage, (SELF, const WCHAR *wszMessage), (OBJ, wszMessage)) \
    X(HRESULT, LogError, (SELF, const WCHAR *wszError), (OBJ, wszError)) \
    X(HRESULT, LogDumpMessage, (SELF, const WCHAR *wszMessage), (OBJ, wszMessage))

/* IInstrumentationMethod : IUnknown, 13 methods, 16 slots */
#define CLRIE_IINSTRUMENTATIONMETHOD_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Initialize, (SELF, IProfilerManager *pProfilerManager), (OBJ, pProfilerManager)) \
    X(HRESULT, OnAppDomainCreated, (SELF, IAppDomainInfo *pAppDomainInfo), (OBJ, pAppDomainInfo)) \
    X(HRESULT, OnAppDomainShutdown, (SELF, IAppDomainInfo *pAppDomainInfo), (OBJ, pAppDomainInfo)) \
    X(HRESULT, OnAssemblyLoaded, (SELF, IAssemblyInfo *pAssemblyInfo), (OBJ, pAssemblyInfo)) \
    X(HRESULT, OnAssemblyUnloaded, (SELF, IAssemblyInfo *pAssemblyInfo), (OBJ, pAssemblyInfo)) \
    X(HRESULT, OnModuleLoaded, (SELF, IModuleInfo *pModuleInfo), (OBJ, pModuleInfo)) \
    X(HRESULT, OnModuleUnloaded, (SELF, IModuleInfo *pModuleInfo), (OBJ, pModuleInfo)) \
    X(HRESULT, OnShutdown, (SELF), (OBJ)) \
    X(HRESULT, ShouldInstrumentMethod, \
      (SELF, IMethodInfo *pMethodInfo, BOOL isRejit, BOOL *pbInstrument), \
      (OBJ, pMethodInfo, isRejit, pbInstrument)) \
    X(HRESULT, BeforeInstrumentMethod, \
      (SELF, IMethodInfo *pMethodInfo, BOOL isRejit), \
      (OBJ, pMethodInfo, isRejit)) \
    X(HRESULT, InstrumentMethod, \
      (SELF, IMethodInfo *pMethodInfo, BOOL isRejit), \
      (OBJ, pMethodInfo, isRejit)) \
    X(HRESULT, OnInstrumentationComplete, \
      (SELF, IMethodInfo *pMethodInfo, BOOL isRejit), \
      (OBJ, pMethodInfo, isRejit)) \
    X(HRESULT, AllowInlineSite, \
      (SELF, IMethodInfo *pMethodInfoInlinee, IMethodInfo *pMethodInfoCaller, \
       BOOL *pbAllowInline), \
      (OBJ, pMethodInfoInlinee, pMethodInfoCaller, pbAllowInline))

/* IInstrumentationMethodExceptionEvents : IUnknown, 12 methods, 15 slots */
#define CLRIE_IINSTRUMENTATIONMETHODEXCEPTIONEVENTS_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, ExceptionCatcherEnter, \
      (SELF, IMethodInfo *pMethodInfo, UINT_PTR objectId), \
      (OBJ, pMethodInfo, objectId)) \
    X(HRESULT, ExceptionCatcherLeave, (SELF), (OBJ)) \
    X(HRESULT, ExceptionSearchCatcherFound, (SELF, IMethodInfo *pMethodInfo), (OBJ, pMethodInfo)) \
    X(HRESULT, ExceptionSearchFilterEnter, (SELF, IMethodInfo *pMethodInfo), (OBJ, pMethodInfo)) \
    X(HRESULT, ExceptionSearchFilterLeave, (SELF), (OBJ)) \
    X(HRESULT, ExceptionSearchFunctionEnter, (SELF, IMethodInfo *pMethodInfo), (OBJ, pMethodInfo)) \
    X(HRESULT, ExceptionSearchFunctionLeave, (SELF), (OBJ)) \
    X(HRESULT, ExceptionThrown, (SELF, UINT_PTR thrownObjectId), (OBJ, thrownObjectId)) \
    X(HRESULT, ExceptionUnwindFinallyEnter, (SELF, IMethodInfo *pMethodInfo), (OBJ, pMethodInfo)) \
    X(HRESULT, ExceptionUnwindFinallyLeave, (SELF), (OBJ)) \
    X(HRESULT, ExceptionUnwindFunctionEnter, (SELF, IMethodInfo *pMethodInfo), (OBJ, pMethodInfo)) \
    X(HRESULT, ExceptionUnwindFunctionLeave, (SELF), (OBJ))

/* IDataContainer : IUnknown, 2 methods, 5 slots */
#define CLRIE_IDATACONTAINER_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, SetDataItem, \
      (SELF, const GUID *componentId, const GUID *objectGuid, IUnknown *pDataItem), \
      (OBJ, componentId, objectGuid, pDataItem)) \
    X(HRESULT, GetDataItem, \
      (SELF, const GUID *componentId, const GUID *objectGuid, IUnknown **ppDataItem), \
      (OBJ, componentId, objectGuid, ppDataItem))

/* IInstruction : IUnknown, 22 methods, 25 slots */
#define CLRIE_IINSTRUCTION_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetOffset, (SELF, DWORD *pdwOffset), (OBJ, pdwOffset)) \
    X(HRESULT, GetOriginalOffset, (SELF, DWORD *pdwOffset), (OBJ, pdwOffset)) \
    X(HRESULT, GetOpCodeName, (SELF, BSTR *pbstrName), (OBJ, pbstrName)) \
    X(HRESULT, GetOpCode, (SELF, ILOrdinalOpcode *pOpCode), (OBJ, pOpCode)) \
    X(HRESULT, GetAlternateOrdinalOpcode, (SELF, ILOrdinalOpcode *pOpCode), (OBJ, pOpCode)) \
    X(HRESULT, GetInstructionLength, (SELF, DWORD *pdwLength), (OBJ, pdwLength)) \
    X(HRESULT, GetOpcodeFlags, (SELF, ILOpcodeFlags *pFlags), (OBJ, pFlags)) \
    X(HRESULT, GetOpcodeLength, (SELF, DWORD *pdwLength), (OBJ, pdwLength)) \
    X(HRESULT, GetOperandType, (SELF, ILOperandType *pType), (OBJ, pType)) \
    X(HRESULT, GetOperandLength, (SELF, DWORD *pdwLength), (OBJ, pdwLength)) \
    X(HRESULT, GetIsNew, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsRemoved, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsBranch, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsSwitch, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsCallInstruction, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetTerminationType, \
      (SELF, InstructionTerminationType *pTerminationType), \
      (OBJ, pTerminationType)) \
    X(HRESULT, GetIsFallThrough, (SELF, BOOL *pbIsFallThrough), (OBJ, pbIsFallThrough)) \
    X(HRESULT, GetNextInstruction, \
      (SELF, IInstruction **ppNextInstruction), \
      (OBJ, ppNextInstruction)) \
    X(HRESULT, GetPreviousInstruction, \
      (SELF, IInstruction **ppPrevInstruction), \
      (OBJ, ppPrevInstruction)) \
    X(HRESULT, GetOriginalNextInstruction, \
      (SELF, IInstruction **ppNextInstruction), \
      (OBJ, ppNextInstruction)) \
    X(HRESULT, GetOriginalPreviousInstruction, \
      (SELF, IInstruction **ppPrevInstruction), \
      (OBJ, ppPrevInstruction)) \
    X(HRESULT, GetInstructionGeneration, \
      (SELF, InstructionGeneration *pInstructionGeneration), \
      (OBJ, pInstructionGeneration))

/* IOperandInstruction : IUnknown, 3 methods, 6 slots */
#define CLRIE_IOPERANDINSTRUCTION_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetOperandType, (SELF, ILOperandType *pType), (OBJ, pType)) \
    X(HRESULT, GetOperandValue, (SELF, DWORD dwSize, BYTE *pBytes), (OBJ, dwSize, pBytes)) \
    X(HRESULT, SetOperandValue, (SELF, DWORD dwSize, BYTE *pBytes), (OBJ, dwSize, pBytes))

/* IBranchInstruction : IUnknown, 5 methods, 8 slots */
#define CLRIE_IBRANCHINSTRUCTION_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, IsShortBranch, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, ExpandBranch, (SELF), (OBJ)) \
    X(HRESULT, GetBranchTarget, (SELF, IInstruction **ppTarget), (OBJ, ppTarget)) \
    X(HRESULT, GetTargetOffset, (SELF, DWORD *pOffset), (OBJ, pOffset)) \
    X(HRESULT, SetBranchTarget, (SELF, IInstruction *pTarget), (OBJ, pTarget))

/* ISwitchInstruction : IUnknown, 7 methods, 10 slots */
#define CLRIE_ISWITCHINSTRUCTION_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetBranchTarget, \
      (SELF, DWORD index, IInstruction **ppTarget), \
      (OBJ, index, ppTarget)) \
    X(HRESULT, SetBranchTarget, (SELF, DWORD index, IInstruction *pTarget), (OBJ, index, pTarget)) \
    X(HRESULT, RemoveBranchTargetAt, (SELF, DWORD index), (OBJ, index)) \
    X(HRESULT, RemoveBranchTarget, (SELF, IInstruction *pTarget), (OBJ, pTarget)) \
    X(HRESULT, ReplaceBranchTarget, \
      (SELF, IInstruction *pOriginal, IInstruction *pNew), \
      (OBJ, pOriginal, pNew)) \
    X(HRESULT, GetBranchCount, (SELF, DWORD *pBranchCount), (OBJ, pBranchCount)) \
    X(HRESULT, GetBranchOffset, (SELF, DWORD index, DWORD *pdwOffset), (OBJ, index, pdwOffset))

/* IEnumInstructions : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMINSTRUCTIONS_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IInstruction **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumInstructions **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* IInstructionGraph : IUnknown, 19 methods, 22 slots */
#define CLRIE_IINSTRUCTIONGRAPH_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetMethodInfo, (SELF, IMethodInfo **ppMethodInfo), (OBJ, ppMethodInfo)) \
    X(HRESULT, GetFirstInstruction, (SELF, IInstruction **ppInstruction), (OBJ, ppInstruction)) \
    X(HRESULT, GetLastInstruction, (SELF, IInstruction **ppInstruction), (OBJ, ppInstruction)) \
    X(HRESULT, GetOriginalFirstInstruction, \
      (SELF, IInstruction **ppInstruction), \
      (OBJ, ppInstruction)) \
    X(HRESULT, GetOriginalLastInstruction, \
      (SELF, IInstruction **ppInstruction), \
      (OBJ, ppInstruction)) \
    X(HRESULT, GetUninstrumentedFirstInstruction, \
      (SELF, IInstruction **ppInstruction), \
      (OBJ, ppInstruction)) \
    X(HRESULT, GetUninstrumentedLastInstruction, \
      (SELF, IInstruction **ppInstruction), \
      (OBJ, ppInstruction)) \
    X(HRESULT, GetInstructionAtOffset, \
      (SELF, DWORD offset, IInstruction **ppInstruction), \
      (OBJ, offset, ppInstruction)) \
    X(HRESULT, GetInstructionAtOriginalOffset, \
      (SELF, DWORD offset, IInstruction **ppInstruction), \
      (OBJ, offset, ppInstruction)) \
    X(HRESULT, GetInstructionAtUninstrumentedOffset, \
      (SELF, DWORD dwOffset, IInstruction **ppInstruction), \
      (OBJ, dwOffset, ppInstruction)) \
    X(HRESULT, InsertBefore, \
      (SELF, IInstruction *pInstructionOrig, IInstruction *pInstructionNew), \
      (OBJ, pInstructionOrig, pInstructionNew)) \
    X(HRESULT, InsertAfter, \
      (SELF, IInstruction *pInstructionOrig, IInstruction *pInstructionNew), \
      (OBJ, pInstructionOrig, pInstructionNew)) \
    X(HRESULT, InsertBeforeAndRetargetOffsets, \
      (SELF, IInstruction *pInstructionOrig, IInstruction *pInstructionNew), \
      (OBJ, pInstructionOrig, pInstructionNew)) \
    X(HRESULT, Replace, \
      (SELF, IInstruction *pInstructionOrig, IInstruction *pInstructionNew), \
      (OBJ, pInstructionOrig, pInstructionNew)) \
    X(HRESULT, Remove, (SELF, IInstruction *pInstructionOrig), (OBJ, pInstructionOrig)) \
    X(HRESULT, RemoveAll, (SELF), (OBJ)) \
    X(HRESULT, CreateBaseline, \
      (SELF, LPCBYTE pCodeBase, LPCBYTE pEndOfCode, DWORD originalToBaselineCorIlMapSize, \
       COR_IL_MAP originalToBaselineCorIlMap[], DWORD baselineSequencePointSize, \
       DWORD baselineSequencePointList[]), \
      (OBJ, pCodeBase, pEndOfCode, originalToBaselineCorIlMapSize, originalToBaselineCorIlMap, \
       baselineSequencePointSize, baselineSequencePointList)) \
    X(HRESULT, HasBaselineBeenSet, (SELF, BOOL *pHasBaselineBeenSet), (OBJ, pHasBaselineBeenSet)) \
    X(HRESULT, ExpandBranches, (SELF), (OBJ))

/* IEnumExceptionClauses : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMEXCEPTIONCLAUSES_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IExceptionClause **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumExceptionClauses **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* IExceptionClause : IUnknown, 14 methods, 17 slots */
#define CLRIE_IEXCEPTIONCLAUSE_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetFlags, (SELF, DWORD *pFlags), (OBJ, pFlags)) \
    X(HRESULT, GetTryFirstInstruction, (SELF, IInstruction **ppInstruction), (OBJ, ppInstruction)) \
    X(HRESULT, GetTryLastInstruction, (SELF, IInstruction **ppInstruction), (OBJ, ppInstruction)) \
    X(HRESULT, GetHandlerFirstInstruction, \
      (SELF, IInstruction **ppInstruction), \
      (OBJ, ppInstruction)) \
    X(HRESULT, GetHandlerLastInstruction, \
      (SELF, IInstruction **ppInstruction), \
      (OBJ, ppInstruction)) \
    X(HRESULT, GetFilterFirstInstruction, \
      (SELF, IInstruction **ppInstruction), \
      (OBJ, ppInstruction)) \
    X(HRESULT, GetExceptionHandlerType, (SELF, mdToken *pToken), (OBJ, pToken)) \
    X(HRESULT, SetFlags, (SELF, DWORD flags), (OBJ, flags)) \
    X(HRESULT, SetTryFirstInstruction, (SELF, IInstruction *pInstruction), (OBJ, pInstruction)) \
    X(HRESULT, SetTryLastInstruction, (SELF, IInstruction *pInstruction), (OBJ, pInstruction)) \
    X(HRESULT, SetHandlerFirstInstruction, \
      (SELF, IInstruction *pInstruction), \
      (OBJ, pInstruction)) \
    X(HRESULT, SetHandlerLastInstruction, (SELF, IInstruction *pInstruction), (OBJ, pInstruction)) \
    X(HRESULT, SetFilterFirstInstruction, (SELF, IInstruction *pInstruction), (OBJ, pInstruction)) \
    X(HRESULT, SetExceptionHandlerType, (SELF, mdToken token), (OBJ, token))

/* IExceptionSection : IUnknown, 6 methods, 9 slots */
#define CLRIE_IEXCEPTIONSECTION_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetMethodInfo, (SELF, IMethodInfo **ppMethodInfo), (OBJ, ppMethodInfo)) \
    X(HRESULT, GetExceptionClauses, \
      (SELF, IEnumExceptionClauses **ppEnumExceptionClauses), \
      (OBJ, ppEnumExceptionClauses)) \
    X(HRESULT, AddExceptionClause, \
      (SELF, IExceptionClause *pExceptionClause), \
      (OBJ, pExceptionClause)) \
    X(HRESULT, RemoveExceptionClause, \
      (SELF, IExceptionClause *pExceptionClause), \
      (OBJ, pExceptionClause)) \
    X(HRESULT, RemoveAllExceptionClauses, (SELF), (OBJ)) \
    X(HRESULT, AddNewExceptionClause, \
      (SELF, DWORD flags, IInstruction *pTryFirstInstruction, IInstruction *pTryLastInstruction, \
       IInstruction *pHandlerFirstInstruction, IInstruction *pHandlerLastInstruction, \
       IInstruction *pFilterLastInstruction, mdToken handlerTypeToken, \
       IExceptionClause **ppExceptionClause), \
      (OBJ, flags, pTryFirstInstruction, pTryLastInstruction, pHandlerFirstInstruction, \
       pHandlerLastInstruction, pFilterLastInstruction, handlerTypeToken, ppExceptionClause))

/* IInstructionFactory : IUnknown, 17 methods, 20 slots */
#define CLRIE_IINSTRUCTIONFACTORY_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, CreateInstruction, \
      (SELF, ILOrdinalOpcode opcode, IInstruction **ppInstruction), \
      (OBJ, opcode, ppInstruction)) \
    X(HRESULT, CreateByteOperandInstruction, \
      (SELF, ILOrdinalOpcode opcode, BYTE operand, IInstruction **ppInstruction), \
      (OBJ, opcode, operand, ppInstruction)) \
    X(HRESULT, CreateUShortOperandInstruction, \
      (SELF, ILOrdinalOpcode opcode, USHORT operand, IInstruction **ppInstruction), \
      (OBJ, opcode, operand, ppInstruction)) \
    X(HRESULT, CreateIntOperandInstruction, \
      (SELF, ILOrdinalOpcode opcode, INT32 operand, IInstruction **ppInstruction), \
      (OBJ, opcode, operand, ppInstruction)) \
    X(HRESULT, CreateLongOperandInstruction, \
      (SELF, ILOrdinalOpcode opcode, INT64 operand, IInstruction **ppInstruction), \
      (OBJ, opcode, operand, ppInstruction)) \
    X(HRESULT, CreateFloatOperandInstruction, \
      (SELF, ILOrdinalOpcode opcode, float operand, IInstruction **ppInstruction), \
      (OBJ, opcode, operand, ppInstruction)) \
    X(HRESULT, CreateDoubleOperandInstruction, \
      (SELF, ILOrdinalOpcode opcode, double operand, IInstruction **ppInstruction), \
      (OBJ, opcode, operand, ppInstruction)) \
    X(HRESULT, CreateTokenOperandInstruction, \
      (SELF, ILOrdinalOpcode opcode, mdToken operand, IInstruction **ppInstruction), \
      (OBJ, opcode, operand, ppInstruction)) \
    X(HRESULT, CreateBranchInstruction, \
      (SELF, ILOrdinalOpcode opcode, IInstruction *pBranchTarget, IInstruction **ppInstruction), \
      (OBJ, opcode, pBranchTarget, ppInstruction)) \
    X(HRESULT, CreateSwitchInstruction, \
      (SELF, ILOrdinalOpcode opcode, DWORD cBranchTargets, IInstruction **ppBranchTargets, \
       IInstruction **ppInstruction), \
      (OBJ, opcode, cBranchTargets, ppBranchTargets, ppInstruction)) \
    X(HRESULT, CreateLoadConstInstruction, \
      (SELF, int value, IInstruction **ppInstruction), \
      (OBJ, value, ppInstruction)) \
    X(HRESULT, CreateLoadLocalInstruction, \
      (SELF, USHORT index, IInstruction **ppInstruction), \
      (OBJ, index, ppInstruction)) \
    X(HRESULT, CreateLoadLocalAddressInstruction, \
      (SELF, USHORT index, IInstruction **ppInstruction), \
      (OBJ, index, ppInstruction)) \
    X(HRESULT, CreateStoreLocalInstruction, \
      (SELF, USHORT index, IInstruction **ppInstruction), \
      (OBJ, index, ppInstruction)) \
    X(HRESULT, CreateLoadArgInstruction, \
      (SELF, USHORT index, IInstruction **ppInstruction), \
      (OBJ, index, ppInstruction)) \
    X(HRESULT, CreateLoadArgAddressInstruction, \
      (SELF, USHORT index, IInstruction **ppInstruction), \
      (OBJ, index, ppInstruction)) \
    X(HRESULT, DecodeInstructionByteStream, \
      (SELF, DWORD cbMethod, LPCBYTE instructionBytes, IInstructionGraph **ppInstructionGraph), \
      (OBJ, cbMethod, instructionBytes, ppInstructionGraph))

/* IEnumAppMethodInfo : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMAPPMETHODINFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IEnumAppMethodInfo **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumAppMethodInfo **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* IMethodInfo : IUnknown, 33 methods, 36 slots */
#define CLRIE_IMETHODINFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetModuleInfo, (SELF, IModuleInfo **ppModuleInfo), (OBJ, ppModuleInfo)) \
    X(HRESULT, GetName, (SELF, BSTR *pbstrName), (OBJ, pbstrName)) \
    X(HRESULT, GetFullName, (SELF, BSTR *pbstrFullName), (OBJ, pbstrFullName)) \
    X(HRESULT, GetInstructions, \
      (SELF, IInstructionGraph **ppInstructionGraph), \
      (OBJ, ppInstructionGraph)) \
    X(HRESULT, GetLocalVariables, \
      (SELF, ILocalVariableCollection **ppLocalVariables), \
      (OBJ, ppLocalVariables)) \
    X(HRESULT, GetClassId, (SELF, ClassID *pClassId), (OBJ, pClassId)) \
    X(HRESULT, GetFunctionId, (SELF, FunctionID *pFunctionID), (OBJ, pFunctionID)) \
    X(HRESULT, GetMethodToken, (SELF, mdToken *pToken), (OBJ, pToken)) \
    X(HRESULT, GetGenericParameterCount, (SELF, DWORD *pCount), (OBJ, pCount)) \
    X(HRESULT, GetIsStatic, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsPublic, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsPrivate, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsPropertyGetter, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsPropertySetter, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsFinalizer, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsConstructor, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsStaticConstructor, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetParameters, (SELF, IEnumMethodParameters **pMethodArgs), (OBJ, pMethodArgs)) \
    X(HRESULT, GetDeclaringType, (SELF, IType **ppType), (OBJ, ppType)) \
    X(HRESULT, GetReturnType, (SELF, IType **ppType), (OBJ, ppType)) \
    X(HRESULT, GetCorSignature, \
      (SELF, DWORD cbBuffer, BYTE *pCorSignature, DWORD *pcbSignature), \
      (OBJ, cbBuffer, pCorSignature, pcbSignature)) \
    X(HRESULT, GetLocalVarSigToken, (SELF, mdToken *pToken), (OBJ, pToken)) \
    X(HRESULT, SetLocalVarSigToken, (SELF, mdToken token), (OBJ, token)) \
    X(HRESULT, GetAttributes, (SELF, DWORD *pCorMethodAttr), (OBJ, pCorMethodAttr)) \
    X(HRESULT, GetRejitCodeGenFlags, (SELF, DWORD *pRefitFlags), (OBJ, pRefitFlags)) \
    X(HRESULT, GetCodeRva, (SELF, DWORD *pRva), (OBJ, pRva)) \
    X(HRESULT, MethodImplFlags, (SELF, UINT *pCorMethodImpl), (OBJ, pCorMethodImpl)) \
    X(HRESULT, SetRejitCodeGenFlags, (SELF, DWORD dwFlags), (OBJ, dwFlags)) \
    X(HRESULT, GetExceptionSection, \
      (SELF, IExceptionSection **ppExceptionSection), \
      (OBJ, ppExceptionSection)) \
    X(HRESULT, GetInstructionFactory, \
      (SELF, IInstructionFactory **ppInstructionFactory), \
      (OBJ, ppInstructionFactory)) \
    X(HRESULT, GetRejitCount, (SELF, DWORD *pdwRejitCount), (OBJ, pdwRejitCount)) \
    X(HRESULT, GetMaxStack, (SELF, DWORD *pMaxStack), (OBJ, pMaxStack)) \
    X(HRESULT, GetSingleRetDefaultInstrumentation, \
      (SELF, ISingleRetDefaultInstrumentation **ppSingleRetDefaultInstrumentation), \
      (OBJ, ppSingleRetDefaultInstrumentation))

/* IMethodInfo2 : IMethodInfo, 1 method, 37 slots */
#define CLRIE_IMETHODINFO2_METHODS(X, SELF, OBJ) \
    CLRIE_IMETHODINFO_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetOriginalLocalVariables, \
      (SELF, ILocalVariableCollection **ppLocalVariables), \
      (OBJ, ppLocalVariables))

/* IModuleInfo : IUnknown, 25 methods, 28 slots */
#define CLRIE_IMODULEINFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetModuleName, (SELF, BSTR *pbstrModuleName), (OBJ, pbstrModuleName)) \
    X(HRESULT, GetFullPath, (SELF, BSTR *pbstrFullPath), (OBJ, pbstrFullPath)) \
    X(HRESULT, GetAssemblyInfo, (SELF, IAssemblyInfo **ppAssemblyInfo), (OBJ, ppAssemblyInfo)) \
    X(HRESULT, GetAppDomainInfo, (SELF, IAppDomainInfo **ppAppDomainInfo), (OBJ, ppAppDomainInfo)) \
    X(HRESULT, GetMetaDataImport, (SELF, IUnknown **ppMetaDataImport), (OBJ, ppMetaDataImport)) \
    X(HRESULT, GetMetaDataAssemblyImport, \
      (SELF, IUnknown **ppMetaDataAssemblyImport), \
      (OBJ, ppMetaDataAssemblyImport)) \
    X(HRESULT, GetMetaDataEmit, (SELF, IUnknown **ppMetaDataEmit), (OBJ, ppMetaDataEmit)) \
    X(HRESULT, GetMetaDataAssemblyEmit, \
      (SELF, IUnknown **ppMetaDataAssemblyEmit), \
      (OBJ, ppMetaDataAssemblyEmit)) \
    X(HRESULT, GetModuleID, (SELF, ModuleID *pModuleId), (OBJ, pModuleId)) \
    X(HRESULT, GetMVID, (SELF, GUID *pguidMvid), (OBJ, pguidMvid)) \
    X(HRESULT, GetIsILOnly, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsMscorlib, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsDynamic, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsNgen, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsWinRT, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIs64bit, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetImageBase, (SELF, LPCBYTE *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetCorHeader, (SELF, DWORD cbValue, BYTE *pbValue), (OBJ, cbValue, pbValue)) \
    X(HRESULT, GetEntrypointToken, (SELF, DWORD *pdwEntrypointToken), (OBJ, pdwEntrypointToken)) \
    X(HRESULT, GetModuleVersion, (SELF, DWORD cbValue, BYTE *pbValue), (OBJ, cbValue, pbValue)) \
    X(HRESULT, RequestRejit, (SELF, mdToken methodToken), (OBJ, methodToken)) \
    X(HRESULT, CreateTypeFactory, (SELF, ITypeCreator **ppTypeFactory), (OBJ, ppTypeFactory)) \
    X(HRESULT, GetMethodInfoById, \
      (SELF, FunctionID functionID, IMethodInfo **ppMethodInfo), \
      (OBJ, functionID, ppMethodInfo)) \
    X(HRESULT, GetMethodInfoByToken, \
      (SELF, mdToken token, IMethodInfo **ppMethodInfo), \
      (OBJ, token, ppMethodInfo)) \
    X(HRESULT, ImportModule, \
      (SELF, IUnknown *pSourceModuleMetadataImport, LPCBYTE *pSourceImage), \
      (OBJ, pSourceModuleMetadataImport, pSourceImage))

/* IModuleInfo2 : IModuleInfo, 2 methods, 30 slots */
#define CLRIE_IMODULEINFO2_METHODS(X, SELF, OBJ) \
    CLRIE_IMODULEINFO_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetIsFlatLayout, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, ResolveRva, \
      (SELF, DWORD rva, LPCBYTE *ppbResolvedAddress), \
      (OBJ, rva, ppbResolvedAddress))

/* IModuleInfo3 : IModuleInfo2, 1 method, 31 slots */
#define CLRIE_IMODULEINFO3_METHODS(X, SELF, OBJ) \
    CLRIE_IMODULEINFO2_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetIsLoadedFromDisk, (SELF, BOOL *pbValue), (OBJ, pbValue))

/* IEnumModuleInfo : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMMODULEINFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IModuleInfo **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumModuleInfo **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* IAssemblyInfo : IUnknown, 15 methods, 18 slots */
#define CLRIE_IASSEMBLYINFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetAppDomainInfo, (SELF, IAppDomainInfo **ppAppDomainInfo), (OBJ, ppAppDomainInfo)) \
    X(HRESULT, GetModuleCount, (SELF, ULONG *pcModuleInfos), (OBJ, pcModuleInfos)) \
    X(HRESULT, GetModules, \
      (SELF, ULONG cModuleInfos, IEnumModuleInfo **pModuleInfos), \
      (OBJ, cModuleInfos, pModuleInfos)) \
    X(HRESULT, GetModuleById, \
      (SELF, ModuleID moduleId, IModuleInfo **ppModuleInfo), \
      (OBJ, moduleId, ppModuleInfo)) \
    X(HRESULT, GetModuleByMvid, \
      (SELF, GUID *pMvid, IModuleInfo **ppModuleInfo), \
      (OBJ, pMvid, ppModuleInfo)) \
    X(HRESULT, GetModulesByName, \
      (SELF, BSTR pszModuleName, IEnumModuleInfo **ppModuleInfo), \
      (OBJ, pszModuleName, ppModuleInfo)) \
    X(HRESULT, GetModuleForMethod, \
      (SELF, mdToken token, IModuleInfo **ppModuleInfo), \
      (OBJ, token, ppModuleInfo)) \
    X(HRESULT, GetModuleForType, \
      (SELF, BSTR pszTypeName, mdToken tkResolutionScope, mdToken *pTkTypeDef), \
      (OBJ, pszTypeName, tkResolutionScope, pTkTypeDef)) \
    X(HRESULT, GetManifestModule, (SELF, IModuleInfo **ppModuleInfo), (OBJ, ppModuleInfo)) \
    X(HRESULT, GetPublicKey, (SELF, ULONG cbBytes, BYTE *pbBytes), (OBJ, cbBytes, pbBytes)) \
    X(HRESULT, GetPublicKeySize, (SELF, ULONG *pcbBytes), (OBJ, pcbBytes)) \
    X(HRESULT, GetPublicKeyToken, (SELF, BSTR *pbstrPublicKeyToken), (OBJ, pbstrPublicKeyToken)) \
    X(HRESULT, GetID, (SELF, AssemblyID *pAssemblyId), (OBJ, pAssemblyId)) \
    X(HRESULT, GetName, (SELF, BSTR *pbstrName), (OBJ, pbstrName)) \
    X(HRESULT, GetMetaDataToken, (SELF, DWORD *pdwToken), (OBJ, pdwToken))

/* IEnumAssemblyInfo : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMASSEMBLYINFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IAssemblyInfo **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumAssemblyInfo **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* IAppDomainInfo : IUnknown, 13 methods, 16 slots */
#define CLRIE_IAPPDOMAININFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetAppDomainId, (SELF, AppDomainID *pAppDomainId), (OBJ, pAppDomainId)) \
    X(HRESULT, GetIsSystemDomain, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsSharedDomain, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetIsDefaultDomain, (SELF, BOOL *pbValue), (OBJ, pbValue)) \
    X(HRESULT, GetName, (SELF, BSTR *pbstrName), (OBJ, pbstrName)) \
    X(HRESULT, GetAssemblies, (SELF, IEnumAssemblyInfo **ppAssemblyInfos), (OBJ, ppAssemblyInfos)) \
    X(HRESULT, GetModules, (SELF, IEnumModuleInfo **ppModuleInfos), (OBJ, ppModuleInfos)) \
    X(HRESULT, GetAssemblyInfoById, \
      (SELF, AssemblyID assemblyID, IAssemblyInfo **ppAssemblyInfo), \
      (OBJ, assemblyID, ppAssemblyInfo)) \
    X(HRESULT, GetAssemblyInfosByName, \
      (SELF, BSTR pszAssemblyName, IEnumAssemblyInfo **ppAssemblyInfos), \
      (OBJ, pszAssemblyName, ppAssemblyInfos)) \
    X(HRESULT, GetModuleCount, (SELF, ULONG *pcModuleInfos), (OBJ, pcModuleInfos)) \
    X(HRESULT, GetModuleInfoById, \
      (SELF, ModuleID moduleId, IModuleInfo **ppModuleInfo), \
      (OBJ, moduleId, ppModuleInfo)) \
    X(HRESULT, GetModuleInfosByMvid, \
      (SELF, GUID mvid, IEnumModuleInfo **ppModuleInfo), \
      (OBJ, mvid, ppModuleInfo)) \
    X(HRESULT, GetModuleInfosByName, \
      (SELF, BSTR pszModuleName, IEnumModuleInfo **ppModuleInfo), \
      (OBJ, pszModuleName, ppModuleInfo))

/* IEnumAppDomainInfo : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMAPPDOMAININFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IAppDomainInfo **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumAppDomainInfo **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* IAppDomainCollection : IUnknown, 8 methods, 11 slots */
#define CLRIE_IAPPDOMAINCOLLECTION_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetAppDomainCount, (SELF, DWORD *pdwCount), (OBJ, pdwCount)) \
    X(HRESULT, GetAppDomainById, \
      (SELF, AppDomainID appDomainId, IAppDomainInfo **ppAppDomainInfo), \
      (OBJ, appDomainId, ppAppDomainInfo)) \
    X(HRESULT, GetAppDomainIDs, \
      (SELF, DWORD cAppDomains, DWORD *pcActual, AppDomainID *AppDomainIDs), \
      (OBJ, cAppDomains, pcActual, AppDomainIDs)) \
    X(HRESULT, GetAppDomains, \
      (SELF, IEnumAppDomainInfo **ppEnumAppDomains), \
      (OBJ, ppEnumAppDomains)) \
    X(HRESULT, GetAssemblyInfoById, \
      (SELF, AssemblyID assemblyID, IAssemblyInfo **ppAssemblyInfo), \
      (OBJ, assemblyID, ppAssemblyInfo)) \
    X(HRESULT, GetModuleInfoById, \
      (SELF, ModuleID moduleID, IModuleInfo **ppModuleInfo), \
      (OBJ, moduleID, ppModuleInfo)) \
    X(HRESULT, GetModuleInfosByMvid, \
      (SELF, GUID mvid, IEnumModuleInfo **ppEnum), \
      (OBJ, mvid, ppEnum)) \
    X(HRESULT, GetMethodInfoById, \
      (SELF, FunctionID functionID, IMethodInfo **ppMethodInfo), \
      (OBJ, functionID, ppMethodInfo))

/* ILocalVariableCollection : IUnknown, 6 methods, 9 slots */
#define CLRIE_ILOCALVARIABLECOLLECTION_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Initialize, (SELF), (OBJ)) \
    X(HRESULT, GetCorSignature, (SELF, ISignatureBuilder **ppSignature), (OBJ, ppSignature)) \
    X(HRESULT, GetCount, (SELF, DWORD *pdwCount), (OBJ, pdwCount)) \
    X(HRESULT, AddLocal, (SELF, IType *pType, DWORD *pIndex), (OBJ, pType, pIndex)) \
    X(HRESULT, ReplaceSignature, \
      (SELF, const BYTE *pSignature, DWORD dwSigSize), \
      (OBJ, pSignature, dwSigSize)) \
    X(HRESULT, CommitSignature, (SELF), (OBJ))

/* ILocalVariableCollection2 : ILocalVariableCollection, 1 method, 10 slots */
#define CLRIE_ILOCALVARIABLECOLLECTION2_METHODS(X, SELF, OBJ) \
    CLRIE_ILOCALVARIABLECOLLECTION_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetEnum, (SELF, IEnumMethodLocals **ppEnumMethodLocals), (OBJ, ppEnumMethodLocals))

/* IEnumMethodLocals : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMMETHODLOCALS_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IMethodLocal **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumMethodLocals **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* IEnumMethodParameters : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMMETHODPARAMETERS_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IMethodParameter **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumMethodParameters **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* IMethodLocal : IUnknown, 1 method, 4 slots */
#define CLRIE_IMETHODLOCAL_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetType, (SELF, IType **ppType), (OBJ, ppType))

/* IMethodParameter : IUnknown, 1 method, 4 slots */
#define CLRIE_IMETHODPARAMETER_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetType, (SELF, IType **ppType), (OBJ, ppType))

/* ISignatureBuilder : IUnknown, 10 methods, 13 slots */
#define CLRIE_ISIGNATUREBUILDER_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Add, (SELF, DWORD value), (OBJ, value)) \
    X(HRESULT, AddSignedInt, (SELF, LONG value), (OBJ, value)) \
    X(HRESULT, AddToken, (SELF, mdToken token), (OBJ, token)) \
    X(HRESULT, AddElementType, (SELF, CorElementType type), (OBJ, type)) \
    X(HRESULT, AddData, (SELF, const BYTE *pData, DWORD cbSize), (OBJ, pData, cbSize)) \
    X(HRESULT, AddSignature, (SELF, ISignatureBuilder *pSignature), (OBJ, pSignature)) \
    X(HRESULT, Clear, (SELF), (OBJ)) \
    X(HRESULT, GetSize, (SELF, DWORD *pcbSize), (OBJ, pcbSize)) \
    X(HRESULT, GetCorSignature, \
      (SELF, DWORD cbBuffer, BYTE *pCorSignature, DWORD *pcbSignature), \
      (OBJ, cbBuffer, pCorSignature, pcbSignature)) \
    X(HRESULT, GetCorSignaturePtr, (SELF, const BYTE **ppSignature), (OBJ, ppSignature))

/* IEnumTypes : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMTYPES_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IType **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumTypes **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* ISignatureParser : IUnknown, 3 methods, 6 slots */
#define CLRIE_ISIGNATUREPARSER_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, ParseMethodSignature, \
      (SELF, const BYTE *pSignature, ULONG cbSignature, ULONG *pCallingConvention, \
       IType **ppReturnType, IEnumTypes **ppEnumParameterTypes, ULONG *pcGenericTypeParameters, \
       ULONG *pcbRead), \
      (OBJ, pSignature, cbSignature, pCallingConvention, ppReturnType, ppEnumParameterTypes, \
       pcGenericTypeParameters, pcbRead)) \
    X(HRESULT, ParseLocalVarSignature, \
      (SELF, const BYTE *pSignature, ULONG cbSignature, ULONG *pCallingConvention, \
       IEnumTypes **ppEnumTypes, ULONG *pcbRead), \
      (OBJ, pSignature, cbSignature, pCallingConvention, ppEnumTypes, pcbRead)) \
    X(HRESULT, ParseTypeSequence, \
      (SELF, const BYTE *pBuffer, ULONG cbBuffer, ULONG cTypes, IEnumTypes **ppEnumTypes, \
       ULONG *pcbRead), \
      (OBJ, pBuffer, cbBuffer, cTypes, ppEnumTypes, pcbRead))

/* IType : IUnknown, 6 methods, 9 slots */
#define CLRIE_ITYPE_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, AddToSignature, \
      (SELF, ISignatureBuilder *pSignatureBuilder), \
      (OBJ, pSignatureBuilder)) \
    X(HRESULT, GetCorElementType, (SELF, CorElementType *pCorType), (OBJ, pCorType)) \
    X(HRESULT, IsPrimitive, (SELF, BOOL *pIsPrimitive), (OBJ, pIsPrimitive)) \
    X(HRESULT, IsArray, (SELF, BOOL *pIsArray), (OBJ, pIsArray)) \
    X(HRESULT, IsClass, (SELF, BOOL *pIsClass), (OBJ, pIsClass)) \
    X(HRESULT, GetName, (SELF, BSTR *pbstrName), (OBJ, pbstrName))

/* ITokenType : IUnknown, 2 methods, 5 slots */
#define CLRIE_ITOKENTYPE_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetToken, (SELF, mdToken *pToken), (OBJ, pToken)) \
    X(HRESULT, GetOwningModule, (SELF, IModuleInfo **ppModuleInfo), (OBJ, ppModuleInfo))

/* ICompositeType : IUnknown, 1 method, 4 slots */
#define CLRIE_ICOMPOSITETYPE_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetRelatedType, (SELF, IType **ppType), (OBJ, ppType))

/* IGenericParameterType : IUnknown, 1 method, 4 slots */
#define CLRIE_IGENERICPARAMETERTYPE_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetPosition, (SELF, ULONG *pPosition), (OBJ, pPosition))

/* ITypeCreator : IUnknown, 3 methods, 6 slots */
#define CLRIE_ITYPECREATOR_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, FromSignature, \
      (SELF, DWORD cbBuffer, const BYTE *pCorSignature, IType **ppType, DWORD *pdwSigSize), \
      (OBJ, cbBuffer, pCorSignature, ppType, pdwSigSize)) \
    X(HRESULT, FromCorElement, (SELF, CorElementType type, IType **ppType), (OBJ, type, ppType)) \
    X(HRESULT, FromToken, \
      (SELF, CorElementType type, mdToken token, IType **ppType), \
      (OBJ, type, token, ppType))

/* ISingleRetDefaultInstrumentation : IUnknown, 2 methods, 5 slots */
#define CLRIE_ISINGLERETDEFAULTINSTRUMENTATION_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Initialize, (SELF, IInstructionGraph *pInstructionGraph), (OBJ, pInstructionGraph)) \
    X(HRESULT, ApplySingleRetDefaultInstrumentation, (SELF), (OBJ))

/* ISingleRetDefaultInstrumentation2 : ISingleRetDefaultInstrumentation, 1 method, 6 slots */
#define CLRIE_ISINGLERETDEFAULTINSTRUMENTATION2_METHODS(X, SELF, OBJ) \
    CLRIE_ISINGLERETDEFAULTINSTRUMENTATION_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetBranchTargetInstruction, \
      (SELF, IInstruction **pInstruction), \
      (OBJ, pInstruction))

/* IInstrumentationMethodJitEvents : IUnknown, 2 methods, 5 slots */
#define CLRIE_IINSTRUMENTATIONMETHODJITEVENTS_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, JitStarted, \
      (SELF, FunctionID functionID, BOOL isRejit), \
      (OBJ, functionID, isRejit)) \
    X(HRESULT, JitComplete, \
      (SELF, FunctionID functionID, BOOL isRejit, HRESULT jitResult), \
      (OBJ, functionID, isRejit, jitResult))

/* IMethodJitInfo : IUnknown, 6 methods, 9 slots */
#define CLRIE_IMETHODJITINFO_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetFunctionID, (SELF, FunctionID *pFunctionId), (OBJ, pFunctionId)) \
    X(HRESULT, GetIsRejit, (SELF, BOOL *pIsRejit), (OBJ, pIsRejit)) \
    X(HRESULT, GetRejitId, (SELF, ReJITID *pRejitId), (OBJ, pRejitId)) \
    X(HRESULT, GetJitHR, (SELF, HRESULT *pHResult), (OBJ, pHResult)) \
    X(HRESULT, GetILTransformationStatus, (SELF, BOOL *pIsTranformed), (OBJ, pIsTranformed)) \
    X(HRESULT, GetModuleInfo, (SELF, IModuleInfo **ppModuleInfo), (OBJ, ppModuleInfo))

/* IMethodJitInfo2 : IMethodJitInfo, 4 methods, 13 slots */
#define CLRIE_IMETHODJITINFO2_METHODS(X, SELF, OBJ) \
    CLRIE_IMETHODJITINFO_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetILNativeMapping, \
      (SELF, ULONG32 cMaps, COR_DEBUG_IL_TO_NATIVE_MAP pMap[], ULONG32 *pcNeeded), \
      (OBJ, cMaps, pMap, pcNeeded)) \
    X(HRESULT, GetILInstrumentationMap, \
      (SELF, ULONG32 cMaps, COR_IL_MAP pMap[], ULONG32 *pcNeeded), \
      (OBJ, cMaps, pMap, pcNeeded)) \
    X(HRESULT, GetMethodToken, (SELF, mdMethodDef *pToken), (OBJ, pToken)) \
    X(HRESULT, GetNativeCodeAddress, (SELF, UINT_PTR *pCodeAddress), (OBJ, pCodeAddress))

/* IInstrumentationMethodJitEvents2 : IInstrumentationMethodJitEvents, 1 method, 6 slots.
 * JitComplete2 is the IDL's second JitComplete (an overload C cannot spell) */
#define CLRIE_IINSTRUMENTATIONMETHODJITEVENTS2_METHODS(X, SELF, OBJ) \
    CLRIE_IINSTRUMENTATIONMETHODJITEVENTS_METHODS(X, SELF, OBJ) \
    X(HRESULT, JitComplete2, (SELF, IMethodJitInfo *pJitInfo), (OBJ, pJitInfo))

/* IInstrumentationMethodSetting : IUnknown, 2 methods, 5 slots */
#define CLRIE_IINSTRUMENTATIONMETHODSETTING_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetName, (SELF, BSTR *pbstrName), (OBJ, pbstrName)) \
    X(HRESULT, GetValue, (SELF, BSTR *pbstrValue), (OBJ, pbstrValue))

/* IEnumInstrumentationMethodSettings : IUnknown, 5 methods, 8 slots */
#define CLRIE_IENUMINSTRUMENTATIONMETHODSETTINGS_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, Next, \
      (SELF, ULONG celt, IInstrumentationMethodSetting **rgelt, ULONG *pceltFetched), \
      (OBJ, celt, rgelt, pceltFetched)) \
    X(HRESULT, Skip, (SELF, ULONG celt), (OBJ, celt)) \
    X(HRESULT, Reset, (SELF), (OBJ)) \
    X(HRESULT, Clone, (SELF, IEnumInstrumentationMethodSettings **ppenum), (OBJ, ppenum)) \
    X(HRESULT, GetCount, (SELF, DWORD *pLength), (OBJ, pLength))

/* IInstrumentationMethodAttachContext : IUnknown, 1 method, 4 slots */
#define CLRIE_IINSTRUMENTATIONMETHODATTACHCONTEXT_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, EnumSettings, (SELF, IEnumInstrumentationMethodSettings **ppEnum), (OBJ, ppEnum))

/* IInstrumentationMethodAttach : IUnknown, 2 methods, 5 slots */
#define CLRIE_IINSTRUMENTATIONMETHODATTACH_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, InitializeForAttach, \
      (SELF, IProfilerManager *pProfilerManager, IInstrumentationMethodAttachContext *pContext), \
      (OBJ, pProfilerManager, pContext)) \
    X(HRESULT, AttachComplete, (SELF), (OBJ))

/* IIDs: X(Name, Data1, Data2, Data3, Data4[0..7]). */
#define CLRIE_INSTRUMENTATION_IIDS(X) \
    X(IProfilerManager, 0x3A09AD0A, 0x25C6, 0x4093, 0x93, 0xE1, 0x3F, 0x64, 0xEB, 0x16, 0x0A, 0x9D) \
    X(IProfilerManager2, 0xDCB0764D, 0xE18F, 0x4F9A, 0x91, 0xE8, 0x6A, 0x40, 0xFC, 0xFE, 0x67, 0x75) \
    X(IProfilerManager3, 0x0B097E56, 0x55EE, 0x4EC4, 0xB2, 0xF4, 0x38, 0x0B, 0x82, 0x44, 0x8B, 0x63) \
    X(IProfilerManager4, 0x24100BD8, 0x58F2, 0x483A, 0x94, 0x8A, 0x5B, 0x0B, 0x81, 0x86, 0xE4, 0x51) \
    X(IProfilerManager5, 0xAF78C11D, 0x385A, 0x47B1, 0xA4, 0xFB, 0x8D, 0x6B, 0xA7, 0xFE, 0x9B, 0x2D) \
    X(IProfilerStringManager, 0xD7EAEC8F, 0xC4BB, 0x4F5D, 0x99, 0xB9, 0x72, 0x15, 0xFE, 0xB0, 0xED, 0x57) \
    X(IProfilerManagerHost, 0xBA9193B4, 0x287F, 0x4BF4, 0x8E, 0x1B, 0x00, 0xFC, 0xE3, 0x38, 0x62, 0xEB) \
    X(IProfilerManagerLogging, 0x9CFECED7, 0x2123, 0x4115, 0xBF, 0x06, 0x36, 0x93, 0xD1, 0xD1, 0x9E, 0x22) \
    X(IProfilerManagerLoggingHost, 0x99F828EE, 0xEA00, 0x473C, 0xA8, 0x29, 0xD4, 0x00, 0x23, 0x5C, 0x11, 0xC1) \
    X(IInstrumentationMethod, 0x0D92A8D9, 0x6645, 0x4803, 0xB9, 0x4B, 0x06, 0xA1, 0xC4, 0xF4, 0xE6, 0x33) \
    X(IInstrumentationMethodExceptionEvents, 0x8310B758, 0x6642, 0x46AD, 0x94, 0x23, 0xDD, 0xA5, 0xF9, 0xE2, 0x78, 0xAE) \
    X(IDataContainer, 0x2A4FDF66, 0xFC5B, 0x442D, 0x8F, 0xAA, 0x41, 0x37, 0xF0, 0x23, 0xA4, 0xEA) \
    X(IInstruction, 0xE80D8434, 0x2976, 0x4242, 0x8F, 0x3B, 0x0C, 0x83, 0x7C, 0x34, 0x3F, 0x6C) \
    X(IOperandInstruction, 0x1F014299, 0xF383, 0x46CE, 0xB7, 0xA6, 0x19, 0x82, 0xC8, 0x5F, 0x9F, 0xEA) \
    X(IBranchInstruction, 0x73728F9D, 0xB4B5, 0x4149, 0x83, 0x96, 0xA7, 0x9C, 0x47, 0x26, 0x63, 0x6E) \
    X(ISwitchInstruction, 0x66B79035, 0x4F18, 0x4689, 0xA1, 0x6D, 0x95, 0xAF, 0x46, 0x94, 0x60, 0xA3) \
    X(IEnumInstructions, 0x2A4A827A, 0x046D, 0x4927, 0xBD, 0x90, 0xCE, 0x96, 0x07, 0x60, 0x72, 0x80) \
    X(IInstructionGraph, 0x9165F2D1, 0x2D6D, 0x4B89, 0xB2, 0xAB, 0x2C, 0xAC, 0xA6, 0x6C, 0xAA, 0x48) \
    X(IEnumExceptionClauses, 0x85B0B99F, 0x73D7, 0x4C69, 0x86, 0x59, 0xBF, 0x61, 0x96, 0xF5, 0x26, 0x4F) \
    X(IExceptionClause, 0x1D57EAF6, 0xFCFE, 0x4874, 0xAA, 0x0E, 0xC9, 0xD1, 0xDF, 0x71, 0x49, 0x50) \
    X(IExceptionSection, 0x42CE95A2, 0xF814, 0x4DCD, 0x95, 0x2F, 0x68, 0xCE, 0x98, 0x01, 0xFD, 0xD3) \
    X(IInstructionFactory, 0xCF059876, 0xC5CA, 0x4EBF, 0xAC, 0xB9, 0x9C, 0x58, 0x00, 0x9C, 0xE3, 0x1A) \
    X(IEnumAppMethodInfo, 0x541A45B7, 0xD194, 0x47EE, 0x92, 0x31, 0xAB, 0x69, 0xD2, 0x7D, 0x1D, 0x59) \
    X(IMethodInfo, 0xCC21A894, 0xF4DF, 0x4726, 0x83, 0x18, 0xD6, 0xC2, 0x4C, 0x49, 0x85, 0xB1) \
    X(IMethodInfo2, 0xCDF098F7, 0xD04A, 0x4B58, 0xB4, 0x6E, 0x18, 0x4C, 0x4F, 0x22, 0x3E, 0x5F) \
    X(IModuleInfo, 0x0BD963B1, 0xFD87, 0x4492, 0xA4, 0x17, 0x15, 0x2F, 0x3D, 0x0C, 0x9C, 0xBC) \
    X(IModuleInfo2, 0x4200C448, 0x7EDE, 0x4E61, 0xAE, 0x67, 0xB0, 0x17, 0xD3, 0x02, 0x1F, 0x12) \
    X(IModuleInfo3, 0xB4C10B86, 0xE3D3, 0x4514, 0x91, 0xB9, 0xB2, 0xBA, 0xA8, 0x4E, 0x7D, 0x8B) \
    X(IEnumModuleInfo, 0x683B3D0B, 0x5CAB, 0x49AC, 0x92, 0x42, 0xC7, 0xDE, 0x19, 0x0C, 0x77, 0x64) \
    X(IAssemblyInfo, 0x110FE5BA, 0x57CD, 0x4308, 0x86, 0xBE, 0x48, 0x74, 0x78, 0xAB, 0xE2, 0xCD) \
    X(IEnumAssemblyInfo, 0x71001B79, 0xB50A, 0x4103, 0x9D, 0x19, 0xFF, 0xCF, 0x9F, 0x6C, 0xE1, 0xE9) \
    X(IAppDomainInfo, 0xA81A5232, 0x4693, 0x47E9, 0xA7, 0x4D, 0xBB, 0x4C, 0x71, 0x16, 0x46, 0x59) \
    X(IEnumAppDomainInfo, 0xC2A3E353, 0x08BB, 0x4A13, 0x85, 0x1E, 0x07, 0xB1, 0xBB, 0x4A, 0xD5, 0x7C) \
    X(IAppDomainCollection, 0xC79F6730, 0xC5FB, 0x40C4, 0xB5, 0x28, 0x0A, 0x02, 0x48, 0xCA, 0x4D, 0xEB) \
    X(ILocalVariableCollection, 0x353F806F, 0x6563, 0x40E0, 0x8E, 0xBE, 0xB9, 0x3A, 0x58, 0xC0, 0x14, 0x5F) \
    X(ILocalVariableCollection2, 0x61657FE7, 0xBFBB, 0x4B60, 0xBB, 0xA7, 0x1D, 0x3C, 0x32, 0x6F, 0xA4, 0x70) \
    X(IEnumMethodLocals, 0xC4440146, 0x7E2D, 0x4B1A, 0x8F, 0x69, 0xD6, 0xE4, 0x81, 0x7D, 0x72, 0x95) \
    X(IEnumMethodParameters, 0x2DBC9FAB, 0x93BD, 0x4733, 0x82, 0xFA, 0xEA, 0x3B, 0x3D, 0x55, 0x8A, 0x0B) \
    X(IMethodLocal, 0xF8C007DB, 0x0D35, 0x4726, 0x9E, 0xDC, 0x78, 0x15, 0x90, 0xE3, 0x06, 0x88) \
    X(IMethodParameter, 0x26255678, 0x9F51, 0x433F, 0x89, 0xB1, 0x51, 0xB9, 0x78, 0xEB, 0x4C, 0x2B) \
    X(ISignatureBuilder, 0xF574823E, 0x4863, 0x4013, 0xA4, 0xEA, 0xC6, 0xD9, 0x94, 0x32, 0x46, 0xE6) \
    X(IEnumTypes, 0x5618BD13, 0x12FC, 0x4198, 0xA3, 0x9D, 0x8E, 0xD6, 0x02, 0x65, 0xAA, 0xC6) \
    X(ISignatureParser, 0x33BD020E, 0x372B, 0x40F9, 0xA7, 0x35, 0x4B, 0x40, 0x17, 0xED, 0x56, 0xAC) \
    X(IType, 0x6FC96859, 0xED89, 0x4D9F, 0xA7, 0xC9, 0x1D, 0xAD, 0x7E, 0xC3, 0x5F, 0x67) \
    X(ITokenType, 0x77655B33, 0x1B29, 0x4285, 0x9F, 0x2D, 0xFF, 0x95, 0x26, 0xE3, 0xA0, 0xAA) \
    X(ICompositeType, 0x06B9FD79, 0x0386, 0x4CF3, 0x93, 0xDD, 0xA2, 0x3E, 0x95, 0xEB, 0xC2, 0x25) \
    X(IGenericParameterType, 0x1D5C1393, 0xDC7E, 0x4FEF, 0x8A, 0x9D, 0xA3, 0xDA, 0xF7, 0xA5, 0x5C, 0x6E) \
    X(ITypeCreator, 0xC6D612FA, 0xB550, 0x48E3, 0x88, 0x59, 0xDE, 0x44, 0x0C, 0xF6, 0x66, 0x27) \
    X(ISingleRetDefaultInstrumentation, 0x2ED40F43, 0xE51A, 0x41A6, 0x91, 0xFC, 0x6F, 0xA9, 0x16, 0x3C, 0x62, 0xE9) \
    X(ISingleRetDefaultInstrumentation2, 0x7A88FF19, 0xF3A1, 0x4C43, 0x89, 0xDB, 0x61, 0xDF, 0x37, 0x64, 0x41, 0xB5) \
    X(IInstrumentationMethodJitEvents, 0x9B028F9E, 0xE2E0, 0x4A61, 0x86, 0x2B, 0xA4, 0xE1, 0x15, 0x86, 0x57, 0xD0) \
    X(IMethodJitInfo, 0xA2A780D6, 0xF337, 0x406C, 0xBA, 0x57, 0xF1, 0x0F, 0xBD, 0x6C, 0x46, 0xF9) \
    X(IMethodJitInfo2, 0x8311A7CF, 0x30EC, 0x42C9, 0x85, 0xA4, 0xF5, 0x97, 0x13, 0xA4, 0xF3, 0x7D) \
    X(IInstrumentationMethodJitEvents2, 0xDC5B373D, 0xC38D, 0x4299, 0x83, 0xD9, 0x12, 0x9B, 0x6A, 0xCC, 0xEE, 0x2F) \
    X(IInstrumentationMethodSetting, 0xEF0B0C79, 0x08E7, 0x4C3A, 0xA4, 0xC5, 0x02, 0xA9, 0xC9, 0xCE, 0x88, 0x09) \
    X(IEnumInstrumentationMethodSettings, 0x9B03D87E, 0x72F0, 0x4D8E, 0xA4, 0xB1, 0x15, 0xBC, 0xD8, 0x22, 0x70, 0x73) \
    X(IInstrumentationMethodAttachContext, 0x2C37B76C, 0xB350, 0x4738, 0x8B, 0x29, 0xB9, 0x2C, 0x7E, 0xD6, 0xC5, 0x22) \
    X(IInstrumentationMethodAttach, 0x3BD6C171, 0x4F3C, 0x45C3, 0x8C, 0xB9, 0xBC, 0x8C, 0x33, 0x7D, 0x16, 0x83)

CLRIE_INSTRUMENTATION_IIDS(CLRIE_ABI_DECLARE_IID)

/* Every interface of this header as X(name, method table, vtable slots including
 * IUnknown's three). CLRIE_ABI_INTERFACE defines struct <name>Vtbl and struct <name>
 * from the table and checks the slot count at compile time. */
#define CLRIE_INSTRUMENTATION_INTERFACES(X) \
    X(IProfilerManager, CLRIE_IPROFILERMANAGER_METHODS, 16) \
    X(IProfilerManager2, CLRIE_IPROFILERMANAGER2_METHODS, 5) \
    X(IProfilerManager3, CLRIE_IPROFILERMANAGER3_METHODS, 4) \
    X(IProfilerManager4, CLRIE_IPROFILERMANAGER4_METHODS, 4) \
    X(IProfilerManager5, CLRIE_IPROFILERMANAGER5_METHODS, 4) \
    X(IProfilerStringManager, CLRIE_IPROFILERSTRINGMANAGER_METHODS, 4) \
    X(IProfilerManagerHost, CLRIE_IPROFILERMANAGERHOST_METHODS, 4) \
    X(IProfilerManagerLogging, CLRIE_IPROFILERMANAGERLOGGING_METHODS, 9) \
    X(IProfilerManagerLoggingHost, CLRIE_IPROFILERMANAGERLOGGINGHOST_METHODS, 6) \
    X(IInstrumentationMethod, CLRIE_IINSTRUMENTATIONMETHOD_METHODS, 16) \
    X(IInstrumentationMethodExceptionEvents, CLRIE_IINSTRUMENTATIONMETHODEXCEPTIONEVENTS_METHODS, 15) \
    X(IDataContainer, CLRIE_IDATACONTAINER_METHODS, 5) \
    X(IInstruction, CLRIE_IINSTRUCTION_METHODS, 25) \
    X(IOperandInstruction, CLRIE_IOPERANDINSTRUCTION_METHODS, 6) \
    X(IBranchInstruction, CLRIE_IBRANCHINSTRUCTION_METHODS, 8) \
    X(ISwitchInstruction, CLRIE_ISWITCHINSTRUCTION_METHODS, 10) \
    X(IEnumInstructions, CLRIE_IENUMINSTRUCTIONS_METHODS, 8) \
    X(IInstructionGraph, CLRIE_IINSTRUCTIONGRAPH_METHODS, 22) \
    X(IEnumExceptionClauses, CLRIE_IENUMEXCEPTIONCLAUSES_METHODS, 8) \
    X(IExceptionClause, CLRIE_IEXCEPTIONCLAUSE_METHODS, 17) \
    X(IExceptionSection, CLRIE_IEXCEPTIONSECTION_METHODS, 9) \
    X(IInstructionFactory, CLRIE_IINSTRUCTIONFACTORY_METHODS, 20) \
    X(IEnumAppMethodInfo, CLRIE_IENUMAPPMETHODINFO_METHODS, 8) \
    X(IMethodInfo, CLRIE_IMETHODINFO_METHODS, 36) \
    X(IMethodInfo2, CLRIE_IMETHODINFO2_METHODS, 37) \
    X(IModuleInfo, CLRIE_IMODULEINFO_METHODS, 28) \
    X(IModuleInfo2, CLRIE_IMODULEINFO2_METHODS, 30) \
    X(IModuleInfo3, CLRIE_IMODULEINFO3_METHODS, 31) \
    X(IEnumModuleInfo, CLRIE_IENUMMODULEINFO_METHODS, 8) \
    X(IAssemblyInfo, CLRIE_IASSEMBLYINFO_METHODS, 18) \
    X(IEnumAssemblyInfo, CLRIE_IENUMASSEMBLYINFO_METHODS, 8) \
    X(IAppDomainInfo, CLRIE_IAPPDOMAININFO_METHODS, 16) \
    X(IEnumAppDomainInfo, CLRIE_IENUMAPPDOMAININFO_METHODS, 8) \
    X(IAppDomainCollection, CLRIE_IAPPDOMAINCOLLECTION_METHODS, 11) \
    X(ILocalVariableCollection, CLRIE_ILOCALVARIABLECOLLECTION_METHODS, 9) \
    X(ILocalVariableCollection2, CLRIE_ILOCALVARIABLECOLLECTION2_METHODS, 10) \
    X(IEnumMethodLocals, CLRIE_IENUMMETHODLOCALS_METHODS, 8) \
    X(IEnumMethodParameters, CLRIE_IENUMMETHODPARAMETERS_METHODS, 8) \
    X(IMethodLocal, CLRIE_IMETHODLOCAL_METHODS, 4) \
    X(IMethodParameter, CLRIE_IMETHODPARAMETER_METHODS, 4) \
    X(ISignatureBuilder, CLRIE_ISIGNATUREBUILDER_METHODS, 13) \
    X(IEnumTypes, CLRIE_IENUMTYPES_METHODS, 8) \
    X(ISignatureParser, CLRIE_ISIGNATUREPARSER_METHODS, 6) \
    X(IType, CLRIE_ITYPE_METHODS, 9) \
    X(ITokenType, CLRIE_ITOKENTYPE_METHODS, 5) \
    X(ICompositeType, CLRIE_ICOMPOSITETYPE_METHODS, 4) \
    X(IGenericParameterType, CLRIE_IGENERICPARAMETERTYPE_METHODS, 4) \
    X(ITypeCreator, CLRIE_ITYPECREATOR_METHODS, 6) \
    X(ISingleRetDefaultInstrumentation, CLRIE_ISINGLERETDEFAULTINSTRUMENTATION_METHODS, 5) \
    X(ISingleRetDefaultInstrumentation2, CLRIE_ISINGLERETDEFAULTINSTRUMENTATION2_METHODS, 6) \
    X(IInstrumentationMethodJitEvents, CLRIE_IINSTRUMENTATIONMETHODJITEVENTS_METHODS, 5) \
    X(IMethodJitInfo, CLRIE_IMETHODJITINFO_METHODS, 9) \
    X(IMethodJitInfo2, CLRIE_IMETHODJITINFO2_METHODS, 13) \
    X(IInstrumentationMethodJitEvents2, CLRIE_IINSTRUMENTATIONMETHODJITEVENTS2_METHODS, 6) \
    X(IInstrumentationMethodSetting, CLRIE_IINSTRUMENTATIONMETHODSETTING_METHODS, 5) \
    X(IEnumInstrumentationMethodSettings, CLRIE_IENUMINSTRUMENTATIONMETHODSETTINGS_METHODS, 8) \
    X(IInstrumentationMethodAttachContext, CLRIE_IINSTRUMENTATIONMETHODATTACHCONTEXT_METHODS, 4) \
    X(IInstrumentationMethodAttach, CLRIE_IINSTRUMENTATIONMETHODATTACH_METHODS, 5)

CLRIE_INSTRUMENTATION_INTERFACES(CLRIE_ABI_INTERFACE)

/* The engine's own exports besides DllGetClassObject and DllCanUnloadNow (base.h), in the
 * same convention: the process-wide logger, and the free for the BSTRs the engine returns. */
HRESULT STDAPICALLTYPE GetInstrumentationEngineLogger(IProfilerManagerLogging **ppLogger);
void STDAPICALLTYPE InstrumentationEngineFreeString(BSTR bstr);

#ifdef __cplusplus
}
#endif

#endif
