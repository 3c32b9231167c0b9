/* A fake CoreCLR for libprofmgr's tests: a minimal ICorProfilerInfo3 (every slot E_NOTIMPL except
 * AddRef/Release, GetAppDomainInfo, GetAssemblyInfo, GetModuleInfo, GetModuleInfo2 and
 * GetModuleMetaData) over tables of domains, assemblies and modules the test registers, with UTF-16
 * names as the runtime gives them, and fake metadata interfaces: IMetaDataImport2 (GetScopeProps,
 * FindTypeDefByName knowing "Fake.Type"), IMetaDataAssemblyImport (GetAssemblyFromScope,
 * GetAssemblyProps), and do-nothing IMetaDataEmit2 / IMetaDataAssemblyEmit. Every fake counts its
 * references so a test can prove the engine gave back all it took. Thread-safe.
 *
 * Also builds PE images in memory (mapped or flat layout) with a CLI header. */
#ifndef CLRIE_PM_TESTS_FAKE_RUNTIME_H
#define CLRIE_PM_TESTS_FAKE_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "clrie/abi/corprof.h"
#include "clrie/abi/metadata.h"

struct fake_domain {
    AppDomainID id;
    const char *name;
    bool incomplete; /* GetAppDomainInfo answers CORPROF_E_DATAINCOMPLETE */
};

struct fake_assembly {
    AssemblyID id;
    const char *name;
    AppDomainID domain;
    ModuleID manifest;
    const BYTE *key;
    ULONG key_size;
    DWORD flags;
};

struct fake_module {
    ModuleID id;
    const char *path;
    AssemblyID assembly;
    LPCBYTE base;
    DWORD flags;
    GUID mvid;
    bool no_metadata;
    bool no_emit;
};

/* Forgets every domain, assembly and module and resets the counters (the info's count to 1). */
void fake_runtime_reset(void);
/* Registers what the runtime knows; strings and images are borrowed and must stay valid. */
void fake_add_domain(struct fake_domain d);
void fake_add_assembly(struct fake_assembly a);
void fake_add_module(struct fake_module m);
void fake_set_domain_complete(AppDomainID id);

/* The runtime's profiler info; its reference count starts at 1 (the runtime's own). */
extern ICorProfilerInfo3 fake_info;
int fake_info_refs(void);
/* Fake metadata objects alive, and GetModuleMetaData calls that created one. */
int fake_metadata_live(void);
int fake_metadata_requests(void);
/* The vtable a fake metadata object of that interface has. */
const void *fake_metadata_vtbl(const IID *iid);

/* The runtime's string convention: *pcch gets the length with the terminator; the buffer gets
 * as much as fits, terminated. */
void fake_give_string(const char *utf8, ULONG cch, ULONG *pcch, WCHAR *buffer);

/* The one Assembly row of every fake module's metadata, and the IMetaDataAssemblyImport slot
 * that names it. */
#define FAKE_ASSEMBLY_TOKEN 0x20000001u
HRESULT STDMETHODCALLTYPE fake_GetAssemblyFromScope(IMetaDataAssemblyImport *This,
                                                    mdAssembly *ptkAssembly);
/* GetAssemblyProps's answer for `a`: its public key, name and flags, hash SHA-1, version 0. The
 * fakes' GetAssemblyProps slots call it with the assembly they stand for. */
HRESULT fake_assembly_props(const struct fake_assembly *a, const void **ppbPublicKey,
                            ULONG *pcbPublicKey, ULONG *pulHashAlgId, LPWSTR szName, ULONG cchName,
                            ULONG *pchName, ASSEMBLYMETADATA *pMetaData, DWORD *pdwAssemblyFlags);

/* The TypeDef token FindTypeDefByName gives "Fake.Type". */
#define FAKE_TYPE_TOKEN 0x02000005u

/* fake_pe_image's layout: one .text section at TEXT_RVA (file offset TEXT_RAW) holding the CLI
 * header 8 bytes in, in an IMAGE_SIZE buffer (calloc'd; free() it). */
#define IMAGE_SIZE 0x4000u
#define TEXT_RVA 0x2000u
#define TEXT_RAW 0x200u
#define COR_RVA (TEXT_RVA + 8u)
#define ENTRY_TOKEN 0x06000001u
uint8_t *fake_pe_image(bool flat, bool pe32_plus, uint32_t cor_flags, uint32_t entry);
void fake_put16(uint8_t *p, uint16_t v);
void fake_put32(uint8_t *p, uint32_t v);

#endif
