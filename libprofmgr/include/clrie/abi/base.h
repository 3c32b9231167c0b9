/* clrie ABI: the Windows/PAL base types, GUIDs, HRESULTs and IUnknown as CoreCLR on Linux
 * sees them, plus the macros every other ABI header builds its COM interfaces with.
 *
 * Sizes follow CoreCLR's PAL on LP64 (pal_mstypes.h), not windows.h: LONG, ULONG and DWORD
 * are 32-bit, WCHAR is a 16-bit UTF-16 code unit, the ID types are pointer-sized.
 * A COM method is a C function taking the interface pointer first, in the Windows calling
 * convention: STDMETHODCALLTYPE, __stdcall on 32-bit x86 Windows and empty on x86-64 and
 * arm64 (and on Linux). Every vtable slot and every implementation carries it, so that on x86
 * a method written without it is a compile error (an incompatible pointer) and not a crash;
 * the exports (DllGetClassObject and the engine's) are STDAPICALLTYPE, the same convention.
 *
 * In C and in C++ alike, REFGUID/REFIID/REFCLSID are `const GUID *`: these headers describe
 * the binary interface, which is the same for a C++ reference. */
#ifndef CLRIE_ABI_BASE_H
#define CLRIE_ABI_BASE_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <uchar.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
#define CLRIE_ABI_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define CLRIE_ABI_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* ---- calling convention -------------------------------------------------------------
 *
 * CLRIE_ABI_CHECK_STDCALL is a check-only switch: defined on a 32-bit x86 build that is never
 * run (test/check-stdcall, on Linux), it gives COM methods GCC's stdcall attribute as x86
 * Windows does, so that a missing STDMETHODCALLTYPE fails to compile there too. */
#if defined(CLRIE_ABI_CHECK_STDCALL)
#define CLRIE_ABI_STDCALL __attribute__((stdcall))
#elif defined(_WIN32) && (defined(_M_IX86) || defined(__i386__))
#define CLRIE_ABI_STDCALL __stdcall
#else
#define CLRIE_ABI_STDCALL
#endif
#ifndef STDMETHODCALLTYPE
#define STDMETHODCALLTYPE CLRIE_ABI_STDCALL
#endif
#ifndef STDAPICALLTYPE
#define STDAPICALLTYPE CLRIE_ABI_STDCALL
#endif

/* What a module marks its exports with (DllGetClassObject, ...): exported from a DLL on
 * Windows, visible from a shared object built with hidden visibility elsewhere. A DLL's
 * exports keep their plain names on x86 too when it is linked with a module definition file or
 * --kill-at (the engine, the proxy and the plugins of this project are). */
#if defined(_WIN32)
#define CLRIE_ABI_EXPORT __declspec(dllexport)
#else
#define CLRIE_ABI_EXPORT __attribute__((visibility("default")))
#endif

/* ---- integers ---------------------------------------------------------------------- */

typedef uint8_t BYTE;
typedef uint8_t UCHAR;
typedef uint8_t UINT8;
typedef int16_t SHORT;
typedef uint16_t USHORT;
typedef uint16_t WORD;
typedef int32_t INT;
typedef uint32_t UINT;
typedef int32_t INT32;
typedef uint32_t UINT32;
typedef int32_t LONG;
typedef uint32_t ULONG;
typedef int32_t LONG32;
typedef uint32_t ULONG32;
typedef uint32_t DWORD;
typedef int64_t INT64;
typedef uint64_t UINT64;
typedef int64_t LONGLONG;
typedef uint64_t ULONGLONG;
typedef uint64_t ULONG64;
typedef int32_t BOOL;
typedef int32_t HRESULT;
typedef intptr_t INT_PTR;
typedef uintptr_t UINT_PTR;
typedef uintptr_t ULONG_PTR;
typedef size_t SIZE_T;

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

/* ---- pointers and strings ---------------------------------------------------------- */

typedef char16_t WCHAR; /* UTF-16 code unit; never wchar_t, which is 32-bit on Linux */
typedef WCHAR *LPWSTR;
typedef const WCHAR *LPCWSTR;
/* A BSTR points at UTF-16 text preceded by a 4-byte byte length and followed by a 0 unit. */
typedef WCHAR *BSTR;
typedef void *PVOID;
typedef void *LPVOID;
typedef const void *LPCVOID;
typedef void *HANDLE;
typedef BYTE *LPBYTE;
typedef const BYTE *LPCBYTE;

/* ---- GUIDs ------------------------------------------------------------------------- */

typedef struct _GUID {
    ULONG Data1;
    USHORT Data2;
    USHORT Data3;
    UCHAR Data4[8];
} GUID;
typedef GUID IID;
typedef GUID CLSID;
typedef const GUID *REFGUID;
typedef const IID *REFIID;
typedef const CLSID *REFCLSID;
typedef const GUID *LPCGUID;

static inline int clrie_guid_equal(const GUID *a, const GUID *b)
{
    if (a->Data1 != b->Data1 || a->Data2 != b->Data2 || a->Data3 != b->Data3)
        return 0;
    for (int i = 0; i < 8; i++)
        if (a->Data4[i] != b->Data4[i])
            return 0;
    return 1;
}

#ifndef IsEqualGUID
#define IsEqualGUID(a, b) clrie_guid_equal((a), (b))
#endif
#ifndef IsEqualIID
#define IsEqualIID(a, b) clrie_guid_equal((a), (b))
#endif
#ifndef IsEqualCLSID
#define IsEqualCLSID(a, b) clrie_guid_equal((a), (b))
#endif

/* An IID list entry is X(Name, Data1, Data2, Data3, b0, ..., b7). Headers declare each
 * as `extern const IID IID_<Name>;`; libprofmgr/abi/abi_guids.c defines them from the same lists.
 */
#define CLRIE_ABI_DECLARE_IID(name, l, w1, w2, b0, b1, b2, b3, b4, b5, b6, b7)                     \
    extern const IID IID_##name;
#define CLRIE_ABI_GUID_INIT(l, w1, w2, b0, b1, b2, b3, b4, b5, b6, b7)                             \
    {                                                                                              \
        l, w1, w2,                                                                                 \
        {                                                                                          \
            b0, b1, b2, b3, b4, b5, b6, b7                                                         \
        }                                                                                          \
    }

/* ---- metadata tokens and signatures (corhdr.h) ---------------------------------------- */

typedef ULONG32 mdToken;
typedef mdToken mdModule;
typedef mdToken mdTypeRef;
typedef mdToken mdTypeDef;
typedef mdToken mdFieldDef;
typedef mdToken mdMethodDef;
typedef mdToken mdParamDef;
typedef mdToken mdInterfaceImpl;
typedef mdToken mdMemberRef;
typedef mdToken mdCustomAttribute;
typedef mdToken mdPermission;
typedef mdToken mdSignature;
typedef mdToken mdEvent;
typedef mdToken mdProperty;
typedef mdToken mdModuleRef;
typedef mdToken mdAssembly;
typedef mdToken mdAssemblyRef;
typedef mdToken mdFile;
typedef mdToken mdExportedType;
typedef mdToken mdManifestResource;
typedef mdToken mdTypeSpec;
typedef mdToken mdGenericParam;
typedef mdToken mdMethodSpec;
typedef mdToken mdGenericParamConstraint;
typedef mdToken mdString;
typedef mdToken mdCPToken;

#define mdTokenNil ((mdToken)0)

typedef BYTE COR_SIGNATURE;
typedef COR_SIGNATURE *PCOR_SIGNATURE;
typedef const COR_SIGNATURE *PCCOR_SIGNATURE;

typedef enum CorElementType {
    ELEMENT_TYPE_END = 0x00,
    ELEMENT_TYPE_VOID = 0x01,
    ELEMENT_TYPE_BOOLEAN = 0x02,
    ELEMENT_TYPE_CHAR = 0x03,
    ELEMENT_TYPE_I1 = 0x04,
    ELEMENT_TYPE_U1 = 0x05,
    ELEMENT_TYPE_I2 = 0x06,
    ELEMENT_TYPE_U2 = 0x07,
    ELEMENT_TYPE_I4 = 0x08,
    ELEMENT_TYPE_U4 = 0x09,
    ELEMENT_TYPE_I8 = 0x0a,
    ELEMENT_TYPE_U8 = 0x0b,
    ELEMENT_TYPE_R4 = 0x0c,
    ELEMENT_TYPE_R8 = 0x0d,
    ELEMENT_TYPE_STRING = 0x0e,
    ELEMENT_TYPE_PTR = 0x0f,
    ELEMENT_TYPE_BYREF = 0x10,
    ELEMENT_TYPE_VALUETYPE = 0x11,
    ELEMENT_TYPE_CLASS = 0x12,
    ELEMENT_TYPE_VAR = 0x13,
    ELEMENT_TYPE_ARRAY = 0x14,
    ELEMENT_TYPE_GENERICINST = 0x15,
    ELEMENT_TYPE_TYPEDBYREF = 0x16,
    ELEMENT_TYPE_I = 0x18,
    ELEMENT_TYPE_U = 0x19,
    ELEMENT_TYPE_FNPTR = 0x1b,
    ELEMENT_TYPE_OBJECT = 0x1c,
    ELEMENT_TYPE_SZARRAY = 0x1d,
    ELEMENT_TYPE_MVAR = 0x1e,
    ELEMENT_TYPE_CMOD_REQD = 0x1f,
    ELEMENT_TYPE_CMOD_OPT = 0x20,
    ELEMENT_TYPE_INTERNAL = 0x21,
    ELEMENT_TYPE_MAX = 0x22,
    ELEMENT_TYPE_MODIFIER = 0x40,
    ELEMENT_TYPE_SENTINEL = 0x41,
    ELEMENT_TYPE_PINNED = 0x45
} CorElementType;

/* ---- HRESULTs ----------------------------------------------------------------------- */

#define CLRIE_HRESULT(v) ((HRESULT)(int32_t)(uint32_t)(v))

#ifndef SUCCEEDED
#define SUCCEEDED(hr) ((HRESULT)(hr) >= 0)
#endif
#ifndef FAILED
#define FAILED(hr) ((HRESULT)(hr) < 0)
#endif
#ifndef S_OK
#define S_OK CLRIE_HRESULT(0x00000000u)
#endif
#ifndef S_FALSE
#define S_FALSE CLRIE_HRESULT(0x00000001u)
#endif
#ifndef E_NOTIMPL
#define E_NOTIMPL CLRIE_HRESULT(0x80004001u)
#endif
#ifndef E_NOINTERFACE
#define E_NOINTERFACE CLRIE_HRESULT(0x80004002u)
#endif
#ifndef E_POINTER
#define E_POINTER CLRIE_HRESULT(0x80004003u)
#endif
#ifndef E_FAIL
#define E_FAIL CLRIE_HRESULT(0x80004005u)
#endif
#ifndef E_UNEXPECTED
#define E_UNEXPECTED CLRIE_HRESULT(0x8000FFFFu)
#endif
#ifndef E_ACCESSDENIED
#define E_ACCESSDENIED CLRIE_HRESULT(0x80070005u)
#endif
#ifndef E_OUTOFMEMORY
#define E_OUTOFMEMORY CLRIE_HRESULT(0x8007000Eu)
#endif
#ifndef E_INVALIDARG
#define E_INVALIDARG CLRIE_HRESULT(0x80070057u)
#endif
#ifndef CLASS_E_NOAGGREGATION
#define CLASS_E_NOAGGREGATION CLRIE_HRESULT(0x80040110u)
#endif
#ifndef CLASS_E_CLASSNOTAVAILABLE
#define CLASS_E_CLASSNOTAVAILABLE CLRIE_HRESULT(0x80040111u)
#endif
#ifndef CORPROF_E_DATAINCOMPLETE
#define CORPROF_E_DATAINCOMPLETE CLRIE_HRESULT(0x80131351u)
#endif
#ifndef CORPROF_E_FUNCTION_NOT_IL
#define CORPROF_E_FUNCTION_NOT_IL CLRIE_HRESULT(0x80131354u)
#endif
#ifndef CORPROF_E_NOT_MANAGED_THREAD
#define CORPROF_E_NOT_MANAGED_THREAD CLRIE_HRESULT(0x80131355u)
#endif
#ifndef CORPROF_E_UNSUPPORTED_CALL_SEQUENCE
#define CORPROF_E_UNSUPPORTED_CALL_SEQUENCE CLRIE_HRESULT(0x80131363u)
#endif
#ifndef CORPROF_E_PROFILER_CANCEL_ACTIVATION
#define CORPROF_E_PROFILER_CANCEL_ACTIVATION CLRIE_HRESULT(0x80131375u)
#endif
#ifndef CORPROF_E_REJIT_NOT_ENABLED
#define CORPROF_E_REJIT_NOT_ENABLED CLRIE_HRESULT(0x8013137Cu)
#endif
#ifndef CORPROF_E_REJIT_INLINING_DISABLED
#define CORPROF_E_REJIT_INLINING_DISABLED CLRIE_HRESULT(0x80131383u)
#endif
#ifndef COR_E_INVALIDPROGRAM
#define COR_E_INVALIDPROGRAM CLRIE_HRESULT(0x8013153Au)
#endif
#ifndef META_E_BADMETADATA
#define META_E_BADMETADATA CLRIE_HRESULT(0x8013118Au)
#endif
/* HRESULT_FROM_WIN32(ERROR_FILE_NOT_FOUND): what clrie's proxy returns when no engine is
 * installed (CLRIE returns S_OK with a NULL factory there). */
#define CLRIE_E_FILE_NOT_FOUND CLRIE_HRESULT(0x80070002u)

/* ---- building COM interfaces from method tables ---------------------------------------
 *
 * Each interface IFoo is written once as a table macro
 *
 *     #define CLRIE_IFOO_METHODS(X, SELF, OBJ) \
 *         CLRIE_IBASE_METHODS(X, SELF, OBJ) \
 *         X(HRESULT, Bar, (SELF, ULONG cb, BYTE *pb), (OBJ, cb, pb))
 *
 * listing every slot in vtable order, the base interface's first. Each entry is
 * X(return type, method name, (parameter declarations), (argument names)): SELF stands for
 * the declaration of the interface pointer parameter and OBJ for the expression passed
 * as the interface pointer when forwarding. A vtable is
 * CLRIE_IFOO_METHODS(CLRIE_ABI_VTBL_SLOT, IFoo *This, This); a forwarding wrapper is
 *
 *     #define FWD(ret, name, params, args) \
 *         static ret STDMETHODCALLTYPE fwd_##name params \
 *         { IFoo *inner = unwrap(This); return inner->lpVtbl->name args; }
 *     CLRIE_IFOO_METHODS(FWD, IFoo *This, inner)
 *
 * The only slots not returning HRESULT are IUnknown's AddRef/Release (ULONG),
 * IMethodMalloc::Alloc (PVOID), IMetaDataImport::IsValidToken (BOOL) and the two metadata
 * CloseEnum (void, so a forwarder for them must not `return` the call).
 *
 * Each header also lists its interfaces, CLRIE_<HEADER>_INTERFACES(X) with
 * X(name, method table, slot count), and its IIDs, CLRIE_<HEADER>_IIDS(X), in the same order,
 * so code can be generated for every interface at once. */
#define CLRIE_ABI_VTBL_SLOT(ret, name, params, args) ret(STDMETHODCALLTYPE *name) params;
#define CLRIE_ABI_COUNT_SLOT(ret, name, params, args) +1
#define CLRIE_ABI_SLOT_NAME(ret, name, params, args) #name,

/* Number of slots in a table, as a constant expression. */
#define CLRIE_ABI_SLOT_COUNT(METHODS) (0 METHODS(CLRIE_ABI_COUNT_SLOT, void *This, This))

/* Defines struct IFooVtbl and struct IFoo (typedef'd beforehand with CLRIE_ABI_FORWARD). */
#define CLRIE_ABI_FORWARD(iface) typedef struct iface iface;
#define CLRIE_ABI_DEFINE_INTERFACE(iface, METHODS)                                                 \
    struct iface##Vtbl {                                                                           \
        METHODS(CLRIE_ABI_VTBL_SLOT, iface *This, This)                                            \
    };                                                                                             \
    struct iface {                                                                                 \
        const struct iface##Vtbl *lpVtbl;                                                          \
    };

/* Checks that a vtable has exactly `slots` pointer-sized slots. */
#define CLRIE_ABI_CHECK_SLOTS(iface, slots)                                                        \
    CLRIE_ABI_STATIC_ASSERT(sizeof(struct iface##Vtbl) == (slots) * sizeof(void *),                \
                            #iface " must have " #slots " vtable slots");

/* An entry of a header's interface list, X(name, method table, slots): defines the
 * interface and checks its size. */
#define CLRIE_ABI_INTERFACE(iface, METHODS, slots)                                                 \
    CLRIE_ABI_DEFINE_INTERFACE(iface, METHODS)                                                     \
    CLRIE_ABI_CHECK_SLOTS(iface, slots)

/* The object holding `member` at `ptr`: how an object with several interfaces finds itself. */
#define CLRIE_CONTAINER_OF(ptr, type, member)                                                      \
    ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* ---- IUnknown and IClassFactory ------------------------------------------------------ */

#define CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ)                                                       \
    X(HRESULT, QueryInterface, (SELF, REFIID riid, void **ppvObject), (OBJ, riid, ppvObject))      \
    X(ULONG, AddRef, (SELF), (OBJ))                                                                \
    X(ULONG, Release, (SELF), (OBJ))

#define CLRIE_ICLASSFACTORY_METHODS(X, SELF, OBJ)                                                  \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ)                                                           \
    X(HRESULT, CreateInstance, (SELF, IUnknown * pUnkOuter, REFIID riid, void **ppvObject),        \
      (OBJ, pUnkOuter, riid, ppvObject))                                                           \
    X(HRESULT, LockServer, (SELF, BOOL fLock), (OBJ, fLock))

#define CLRIE_BASE_INTERFACES(X)                                                                   \
    X(IUnknown, CLRIE_IUNKNOWN_METHODS, 3)                                                         \
    X(IClassFactory, CLRIE_ICLASSFACTORY_METHODS, 5)

CLRIE_ABI_FORWARD(IUnknown)
CLRIE_ABI_FORWARD(IClassFactory)
CLRIE_BASE_INTERFACES(CLRIE_ABI_INTERFACE)

/* A COM module's exports (a plugin, the engine, the proxy), declared here as combaseapi.h
 * does, so that a module defining them in another convention does not compile. */
HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv);
HRESULT STDAPICALLTYPE DllCanUnloadNow(void);
/* Their types, for a loader calling them through dlsym/GetProcAddress. */
typedef HRESULT(STDAPICALLTYPE *LPFNGETCLASSOBJECT)(REFCLSID rclsid, REFIID riid, void **ppv);
typedef HRESULT(STDAPICALLTYPE *LPFNCANUNLOADNOW)(void);

/* Opaque OLE types that appear only behind pointers in the interfaces clrie declares. */
CLRIE_ABI_FORWARD(IStream)
CLRIE_ABI_FORWARD(ITypeInfo)
typedef struct tagVARIANT VARIANT;

#define CLRIE_BASE_IIDS(X)                                                                         \
    X(IUnknown, 0x00000000, 0x0000, 0x0000, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46)        \
    X(IClassFactory, 0x00000001, 0x0000, 0x0000, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46)

CLRIE_BASE_IIDS(CLRIE_ABI_DECLARE_IID)

CLRIE_ABI_STATIC_ASSERT(sizeof(GUID) == 16, "GUID is 16 bytes");
CLRIE_ABI_STATIC_ASSERT(sizeof(WCHAR) == 2, "WCHAR is a UTF-16 code unit");
CLRIE_ABI_STATIC_ASSERT(sizeof(ULONG) == 4 && sizeof(DWORD) == 4 && sizeof(LONG) == 4,
                        "LONG, ULONG and DWORD are 32-bit on the PAL");
CLRIE_ABI_STATIC_ASSERT(sizeof(BOOL) == 4 && sizeof(HRESULT) == 4, "BOOL, HRESULT 32-bit");
CLRIE_ABI_STATIC_ASSERT(sizeof(UINT_PTR) == sizeof(void *), "UINT_PTR is pointer-sized");
CLRIE_ABI_STATIC_ASSERT(sizeof(CorElementType) == 4, "enums are 32-bit");

#ifdef __cplusplus
}
#endif

#endif
