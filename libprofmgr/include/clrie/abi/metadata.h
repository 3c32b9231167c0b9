/* clrie ABI: the metadata interfaces of cor.h that the profiling API hands out
 * (IMetaDataImport/2, IMetaDataEmit/2, IMetaDataAssemblyImport/Emit, IMetaDataDispenser/Ex,
 * IMetaDataTables/2) and the types their methods use. Same method-table form as corprof.h
 * (see base.h). */
#ifndef CLRIE_ABI_METADATA_H
#define CLRIE_ABI_METADATA_H

#include "clrie/abi/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *HCORENUM;              /* enumeration cursor; release with CloseEnum */
typedef const char *MDUTF8CSTR;      /* UTF-8 name inside the metadata */
typedef const void *UVCP_CONSTANT;   /* constant value blob, possibly unaligned */

typedef struct COR_FIELD_OFFSET {
    mdFieldDef ridOfField;
    ULONG ulOffset;
} COR_FIELD_OFFSET;

typedef struct COR_SECATTR {
    mdMemberRef tkCtor;
    const void *pCustomAttribute;
    ULONG cbCustomAttribute;
} COR_SECATTR;

typedef struct OSINFO {
    DWORD dwOSPlatformId;
    DWORD dwOSMajorVersion;
    DWORD dwOSMinorVersion;
} OSINFO;

typedef struct ASSEMBLYMETADATA {
    USHORT usMajorVersion;
    USHORT usMinorVersion;
    USHORT usBuildNumber;
    USHORT usRevisionNumber;
    LPWSTR szLocale;
    ULONG cbLocale;     /* in: buffer size in WCHARs; out: actual */
    DWORD *rProcessor;
    ULONG ulProcessor;
    OSINFO *rOS;
    ULONG ulOS;
} ASSEMBLYMETADATA;

typedef enum CorSaveSize {
    cssAccurate = 0x0000,
    cssQuick = 0x0001,
    cssDiscardTransientCAs = 0x0002
} CorSaveSize;

/* Token types: the high byte of an mdToken. */
#define CLRIE_TOKEN_TYPE(tk) ((ULONG32)(tk) & 0xFF000000u)
#define CLRIE_TOKEN_RID(tk) ((ULONG32)(tk) & 0x00FFFFFFu)
#define mdtModule 0x00000000u
#define mdtTypeRef 0x01000000u
#define mdtTypeDef 0x02000000u
#define mdtFieldDef 0x04000000u
#define mdtMethodDef 0x06000000u
#define mdtParamDef 0x08000000u
#define mdtInterfaceImpl 0x09000000u
#define mdtMemberRef 0x0A000000u
#define mdtCustomAttribute 0x0C000000u
#define mdtPermission 0x0E000000u
#define mdtSignature 0x11000000u
#define mdtEvent 0x14000000u
#define mdtProperty 0x17000000u
#define mdtMethodImpl 0x19000000u
#define mdtModuleRef 0x1A000000u
#define mdtTypeSpec 0x1B000000u
#define mdtAssembly 0x20000000u
#define mdtAssemblyRef 0x23000000u
#define mdtFile 0x26000000u
#define mdtExportedType 0x27000000u
#define mdtManifestResource 0x28000000u
#define mdtGenericParam 0x2A000000u
#define mdtMethodSpec 0x2B000000u
#define mdtGenericParamConstraint 0x2C000000u
#define mdtString 0x70000000u
#define mdtName 0x71000000u
#define mdtBaseType 0x72000000u

/* Interfaces that appear here only behind pointers. */
CLRIE_ABI_FORWARD(IMapToken)

/* ---- interfaces ---------------------------------------------------------------------- */

CLRIE_ABI_FORWARD(IMetaDataDispenser)
CLRIE_ABI_FORWARD(IMetaDataDispenserEx)
CLRIE_ABI_FORWARD(IMetaDataImport)
CLRIE_ABI_FORWARD(IMetaDataImport2)
CLRIE_ABI_FORWARD(IMetaDataEmit)
CLRIE_ABI_FORWARD(IMetaDataEmit2)
CLRIE_ABI_FORWARD(IMetaDataAssemblyImport)
CLRIE_ABI_FORWARD(IMetaDataAssemblyEmit)
CLRIE_ABI_FORWARD(IMetaDataTables)
CLRIE_ABI_FORWARD(IMetaDataTables2)

/* IMetaDataDispenser : IUnknown, 3 methods, 6 slots */
#define CLRIE_IMETADATADISPENSER_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, DefineScope, \
      (SELF, REFCLSID rclsid, DWORD dwCreateFlags, REFIID riid, IUnknown **ppIUnk), \
      (OBJ, rclsid, dwCreateFlags, riid, ppIUnk)) \
    X(HRESULT, OpenScope, \
      (SELF, LPCWSTR szScope, DWORD dwOpenFlags, REFIID riid, IUnknown **ppIUnk), \
      (OBJ, szScope, dwOpenFlags, riid, ppIUnk)) \
    X(HRESULT, OpenScopeOnMemory, \
      (SELF, LPCVOID pData, ULONG cbData, DWORD dwOpenFlags, REFIID riid, IUnknown **ppIUnk), \
      (OBJ, pData, cbData, dwOpenFlags, riid, ppIUnk))

/* IMetaDataDispenserEx : IMetaDataDispenser, 6 methods, 12 slots */
#define CLRIE_IMETADATADISPENSEREX_METHODS(X, SELF, OBJ) \
    CLRIE_IMETADATADISPENSER_METHODS(X, SELF, OBJ) \
    X(HRESULT, SetOption, (SELF, REFGUID optionid, const VARIANT *value), (OBJ, optionid, value)) \
    X(HRESULT, GetOption, (SELF, REFGUID optionid, VARIANT *pvalue), (OBJ, optionid, pvalue)) \
    X(HRESULT, OpenScopeOnITypeInfo, \
      (SELF, ITypeInfo *pITI, DWORD dwOpenFlags, REFIID riid, IUnknown **ppIUnk), \
      (OBJ, pITI, dwOpenFlags, riid, ppIUnk)) \
    X(HRESULT, GetCORSystemDirectory, \
      (SELF, LPWSTR szBuffer, DWORD cchBuffer, DWORD *pchBuffer), \
      (OBJ, szBuffer, cchBuffer, pchBuffer)) \
    X(HRESULT, FindAssembly, \
      (SELF, LPCWSTR szAppBase, LPCWSTR szPrivateBin, LPCWSTR szGlobalBin, \
       LPCWSTR szAssemblyName, LPCWSTR szName, ULONG cchName, ULONG *pcName), \
      (OBJ, szAppBase, szPrivateBin, szGlobalBin, szAssemblyName, szName, cchName, pcName)) \
    X(HRESULT, FindAssemblyModule, \
      (SELF, LPCWSTR szAppBase, LPCWSTR szPrivateBin, LPCWSTR szGlobalBin, \
       LPCWSTR szAssemblyName, LPCWSTR szModuleName, LPWSTR szName, ULONG cchName, \
       ULONG *pcName), \
      (OBJ, szAppBase, szPrivateBin, szGlobalBin, szAssemblyName, szModuleName, szName, cchName, \
       pcName))

/* IMetaDataImport : IUnknown, 62 methods, 65 slots */
#define CLRIE_IMETADATAIMPORT_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(void, CloseEnum, (SELF, HCORENUM hEnum), (OBJ, hEnum)) \
    X(HRESULT, CountEnum, (SELF, HCORENUM hEnum, ULONG *pulCount), (OBJ, hEnum, pulCount)) \
    X(HRESULT, ResetEnum, (SELF, HCORENUM hEnum, ULONG ulPos), (OBJ, hEnum, ulPos)) \
    X(HRESULT, EnumTypeDefs, \
      (SELF, HCORENUM *phEnum, mdTypeDef rTypeDefs[], ULONG cMax, ULONG *pcTypeDefs), \
      (OBJ, phEnum, rTypeDefs, cMax, pcTypeDefs)) \
    X(HRESULT, EnumInterfaceImpls, \
      (SELF, HCORENUM *phEnum, mdTypeDef td, mdInterfaceImpl rImpls[], ULONG cMax, \
       ULONG *pcImpls), \
      (OBJ, phEnum, td, rImpls, cMax, pcImpls)) \
    X(HRESULT, EnumTypeRefs, \
      (SELF, HCORENUM *phEnum, mdTypeRef rTypeRefs[], ULONG cMax, ULONG *pcTypeRefs), \
      (OBJ, phEnum, rTypeRefs, cMax, pcTypeRefs)) \
    X(HRESULT, FindTypeDefByName, \
      (SELF, LPCWSTR szTypeDef, mdToken tkEnclosingClass, mdTypeDef *ptd), \
      (OBJ, szTypeDef, tkEnclosingClass, ptd)) \
    X(HRESULT, GetScopeProps, \
      (SELF, LPWSTR szName, ULONG cchName, ULONG *pchName, GUID *pmvid), \
      (OBJ, szName, cchName, pchName, pmvid)) \
    X(HRESULT, GetModuleFromScope, (SELF, mdModule *pmd), (OBJ, pmd)) \
    X(HRESULT, GetTypeDefProps, \
      (SELF, mdTypeDef td, LPWSTR szTypeDef, ULONG cchTypeDef, ULONG *pchTypeDef, \
       DWORD *pdwTypeDefFlags, mdToken *ptkExtends), \
      (OBJ, td, szTypeDef, cchTypeDef, pchTypeDef, pdwTypeDefFlags, ptkExtends)) \
    X(HRESULT, GetInterfaceImplProps, \
      (SELF, mdInterfaceImpl iiImpl, mdTypeDef *pClass, mdToken *ptkIface), \
      (OBJ, iiImpl, pClass, ptkIface)) \
    X(HRESULT, GetTypeRefProps, \
      (SELF, mdTypeRef tr, mdToken *ptkResolutionScope, LPWSTR szName, ULONG cchName, \
       ULONG *pchName), \
      (OBJ, tr, ptkResolutionScope, szName, cchName, pchName)) \
    X(HRESULT, ResolveTypeRef, \
      (SELF, mdTypeRef tr, REFIID riid, IUnknown **ppIScope, mdTypeDef *ptd), \
      (OBJ, tr, riid, ppIScope, ptd)) \
    X(HRESULT, EnumMembers, \
      (SELF, HCORENUM *phEnum, mdTypeDef cl, mdToken rMembers[], ULONG cMax, ULONG *pcTokens), \
      (OBJ, phEnum, cl, rMembers, cMax, pcTokens)) \
    X(HRESULT, EnumMembersWithName, \
      (SELF, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName, mdToken rMembers[], ULONG cMax, \
       ULONG *pcTokens), \
      (OBJ, phEnum, cl, szName, rMembers, cMax, pcTokens)) \
    X(HRESULT, EnumMethods, \
      (SELF, HCORENUM *phEnum, mdTypeDef cl, mdMethodDef rMethods[], ULONG cMax, \
       ULONG *pcTokens), \
      (OBJ, phEnum, cl, rMethods, cMax, pcTokens)) \
    X(HRESULT, EnumMethodsWithName, \
      (SELF, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName, mdMethodDef rMethods[], ULONG cMax, \
       ULONG *pcTokens), \
      (OBJ, phEnum, cl, szName, rMethods, cMax, pcTokens)) \
    X(HRESULT, EnumFields, \
      (SELF, HCORENUM *phEnum, mdTypeDef cl, mdFieldDef rFields[], ULONG cMax, ULONG *pcTokens), \
      (OBJ, phEnum, cl, rFields, cMax, pcTokens)) \
    X(HRESULT, EnumFieldsWithName, \
      (SELF, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName, mdFieldDef rFields[], ULONG cMax, \
       ULONG *pcTokens), \
      (OBJ, phEnum, cl, szName, rFields, cMax, pcTokens)) \
    X(HRESULT, EnumParams, \
      (SELF, HCORENUM *phEnum, mdMethodDef mb, mdParamDef rParams[], ULONG cMax, \
       ULONG *pcTokens), \
      (OBJ, phEnum, mb, rParams, cMax, pcTokens)) \
    X(HRESULT, EnumMemberRefs, \
      (SELF, HCORENUM *phEnum, mdToken tkParent, mdMemberRef rMemberRefs[], ULONG cMax, \
       ULONG *pcTokens), \
      (OBJ, phEnum, tkParent, rMemberRefs, cMax, pcTokens)) \
    X(HRESULT, EnumMethodImpls, \
      (SELF, HCORENUM *phEnum, mdTypeDef td, mdToken rMethodBody[], mdToken rMethodDecl[], \
       ULONG cMax, ULONG *pcTokens), \
      (OBJ, phEnum, td, rMethodBody, rMethodDecl, cMax, pcTokens)) \
    X(HRESULT, EnumPermissionSets, \
      (SELF, HCORENUM *phEnum, mdToken tk, DWORD dwActions, mdPermission rPermission[], \
       ULONG cMax, ULONG *pcTokens), \
      (OBJ, phEnum, tk, dwActions, rPermission, cMax, pcTokens)) \
    X(HRESULT, FindMember, \
      (SELF, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, \
       mdToken *pmb), \
      (OBJ, td, szName, pvSigBlob, cbSigBlob, pmb)) \
    X(HRESULT, FindMethod, \
      (SELF, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, \
       mdMethodDef *pmb), \
      (OBJ, td, szName, pvSigBlob, cbSigBlob, pmb)) \
    X(HRESULT, FindField, \
      (SELF, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, \
       mdFieldDef *pmb), \
      (OBJ, td, szName, pvSigBlob, cbSigBlob, pmb)) \
    X(HRESULT, FindMemberRef, \
      (SELF, mdTypeRef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, \
       mdMemberRef *pmr), \
      (OBJ, td, szName, pvSigBlob, cbSigBlob, pmr)) \
    X(HRESULT, GetMethodProps, \
      (SELF, mdMethodDef mb, mdTypeDef *pClass, LPWSTR szMethod, ULONG cchMethod, \
       ULONG *pchMethod, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob, \
       ULONG *pulCodeRVA, DWORD *pdwImplFlags), \
      (OBJ, mb, pClass, szMethod, cchMethod, pchMethod, pdwAttr, ppvSigBlob, pcbSigBlob, \
       pulCodeRVA, pdwImplFlags)) \
    X(HRESULT, GetMemberRefProps, \
      (SELF, mdMemberRef mr, mdToken *ptk, LPWSTR szMember, ULONG cchMember, ULONG *pchMember, \
       PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig), \
      (OBJ, mr, ptk, szMember, cchMember, pchMember, ppvSigBlob, pbSig)) \
    X(HRESULT, EnumProperties, \
      (SELF, HCORENUM *phEnum, mdTypeDef td, mdProperty rProperties[], ULONG cMax, \
       ULONG *pcProperties), \
      (OBJ, phEnum, td, rProperties, cMax, pcProperties)) \
    X(HRESULT, EnumEvents, \
      (SELF, HCORENUM *phEnum, mdTypeDef td, mdEvent rEvents[], ULONG cMax, ULONG *pcEvents), \
      (OBJ, phEnum, td, rEvents, cMax, pcEvents)) \
    X(HRESULT, GetEventProps, \
      (SELF, mdEvent ev, mdTypeDef *pClass, LPCWSTR szEvent, ULONG cchEvent, ULONG *pchEvent, \
       DWORD *pdwEventFlags, mdToken *ptkEventType, mdMethodDef *pmdAddOn, \
       mdMethodDef *pmdRemoveOn, mdMethodDef *pmdFire, mdMethodDef rmdOtherMethod[], ULONG cMax, \
       ULONG *pcOtherMethod), \
      (OBJ, ev, pClass, szEvent, cchEvent, pchEvent, pdwEventFlags, ptkEventType, pmdAddOn, \
       pmdRemoveOn, pmdFire, rmdOtherMethod, cMax, pcOtherMethod)) \
    X(HRESULT, EnumMethodSemantics, \
      (SELF, HCORENUM *phEnum, mdMethodDef mb, mdToken rEventProp[], ULONG cMax, \
       ULONG *pcEventProp), \
      (OBJ, phEnum, mb, rEventProp, cMax, pcEventProp)) \
    X(HRESULT, GetMethodSemantics, \
      (SELF, mdMethodDef mb, mdToken tkEventProp, DWORD *pdwSemanticsFlags), \
      (OBJ, mb, tkEventProp, pdwSemanticsFlags)) \
    X(HRESULT, GetClassLayout, \
      (SELF, mdTypeDef td, DWORD *pdwPackSize, COR_FIELD_OFFSET rFieldOffset[], ULONG cMax, \
       ULONG *pcFieldOffset, ULONG *pulClassSize), \
      (OBJ, td, pdwPackSize, rFieldOffset, cMax, pcFieldOffset, pulClassSize)) \
    X(HRESULT, GetFieldMarshal, \
      (SELF, mdToken tk, PCCOR_SIGNATURE *ppvNativeType, ULONG *pcbNativeType), \
      (OBJ, tk, ppvNativeType, pcbNativeType)) \
    X(HRESULT, GetRVA, \
      (SELF, mdToken tk, ULONG *pulCodeRVA, DWORD *pdwImplFlags), \
      (OBJ, tk, pulCodeRVA, pdwImplFlags)) \
    X(HRESULT, GetPermissionSetProps, \
      (SELF, mdPermission pm, DWORD *pdwAction, void const **ppvPermission, \
       ULONG *pcbPermission), \
      (OBJ, pm, pdwAction, ppvPermission, pcbPermission)) \
    X(HRESULT, GetSigFromToken, \
      (SELF, mdSignature mdSig, PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig), \
      (OBJ, mdSig, ppvSig, pcbSig)) \
    X(HRESULT, GetModuleRefProps, \
      (SELF, mdModuleRef mur, LPWSTR szName, ULONG cchName, ULONG *pchName), \
      (OBJ, mur, szName, cchName, pchName)) \
    X(HRESULT, EnumModuleRefs, \
      (SELF, HCORENUM *phEnum, mdModuleRef rModuleRefs[], ULONG cmax, ULONG *pcModuleRefs), \
      (OBJ, phEnum, rModuleRefs, cmax, pcModuleRefs)) \
    X(HRESULT, GetTypeSpecFromToken, \
      (SELF, mdTypeSpec typespec, PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig), \
      (OBJ, typespec, ppvSig, pcbSig)) \
    X(HRESULT, GetNameFromToken, \
      (SELF, mdToken tk, MDUTF8CSTR *pszUtf8NamePtr), \
      (OBJ, tk, pszUtf8NamePtr)) \
    X(HRESULT, EnumUnresolvedMethods, \
      (SELF, HCORENUM *phEnum, mdToken rMethods[], ULONG cMax, ULONG *pcTokens), \
      (OBJ, phEnum, rMethods, cMax, pcTokens)) \
    X(HRESULT, GetUserString, \
      (SELF, mdString stk, LPWSTR szString, ULONG cchString, ULONG *pchString), \
      (OBJ, stk, szString, cchString, pchString)) \
    X(HRESULT, GetPinvokeMap, \
      (SELF, mdToken tk, DWORD *pdwMappingFlags, LPWSTR szImportName, ULONG cchImportName, \
       ULONG *pchImportName, mdModuleRef *pmrImportDLL), \
      (OBJ, tk, pdwMappingFlags, szImportName, cchImportName, pchImportName, pmrImportDLL)) \
    X(HRESULT, EnumSignatures, \
      (SELF, HCORENUM *phEnum, mdSignature rSignatures[], ULONG cmax, ULONG *pcSignatures), \
      (OBJ, phEnum, rSignatures, cmax, pcSignatures)) \
    X(HRESULT, EnumTypeSpecs, \
      (SELF, HCORENUM *phEnum, mdTypeSpec rTypeSpecs[], ULONG cmax, ULONG *pcTypeSpecs), \
      (OBJ, phEnum, rTypeSpecs, cmax, pcTypeSpecs)) \
    X(HRESULT, EnumUserStrings, \
      (SELF, HCORENUM *phEnum, mdString rStrings[], ULONG cmax, ULONG *pcStrings), \
      (OBJ, phEnum, rStrings, cmax, pcStrings)) \
    X(HRESULT, GetParamForMethodIndex, \
      (SELF, mdMethodDef md, ULONG ulParamSeq, mdParamDef *ppd), \
      (OBJ, md, ulParamSeq, ppd)) \
    X(HRESULT, EnumCustomAttributes, \
      (SELF, HCORENUM *phEnum, mdToken tk, mdToken tkType, \
       mdCustomAttribute rCustomAttributes[], ULONG cMax, ULONG *pcCustomAttributes), \
      (OBJ, phEnum, tk, tkType, rCustomAttributes, cMax, pcCustomAttributes)) \
    X(HRESULT, GetCustomAttributeProps, \
      (SELF, mdCustomAttribute cv, mdToken *ptkObj, mdToken *ptkType, void const **ppBlob, \
       ULONG *pcbSize), \
      (OBJ, cv, ptkObj, ptkType, ppBlob, pcbSize)) \
    X(HRESULT, FindTypeRef, \
      (SELF, mdToken tkResolutionScope, LPCWSTR szName, mdTypeRef *ptr), \
      (OBJ, tkResolutionScope, szName, ptr)) \
    X(HRESULT, GetMemberProps, \
      (SELF, mdToken mb, mdTypeDef *pClass, LPWSTR szMember, ULONG cchMember, ULONG *pchMember, \
       DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob, ULONG *pulCodeRVA, \
       DWORD *pdwImplFlags, DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue, ULONG *pcchValue), \
      (OBJ, mb, pClass, szMember, cchMember, pchMember, pdwAttr, ppvSigBlob, pcbSigBlob, \
       pulCodeRVA, pdwImplFlags, pdwCPlusTypeFlag, ppValue, pcchValue)) \
    X(HRESULT, GetFieldProps, \
      (SELF, mdFieldDef mb, mdTypeDef *pClass, LPWSTR szField, ULONG cchField, ULONG *pchField, \
       DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob, DWORD *pdwCPlusTypeFlag, \
       UVCP_CONSTANT *ppValue, ULONG *pcchValue), \
      (OBJ, mb, pClass, szField, cchField, pchField, pdwAttr, ppvSigBlob, pcbSigBlob, \
       pdwCPlusTypeFlag, ppValue, pcchValue)) \
    X(HRESULT, GetPropertyProps, \
      (SELF, mdProperty prop, mdTypeDef *pClass, LPCWSTR szProperty, ULONG cchProperty, \
       ULONG *pchProperty, DWORD *pdwPropFlags, PCCOR_SIGNATURE *ppvSig, ULONG *pbSig, \
       DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppDefaultValue, ULONG *pcchDefaultValue, \
       mdMethodDef *pmdSetter, mdMethodDef *pmdGetter, mdMethodDef rmdOtherMethod[], ULONG cMax, \
       ULONG *pcOtherMethod), \
      (OBJ, prop, pClass, szProperty, cchProperty, pchProperty, pdwPropFlags, ppvSig, pbSig, \
       pdwCPlusTypeFlag, ppDefaultValue, pcchDefaultValue, pmdSetter, pmdGetter, rmdOtherMethod, \
       cMax, pcOtherMethod)) \
    X(HRESULT, GetParamProps, \
      (SELF, mdParamDef tk, mdMethodDef *pmd, ULONG *pulSequence, LPWSTR szName, ULONG cchName, \
       ULONG *pchName, DWORD *pdwAttr, DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue, \
       ULONG *pcchValue), \
      (OBJ, tk, pmd, pulSequence, szName, cchName, pchName, pdwAttr, pdwCPlusTypeFlag, ppValue, \
       pcchValue)) \
    X(HRESULT, GetCustomAttributeByName, \
      (SELF, mdToken tkObj, LPCWSTR szName, const void **ppData, ULONG *pcbData), \
      (OBJ, tkObj, szName, ppData, pcbData)) \
    X(BOOL, IsValidToken, (SELF, mdToken tk), (OBJ, tk)) \
    X(HRESULT, GetNestedClassProps, \
      (SELF, mdTypeDef tdNestedClass, mdTypeDef *ptdEnclosingClass), \
      (OBJ, tdNestedClass, ptdEnclosingClass)) \
    X(HRESULT, GetNativeCallConvFromSig, \
      (SELF, void const *pvSig, ULONG cbSig, ULONG *pCallConv), \
      (OBJ, pvSig, cbSig, pCallConv)) \
    X(HRESULT, IsGlobal, (SELF, mdToken pd, int *pbGlobal), (OBJ, pd, pbGlobal))

/* IMetaDataImport2 : IMetaDataImport, 8 methods, 73 slots */
#define CLRIE_IMETADATAIMPORT2_METHODS(X, SELF, OBJ) \
    CLRIE_IMETADATAIMPORT_METHODS(X, SELF, OBJ) \
    X(HRESULT, EnumGenericParams, \
      (SELF, HCORENUM *phEnum, mdToken tk, mdGenericParam rGenericParams[], ULONG cMax, \
       ULONG *pcGenericParams), \
      (OBJ, phEnum, tk, rGenericParams, cMax, pcGenericParams)) \
    X(HRESULT, GetGenericParamProps, \
      (SELF, mdGenericParam gp, ULONG *pulParamSeq, DWORD *pdwParamFlags, mdToken *ptOwner, \
       DWORD *reserved, LPWSTR wzname, ULONG cchName, ULONG *pchName), \
      (OBJ, gp, pulParamSeq, pdwParamFlags, ptOwner, reserved, wzname, cchName, pchName)) \
    X(HRESULT, GetMethodSpecProps, \
      (SELF, mdMethodSpec mi, mdToken *tkParent, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob), \
      (OBJ, mi, tkParent, ppvSigBlob, pcbSigBlob)) \
    X(HRESULT, EnumGenericParamConstraints, \
      (SELF, HCORENUM *phEnum, mdGenericParam tk, \
       mdGenericParamConstraint rGenericParamConstraints[], ULONG cMax, \
       ULONG *pcGenericParamConstraints), \
      (OBJ, phEnum, tk, rGenericParamConstraints, cMax, pcGenericParamConstraints)) \
    X(HRESULT, GetGenericParamConstraintProps, \
      (SELF, mdGenericParamConstraint gpc, mdGenericParam *ptGenericParam, \
       mdToken *ptkConstraintType), \
      (OBJ, gpc, ptGenericParam, ptkConstraintType)) \
    X(HRESULT, GetPEKind, \
      (SELF, DWORD *pdwPEKind, DWORD *pdwMAchine), \
      (OBJ, pdwPEKind, pdwMAchine)) \
    X(HRESULT, GetVersionString, \
      (SELF, LPWSTR pwzBuf, DWORD ccBufSize, DWORD *pccBufSize), \
      (OBJ, pwzBuf, ccBufSize, pccBufSize)) \
    X(HRESULT, EnumMethodSpecs, \
      (SELF, HCORENUM *phEnum, mdToken tk, mdMethodSpec rMethodSpecs[], ULONG cMax, \
       ULONG *pcMethodSpecs), \
      (OBJ, phEnum, tk, rMethodSpecs, cMax, pcMethodSpecs))

/* IMetaDataEmit : IUnknown, 49 methods, 52 slots */
#define CLRIE_IMETADATAEMIT_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, SetModuleProps, (SELF, LPCWSTR szName), (OBJ, szName)) \
    X(HRESULT, Save, (SELF, LPCWSTR szFile, DWORD dwSaveFlags), (OBJ, szFile, dwSaveFlags)) \
    X(HRESULT, SaveToStream, \
      (SELF, IStream *pIStream, DWORD dwSaveFlags), \
      (OBJ, pIStream, dwSaveFlags)) \
    X(HRESULT, GetSaveSize, \
      (SELF, CorSaveSize fSave, DWORD *pdwSaveSize), \
      (OBJ, fSave, pdwSaveSize)) \
    X(HRESULT, DefineTypeDef, \
      (SELF, LPCWSTR szTypeDef, DWORD dwTypeDefFlags, mdToken tkExtends, \
       mdToken rtkImplements[], mdTypeDef *ptd), \
      (OBJ, szTypeDef, dwTypeDefFlags, tkExtends, rtkImplements, ptd)) \
    X(HRESULT, DefineNestedType, \
      (SELF, LPCWSTR szTypeDef, DWORD dwTypeDefFlags, mdToken tkExtends, \
       mdToken rtkImplements[], mdTypeDef tdEncloser, mdTypeDef *ptd), \
      (OBJ, szTypeDef, dwTypeDefFlags, tkExtends, rtkImplements, tdEncloser, ptd)) \
    X(HRESULT, SetHandler, (SELF, IUnknown *pUnk), (OBJ, pUnk)) \
    X(HRESULT, DefineMethod, \
      (SELF, mdTypeDef td, LPCWSTR szName, DWORD dwMethodFlags, PCCOR_SIGNATURE pvSigBlob, \
       ULONG cbSigBlob, ULONG ulCodeRVA, DWORD dwImplFlags, mdMethodDef *pmd), \
      (OBJ, td, szName, dwMethodFlags, pvSigBlob, cbSigBlob, ulCodeRVA, dwImplFlags, pmd)) \
    X(HRESULT, DefineMethodImpl, \
      (SELF, mdTypeDef td, mdToken tkBody, mdToken tkDecl), \
      (OBJ, td, tkBody, tkDecl)) \
    X(HRESULT, DefineTypeRefByName, \
      (SELF, mdToken tkResolutionScope, LPCWSTR szName, mdTypeRef *ptr), \
      (OBJ, tkResolutionScope, szName, ptr)) \
    X(HRESULT, DefineImportType, \
      (SELF, IMetaDataAssemblyImport *pAssemImport, const void *pbHashValue, ULONG cbHashValue, \
       IMetaDataImport *pImport, mdTypeDef tdImport, IMetaDataAssemblyEmit *pAssemEmit, \
       mdTypeRef *ptr), \
      (OBJ, pAssemImport, pbHashValue, cbHashValue, pImport, tdImport, pAssemEmit, ptr)) \
    X(HRESULT, DefineMemberRef, \
      (SELF, mdToken tkImport, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, \
       mdMemberRef *pmr), \
      (OBJ, tkImport, szName, pvSigBlob, cbSigBlob, pmr)) \
    X(HRESULT, DefineImportMember, \
      (SELF, IMetaDataAssemblyImport *pAssemImport, const void *pbHashValue, ULONG cbHashValue, \
       IMetaDataImport *pImport, mdToken mbMember, IMetaDataAssemblyEmit *pAssemEmit, \
       mdToken tkParent, mdMemberRef *pmr), \
      (OBJ, pAssemImport, pbHashValue, cbHashValue, pImport, mbMember, pAssemEmit, tkParent, \
       pmr)) \
    X(HRESULT, DefineEvent, \
      (SELF, mdTypeDef td, LPCWSTR szEvent, DWORD dwEventFlags, mdToken tkEventType, \
       mdMethodDef mdAddOn, mdMethodDef mdRemoveOn, mdMethodDef mdFire, \
       mdMethodDef rmdOtherMethods[], mdEvent *pmdEvent), \
      (OBJ, td, szEvent, dwEventFlags, tkEventType, mdAddOn, mdRemoveOn, mdFire, \
       rmdOtherMethods, pmdEvent)) \
    X(HRESULT, SetClassLayout, \
      (SELF, mdTypeDef td, DWORD dwPackSize, COR_FIELD_OFFSET rFieldOffsets[], \
       ULONG ulClassSize), \
      (OBJ, td, dwPackSize, rFieldOffsets, ulClassSize)) \
    X(HRESULT, DeleteClassLayout, (SELF, mdTypeDef td), (OBJ, td)) \
    X(HRESULT, SetFieldMarshal, \
      (SELF, mdToken tk, PCCOR_SIGNATURE pvNativeType, ULONG cbNativeType), \
      (OBJ, tk, pvNativeType, cbNativeType)) \
    X(HRESULT, DeleteFieldMarshal, (SELF, mdToken tk), (OBJ, tk)) \
    X(HRESULT, DefinePermissionSet, \
      (SELF, mdToken tk, DWORD dwAction, void const *pvPermission, ULONG cbPermission, \
       mdPermission *ppm), \
      (OBJ, tk, dwAction, pvPermission, cbPermission, ppm)) \
    X(HRESULT, SetRVA, (SELF, mdMethodDef md, ULONG ulRVA), (OBJ, md, ulRVA)) \
    X(HRESULT, GetTokenFromSig, \
      (SELF, PCCOR_SIGNATURE pvSig, ULONG cbSig, mdSignature *pmsig), \
      (OBJ, pvSig, cbSig, pmsig)) \
    X(HRESULT, DefineModuleRef, (SELF, LPCWSTR szName, mdModuleRef *pmur), (OBJ, szName, pmur)) \
    X(HRESULT, SetParent, (SELF, mdMemberRef mr, mdToken tk), (OBJ, mr, tk)) \
    X(HRESULT, GetTokenFromTypeSpec, \
      (SELF, PCCOR_SIGNATURE pvSig, ULONG cbSig, mdTypeSpec *ptypespec), \
      (OBJ, pvSig, cbSig, ptypespec)) \
    X(HRESULT, SaveToMemory, (SELF, void *pbData, ULONG cbData), (OBJ, pbData, cbData)) \
    X(HRESULT, DefineUserString, \
      (SELF, LPCWSTR szString, ULONG cchString, mdString *pstk), \
      (OBJ, szString, cchString, pstk)) \
    X(HRESULT, DeleteToken, (SELF, mdToken tkObj), (OBJ, tkObj)) \
    X(HRESULT, SetMethodProps, \
      (SELF, mdMethodDef md, DWORD dwMethodFlags, ULONG ulCodeRVA, DWORD dwImplFlags), \
      (OBJ, md, dwMethodFlags, ulCodeRVA, dwImplFlags)) \
    X(HRESULT, SetTypeDefProps, \
      (SELF, mdTypeDef td, DWORD dwTypeDefFlags, mdToken tkExtends, mdToken rtkImplements[]), \
      (OBJ, td, dwTypeDefFlags, tkExtends, rtkImplements)) \
    X(HRESULT, SetEventProps, \
      (SELF, mdEvent ev, DWORD dwEventFlags, mdToken tkEventType, mdMethodDef mdAddOn, \
       mdMethodDef mdRemoveOn, mdMethodDef mdFire, mdMethodDef rmdOtherMethods[]), \
      (OBJ, ev, dwEventFlags, tkEventType, mdAddOn, mdRemoveOn, mdFire, rmdOtherMethods)) \
    X(HRESULT, SetPermissionSetProps, \
      (SELF, mdToken tk, DWORD dwAction, void const *pvPermission, ULONG cbPermission, \
       mdPermission *ppm), \
      (OBJ, tk, dwAction, pvPermission, cbPermission, ppm)) \
    X(HRESULT, DefinePinvokeMap, \
      (SELF, mdToken tk, DWORD dwMappingFlags, LPCWSTR szImportName, mdModuleRef mrImportDLL), \
      (OBJ, tk, dwMappingFlags, szImportName, mrImportDLL)) \
    X(HRESULT, SetPinvokeMap, \
      (SELF, mdToken tk, DWORD dwMappingFlags, LPCWSTR szImportName, mdModuleRef mrImportDLL), \
      (OBJ, tk, dwMappingFlags, szImportName, mrImportDLL)) \
    X(HRESULT, DeletePinvokeMap, (SELF, mdToken tk), (OBJ, tk)) \
    X(HRESULT, DefineCustomAttribute, \
      (SELF, mdToken tkOwner, mdToken tkCtor, void const *pCustomAttribute, \
       ULONG cbCustomAttribute, mdCustomAttribute *pcv), \
      (OBJ, tkOwner, tkCtor, pCustomAttribute, cbCustomAttribute, pcv)) \
    X(HRESULT, SetCustomAttributeValue, \
      (SELF, mdCustomAttribute pcv, void const *pCustomAttribute, ULONG cbCustomAttribute), \
      (OBJ, pcv, pCustomAttribute, cbCustomAttribute)) \
    X(HRESULT, DefineField, \
      (SELF, mdTypeDef td, LPCWSTR szName, DWORD dwFieldFlags, PCCOR_SIGNATURE pvSigBlob, \
       ULONG cbSigBlob, DWORD dwCPlusTypeFlag, void const *pValue, ULONG cchValue, \
       mdFieldDef *pmd), \
      (OBJ, td, szName, dwFieldFlags, pvSigBlob, cbSigBlob, dwCPlusTypeFlag, pValue, cchValue, \
       pmd)) \
    X(HRESULT, DefineProperty, \
      (SELF, mdTypeDef td, LPCWSTR szProperty, DWORD dwPropFlags, PCCOR_SIGNATURE pvSig, \
       ULONG cbSig, DWORD dwCPlusTypeFlag, void const *pValue, ULONG cchValue, \
       mdMethodDef mdSetter, mdMethodDef mdGetter, mdMethodDef rmdOtherMethods[], \
       mdProperty *pmdProp), \
      (OBJ, td, szProperty, dwPropFlags, pvSig, cbSig, dwCPlusTypeFlag, pValue, cchValue, \
       mdSetter, mdGetter, rmdOtherMethods, pmdProp)) \
    X(HRESULT, DefineParam, \
      (SELF, mdMethodDef md, ULONG ulParamSeq, LPCWSTR szName, DWORD dwParamFlags, \
       DWORD dwCPlusTypeFlag, void const *pValue, ULONG cchValue, mdParamDef *ppd), \
      (OBJ, md, ulParamSeq, szName, dwParamFlags, dwCPlusTypeFlag, pValue, cchValue, ppd)) \
    X(HRESULT, SetFieldProps, \
      (SELF, mdFieldDef fd, DWORD dwFieldFlags, DWORD dwCPlusTypeFlag, void const *pValue, \
       ULONG cchValue), \
      (OBJ, fd, dwFieldFlags, dwCPlusTypeFlag, pValue, cchValue)) \
    X(HRESULT, SetPropertyProps, \
      (SELF, mdProperty pr, DWORD dwPropFlags, DWORD dwCPlusTypeFlag, void const *pValue, \
       ULONG cchValue, mdMethodDef mdSetter, mdMethodDef mdGetter, \
       mdMethodDef rmdOtherMethods[]), \
      (OBJ, pr, dwPropFlags, dwCPlusTypeFlag, pValue, cchValue, mdSetter, mdGetter, \
       rmdOtherMethods)) \
    X(HRESULT, SetParamProps, \
      (SELF, mdParamDef pd, LPCWSTR szName, DWORD dwParamFlags, DWORD dwCPlusTypeFlag, \
       void const *pValue, ULONG cchValue), \
      (OBJ, pd, szName, dwParamFlags, dwCPlusTypeFlag, pValue, cchValue)) \
    X(HRESULT, DefineSecurityAttributeSet, \
      (SELF, mdToken tkObj, COR_SECATTR rSecAttrs[], ULONG cSecAttrs, ULONG *pulErrorAttr), \
      (OBJ, tkObj, rSecAttrs, cSecAttrs, pulErrorAttr)) \
    X(HRESULT, ApplyEditAndContinue, (SELF, IUnknown *pImport), (OBJ, pImport)) \
    X(HRESULT, TranslateSigWithScope, \
      (SELF, IMetaDataAssemblyImport *pAssemImport, const void *pbHashValue, ULONG cbHashValue, \
       IMetaDataImport *import, PCCOR_SIGNATURE pbSigBlob, ULONG cbSigBlob, \
       IMetaDataAssemblyEmit *pAssemEmit, IMetaDataEmit *emit, PCOR_SIGNATURE pvTranslatedSig, \
       ULONG cbTranslatedSigMax, ULONG *pcbTranslatedSig), \
      (OBJ, pAssemImport, pbHashValue, cbHashValue, import, pbSigBlob, cbSigBlob, pAssemEmit, \
       emit, pvTranslatedSig, cbTranslatedSigMax, pcbTranslatedSig)) \
    X(HRESULT, SetMethodImplFlags, \
      (SELF, mdMethodDef md, DWORD dwImplFlags), \
      (OBJ, md, dwImplFlags)) \
    X(HRESULT, SetFieldRVA, (SELF, mdFieldDef fd, ULONG ulRVA), (OBJ, fd, ulRVA)) \
    X(HRESULT, Merge, \
      (SELF, IMetaDataImport *pImport, IMapToken *pHostMapToken, IUnknown *pHandler), \
      (OBJ, pImport, pHostMapToken, pHandler)) \
    X(HRESULT, MergeEnd, (SELF), (OBJ))

/* IMetaDataEmit2 : IMetaDataEmit, 8 methods, 60 slots */
#define CLRIE_IMETADATAEMIT2_METHODS(X, SELF, OBJ) \
    CLRIE_IMETADATAEMIT_METHODS(X, SELF, OBJ) \
    X(HRESULT, DefineMethodSpec, \
      (SELF, mdToken tkParent, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, mdMethodSpec *pmi), \
      (OBJ, tkParent, pvSigBlob, cbSigBlob, pmi)) \
    X(HRESULT, GetDeltaSaveSize, \
      (SELF, CorSaveSize fSave, DWORD *pdwSaveSize), \
      (OBJ, fSave, pdwSaveSize)) \
    X(HRESULT, SaveDelta, (SELF, LPCWSTR szFile, DWORD dwSaveFlags), (OBJ, szFile, dwSaveFlags)) \
    X(HRESULT, SaveDeltaToStream, \
      (SELF, IStream *pIStream, DWORD dwSaveFlags), \
      (OBJ, pIStream, dwSaveFlags)) \
    X(HRESULT, SaveDeltaToMemory, (SELF, void *pbData, ULONG cbData), (OBJ, pbData, cbData)) \
    X(HRESULT, DefineGenericParam, \
      (SELF, mdToken tk, ULONG ulParamSeq, DWORD dwParamFlags, LPCWSTR szname, DWORD reserved, \
       mdToken rtkConstraints[], mdGenericParam *pgp), \
      (OBJ, tk, ulParamSeq, dwParamFlags, szname, reserved, rtkConstraints, pgp)) \
    X(HRESULT, SetGenericParamProps, \
      (SELF, mdGenericParam gp, DWORD dwParamFlags, LPCWSTR szName, DWORD reserved, \
       mdToken rtkConstraints[]), \
      (OBJ, gp, dwParamFlags, szName, reserved, rtkConstraints)) \
    X(HRESULT, ResetENCLog, (SELF), (OBJ))

/* IMetaDataAssemblyImport : IUnknown, 14 methods, 17 slots */
#define CLRIE_IMETADATAASSEMBLYIMPORT_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetAssemblyProps, \
      (SELF, mdAssembly mda, const void **ppbPublicKey, ULONG *pcbPublicKey, \
       ULONG *pulHashAlgId, LPWSTR szName, ULONG cchName, ULONG *pchName, \
       ASSEMBLYMETADATA *pMetaData, DWORD *pdwAssemblyFlags), \
      (OBJ, mda, ppbPublicKey, pcbPublicKey, pulHashAlgId, szName, cchName, pchName, pMetaData, \
       pdwAssemblyFlags)) \
    X(HRESULT, GetAssemblyRefProps, \
      (SELF, mdAssemblyRef mdar, const void **ppbPublicKeyOrToken, ULONG *pcbPublicKeyOrToken, \
       LPWSTR szName, ULONG cchName, ULONG *pchName, ASSEMBLYMETADATA *pMetaData, \
       const void **ppbHashValue, ULONG *pcbHashValue, DWORD *pdwAssemblyRefFlags), \
      (OBJ, mdar, ppbPublicKeyOrToken, pcbPublicKeyOrToken, szName, cchName, pchName, pMetaData, \
       ppbHashValue, pcbHashValue, pdwAssemblyRefFlags)) \
    X(HRESULT, GetFileProps, \
      (SELF, mdFile mdf, LPWSTR szName, ULONG cchName, ULONG *pchName, \
       const void **ppbHashValue, ULONG *pcbHashValue, DWORD *pdwFileFlags), \
      (OBJ, mdf, szName, cchName, pchName, ppbHashValue, pcbHashValue, pdwFileFlags)) \
    X(HRESULT, GetExportedTypeProps, \
      (SELF, mdExportedType mdct, LPWSTR szName, ULONG cchName, ULONG *pchName, \
       mdToken *ptkImplementation, mdTypeDef *ptkTypeDef, DWORD *pdwExportedTypeFlags), \
      (OBJ, mdct, szName, cchName, pchName, ptkImplementation, ptkTypeDef, pdwExportedTypeFlags)) \
    X(HRESULT, GetManifestResourceProps, \
      (SELF, mdManifestResource mdmr, LPWSTR szName, ULONG cchName, ULONG *pchName, \
       mdToken *ptkImplementation, DWORD *pdwOffset, DWORD *pdwResourceFlags), \
      (OBJ, mdmr, szName, cchName, pchName, ptkImplementation, pdwOffset, pdwResourceFlags)) \
    X(HRESULT, EnumAssemblyRefs, \
      (SELF, HCORENUM *phEnum, mdAssemblyRef rAssemblyRefs[], ULONG cMax, ULONG *pcTokens), \
      (OBJ, phEnum, rAssemblyRefs, cMax, pcTokens)) \
    X(HRESULT, EnumFiles, \
      (SELF, HCORENUM *phEnum, mdFile rFiles[], ULONG cMax, ULONG *pcTokens), \
      (OBJ, phEnum, rFiles, cMax, pcTokens)) \
    X(HRESULT, EnumExportedTypes, \
      (SELF, HCORENUM *phEnum, mdExportedType rExportedTypes[], ULONG cMax, ULONG *pcTokens), \
      (OBJ, phEnum, rExportedTypes, cMax, pcTokens)) \
    X(HRESULT, EnumManifestResources, \
      (SELF, HCORENUM *phEnum, mdManifestResource rManifestResources[], ULONG cMax, \
       ULONG *pcTokens), \
      (OBJ, phEnum, rManifestResources, cMax, pcTokens)) \
    X(HRESULT, GetAssemblyFromScope, (SELF, mdAssembly *ptkAssembly), (OBJ, ptkAssembly)) \
    X(HRESULT, FindExportedTypeByName, \
      (SELF, LPCWSTR szName, mdToken tkEnclosingType, mdExportedType *ptkExportedType), \
      (OBJ, szName, tkEnclosingType, ptkExportedType)) \
    X(HRESULT, FindManifestResourceByName, \
      (SELF, LPCWSTR szName, mdManifestResource *ptkManifestResource), \
      (OBJ, szName, ptkManifestResource)) \
    X(void, CloseEnum, (SELF, HCORENUM hEnum), (OBJ, hEnum)) \
    X(HRESULT, FindAssembliesByName, \
      (SELF, LPCWSTR szAppBase, LPCWSTR szPrivateBin, LPCWSTR szAssemblyName, \
       IUnknown *ppIUnk[], ULONG cMax, ULONG *pcAssemblies), \
      (OBJ, szAppBase, szPrivateBin, szAssemblyName, ppIUnk, cMax, pcAssemblies))

/* IMetaDataAssemblyEmit : IUnknown, 10 methods, 13 slots */
#define CLRIE_IMETADATAASSEMBLYEMIT_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, DefineAssembly, \
      (SELF, const void *pbPublicKey, ULONG cbPublicKey, ULONG ulHashAlgId, LPCWSTR szName, \
       const ASSEMBLYMETADATA *pMetaData, DWORD dwAssemblyFlags, mdAssembly *pma), \
      (OBJ, pbPublicKey, cbPublicKey, ulHashAlgId, szName, pMetaData, dwAssemblyFlags, pma)) \
    X(HRESULT, DefineAssemblyRef, \
      (SELF, const void *pbPublicKeyOrToken, ULONG cbPublicKeyOrToken, LPCWSTR szName, \
       const ASSEMBLYMETADATA *pMetaData, const void *pbHashValue, ULONG cbHashValue, \
       DWORD dwAssemblyRefFlags, mdAssemblyRef *pmdar), \
      (OBJ, pbPublicKeyOrToken, cbPublicKeyOrToken, szName, pMetaData, pbHashValue, cbHashValue, \
       dwAssemblyRefFlags, pmdar)) \
    X(HRESULT, DefineFile, \
      (SELF, LPCWSTR szName, const void *pbHashValue, ULONG cbHashValue, DWORD dwFileFlags, \
       mdFile *pmdf), \
      (OBJ, szName, pbHashValue, cbHashValue, dwFileFlags, pmdf)) \
    X(HRESULT, DefineExportedType, \
      (SELF, LPCWSTR szName, mdToken tkImplementation, mdTypeDef tkTypeDef, \
       DWORD dwExportedTypeFlags, mdExportedType *pmdct), \
      (OBJ, szName, tkImplementation, tkTypeDef, dwExportedTypeFlags, pmdct)) \
    X(HRESULT, DefineManifestResource, \
      (SELF, LPCWSTR szName, mdToken tkImplementation, DWORD dwOffset, DWORD dwResourceFlags, \
       mdManifestResource *pmdmr), \
      (OBJ, szName, tkImplementation, dwOffset, dwResourceFlags, pmdmr)) \
    X(HRESULT, SetAssemblyProps, \
      (SELF, mdAssembly pma, const void *pbPublicKey, ULONG cbPublicKey, ULONG ulHashAlgId, \
       LPCWSTR szName, const ASSEMBLYMETADATA *pMetaData, DWORD dwAssemblyFlags), \
      (OBJ, pma, pbPublicKey, cbPublicKey, ulHashAlgId, szName, pMetaData, dwAssemblyFlags)) \
    X(HRESULT, SetAssemblyRefProps, \
      (SELF, mdAssemblyRef ar, const void *pbPublicKeyOrToken, ULONG cbPublicKeyOrToken, \
       LPCWSTR szName, const ASSEMBLYMETADATA *pMetaData, const void *pbHashValue, \
       ULONG cbHashValue, DWORD dwAssemblyRefFlags), \
      (OBJ, ar, pbPublicKeyOrToken, cbPublicKeyOrToken, szName, pMetaData, pbHashValue, \
       cbHashValue, dwAssemblyRefFlags)) \
    X(HRESULT, SetFileProps, \
      (SELF, mdFile file, const void *pbHashValue, ULONG cbHashValue, DWORD dwFileFlags), \
      (OBJ, file, pbHashValue, cbHashValue, dwFileFlags)) \
    X(HRESULT, SetExportedTypeProps, \
      (SELF, mdExportedType ct, mdToken tkImplementation, mdTypeDef tkTypeDef, \
       DWORD dwExportedTypeFlags), \
      (OBJ, ct, tkImplementation, tkTypeDef, dwExportedTypeFlags)) \
    X(HRESULT, SetManifestResourceProps, \
      (SELF, mdManifestResource mr, mdToken tkImplementation, DWORD dwOffset, \
       DWORD dwResourceFlags), \
      (OBJ, mr, tkImplementation, dwOffset, dwResourceFlags))

/* IMetaDataTables : IUnknown, 19 methods, 22 slots */
#define CLRIE_IMETADATATABLES_METHODS(X, SELF, OBJ) \
    CLRIE_IUNKNOWN_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetStringHeapSize, (SELF, ULONG *pcbStrings), (OBJ, pcbStrings)) \
    X(HRESULT, GetBlobHeapSize, (SELF, ULONG *pcbBlobs), (OBJ, pcbBlobs)) \
    X(HRESULT, GetGuidHeapSize, (SELF, ULONG *pcbGuids), (OBJ, pcbGuids)) \
    X(HRESULT, GetUserStringHeapSize, (SELF, ULONG *pcbBlobs), (OBJ, pcbBlobs)) \
    X(HRESULT, GetNumTables, (SELF, ULONG *pcTables), (OBJ, pcTables)) \
    X(HRESULT, GetTableIndex, (SELF, ULONG token, ULONG *pixTbl), (OBJ, token, pixTbl)) \
    X(HRESULT, GetTableInfo, \
      (SELF, ULONG ixTbl, ULONG *pcbRow, ULONG *pcRows, ULONG *pcCols, ULONG *piKey, \
       const char **ppName), \
      (OBJ, ixTbl, pcbRow, pcRows, pcCols, piKey, ppName)) \
    X(HRESULT, GetColumnInfo, \
      (SELF, ULONG ixTbl, ULONG ixCol, ULONG *poCol, ULONG *pcbCol, ULONG *pType, \
       const char **ppName), \
      (OBJ, ixTbl, ixCol, poCol, pcbCol, pType, ppName)) \
    X(HRESULT, GetCodedTokenInfo, \
      (SELF, ULONG ixCdTkn, ULONG *pcTokens, ULONG **ppTokens, const char **ppName), \
      (OBJ, ixCdTkn, pcTokens, ppTokens, ppName)) \
    X(HRESULT, GetRow, (SELF, ULONG ixTbl, ULONG rid, void **ppRow), (OBJ, ixTbl, rid, ppRow)) \
    X(HRESULT, GetColumn, \
      (SELF, ULONG ixTbl, ULONG ixCol, ULONG rid, ULONG *pVal), \
      (OBJ, ixTbl, ixCol, rid, pVal)) \
    X(HRESULT, GetString, \
      (SELF, ULONG ixString, const char **ppString), \
      (OBJ, ixString, ppString)) \
    X(HRESULT, GetBlob, \
      (SELF, ULONG ixBlob, ULONG *pcbData, const void **ppData), \
      (OBJ, ixBlob, pcbData, ppData)) \
    X(HRESULT, GetGuid, (SELF, ULONG ixGuid, const GUID **ppGUID), (OBJ, ixGuid, ppGUID)) \
    X(HRESULT, GetUserString, \
      (SELF, ULONG ixUserString, ULONG *pcbData, const void **ppData), \
      (OBJ, ixUserString, pcbData, ppData)) \
    X(HRESULT, GetNextString, (SELF, ULONG ixString, ULONG *pNext), (OBJ, ixString, pNext)) \
    X(HRESULT, GetNextBlob, (SELF, ULONG ixBlob, ULONG *pNext), (OBJ, ixBlob, pNext)) \
    X(HRESULT, GetNextGuid, (SELF, ULONG ixGuid, ULONG *pNext), (OBJ, ixGuid, pNext)) \
    X(HRESULT, GetNextUserString, \
      (SELF, ULONG ixUserString, ULONG *pNext), \
      (OBJ, ixUserString, pNext))

/* IMetaDataTables2 : IMetaDataTables, 2 methods, 24 slots */
#define CLRIE_IMETADATATABLES2_METHODS(X, SELF, OBJ) \
    CLRIE_IMETADATATABLES_METHODS(X, SELF, OBJ) \
    X(HRESULT, GetMetaDataStorage, (SELF, const void **ppvMd, ULONG *pcbMd), (OBJ, ppvMd, pcbMd)) \
    X(HRESULT, GetMetaDataStreamInfo, \
      (SELF, ULONG ix, const char **ppchName, const void **ppv, ULONG *pcb), \
      (OBJ, ix, ppchName, ppv, pcb))

/* IIDs: X(Name, Data1, Data2, Data3, Data4[0..7]). */
#define CLRIE_METADATA_IIDS(X) \
    X(IMetaDataDispenser, 0x809C652E, 0x7396, 0x11D2, 0x97, 0x71, 0x00, 0xA0, 0xC9, 0xB4, 0xD5, 0x0C) \
    X(IMetaDataDispenserEx, 0x31BCFCE2, 0xDAFB, 0x11D2, 0x9F, 0x81, 0x00, 0xC0, 0x4F, 0x79, 0xA0, 0xA3) \
    X(IMetaDataImport, 0x7DAC8207, 0xD3AE, 0x4C75, 0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44) \
    X(IMetaDataImport2, 0xFCE5EFA0, 0x8BBA, 0x4F8E, 0xA0, 0x36, 0x8F, 0x20, 0x22, 0xB0, 0x84, 0x66) \
    X(IMetaDataEmit, 0xBA3FEE4C, 0xECB9, 0x4E41, 0x83, 0xB7, 0x18, 0x3F, 0xA4, 0x1C, 0xD8, 0x59) \
    X(IMetaDataEmit2, 0xF5DD9950, 0xF693, 0x42E6, 0x83, 0x0E, 0x7B, 0x83, 0x3E, 0x81, 0x46, 0xA9) \
    X(IMetaDataAssemblyImport, 0xEE62470B, 0xE94B, 0x424E, 0x9B, 0x7C, 0x2F, 0x00, 0xC9, 0x24, 0x9F, 0x93) \
    X(IMetaDataAssemblyEmit, 0x211EF15B, 0x5317, 0x4438, 0xB1, 0x96, 0xDE, 0xC8, 0x7B, 0x88, 0x76, 0x93) \
    X(IMetaDataTables, 0xD8F579AB, 0x402D, 0x4B8E, 0x82, 0xD9, 0x5D, 0x63, 0xB1, 0x06, 0x5C, 0x68) \
    X(IMetaDataTables2, 0xBADB5F70, 0x58DA, 0x43A9, 0xA1, 0xC6, 0xD7, 0x48, 0x19, 0xF1, 0x9B, 0x15)

CLRIE_METADATA_IIDS(CLRIE_ABI_DECLARE_IID)

/* Every interface of this header as X(name, method table, vtable slots including
 * IUnknown's three). CLRIE_ABI_INTERFACE defines struct <name>Vtbl and struct <name>
 * from the table and checks the slot count at compile time. */
#define CLRIE_METADATA_INTERFACES(X) \
    X(IMetaDataDispenser, CLRIE_IMETADATADISPENSER_METHODS, 6) \
    X(IMetaDataDispenserEx, CLRIE_IMETADATADISPENSEREX_METHODS, 12) \
    X(IMetaDataImport, CLRIE_IMETADATAIMPORT_METHODS, 65) \
    X(IMetaDataImport2, CLRIE_IMETADATAIMPORT2_METHODS, 73) \
    X(IMetaDataEmit, CLRIE_IMETADATAEMIT_METHODS, 52) \
    X(IMetaDataEmit2, CLRIE_IMETADATAEMIT2_METHODS, 60) \
    X(IMetaDataAssemblyImport, CLRIE_IMETADATAASSEMBLYIMPORT_METHODS, 17) \
    X(IMetaDataAssemblyEmit, CLRIE_IMETADATAASSEMBLYEMIT_METHODS, 13) \
    X(IMetaDataTables, CLRIE_IMETADATATABLES_METHODS, 22) \
    X(IMetaDataTables2, CLRIE_IMETADATATABLES2_METHODS, 24)

CLRIE_METADATA_INTERFACES(CLRIE_ABI_INTERFACE)

#ifdef __cplusplus
}
#endif

#endif
