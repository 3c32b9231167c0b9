/* A fake CoreCLR for the JIT pipeline's tests (test_pipeline.c): an ICorProfilerInfo15 that
 * knows one app domain, one assembly, a normal module and a dynamic one, the functions of a
 * table of methods with hand-written IL bodies, and records what the engine gives back
 * (SetILFunctionBody through its allocator, SetILInstrumentedCodeMap, RequestReJIT(WithInliners)).
 * Native code of function f starts at PF_CODE_START(f) (0x100 later for each ReJIT) and has one
 * IL-to-native entry.
 * Its metadata object answers IMetaDataImport2 (method, type, member ref, method spec and
 * signature queries), IMetaDataAssemblyImport, IMetaDataEmit2 (GetTokenFromSig, recorded) and
 * IMetaDataAssemblyEmit. An ICorProfilerFunctionControl records what GetReJITParameters sets.
 * The runtime objects are in pipeline_fakes.c, the methods and metadata in pipeline_metadata.c;
 * what every fake runtime answers alike (strings, the assembly row) comes from fake_runtime.h.
 *
 * Like the real runtime, GetILFunctionBody answers the body last set by SetILFunctionBody.
 * Every object counts its references, so a test can prove the engine gave back all it took.
 * Thread-safe. */
#ifndef CLRIE_PM_TESTS_PIPELINE_FAKES_H
#define CLRIE_PM_TESTS_PIPELINE_FAKES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clrie/abi/corprof.h"
#include "clrie/abi/metadata.h"
#include "clrie/ilgraph.h"

#define PF_DOMAIN ((AppDomainID)0x3000)
#define PF_ASSEMBLY ((AssemblyID)0x2000)
#define PF_MODULE ((ModuleID)0x1000)
#define PF_DYNAMIC_MODULE ((ModuleID)0x1100)
#define PF_UNKNOWN_MODULE ((ModuleID)0x1200) /* the runtime knows it, the engine never saw it */

/* Types: Fake.Program, and Inner nested in it. */
#define PF_TYPE_PROGRAM 0x02000002u
#define PF_TYPE_INNER 0x02000003u
/* int32 Fake.Helper() as a member reference, and a method spec over it. */
#define PF_MEMBER_REF 0x0A000001u
#define PF_METHOD_SPEC 0x2B000001u
/* The local signature of Multi: one int32. */
#define PF_MULTI_LOCALS 0x11000001u
/* GetTokenFromSig hands out tokens from here on. */
#define PF_FIRST_NEW_SIG 0x11000010u

/* Functions of the fake runtime, and their tokens. */
enum {
    PF_FN_TINY = 0x100, /* static int32 Fake.Program.Tiny(): ldc.i4.1; ret (tiny header) */
    PF_FN_MULTI,        /* static int32 Fake.Program+Inner.Multi(int32): fat, try/finally, 2 rets */
    PF_FN_ABSTRACT,     /* Fake.Program.Abstract: no IL */
    PF_FN_DYNAMIC,      /* a method of the dynamic module */
    PF_FN_UNKNOWN,      /* a method of a module the engine was never told about */
    PF_FN_SMALL,        /* static int32 Fake.Program.Small(): ldc.i4.2; ret */
    PF_FN_DEEP,         /* static int32 Fake.Program.Deep(): ldc.i4.1; ret */
    PF_FN_WORKER = 0x200 /* PF_FN_WORKER + i: static int32 Fake.Program.Worker<i>() */
};
#define PF_WORKERS 16
#define PF_CODE_START(function) (0x7000 + (function))

#define PF_TOKEN_TINY 0x06000001u
#define PF_TOKEN_MULTI 0x06000002u
#define PF_TOKEN_ABSTRACT 0x06000003u
#define PF_TOKEN_SMALL 0x06000004u
#define PF_TOKEN_DEEP 0x06000005u
#define PF_TOKEN_WORKER 0x06000010u

/* Multi's original body, for tests that check what the engine starts from. */
extern const uint8_t pf_multi_body[];
extern const size_t pf_multi_body_size;

/* Forgets everything recorded, frees what the engine allocated, restores the original bodies. */
void pf_reset(void);
/* The runtime's profiler info; starts with one reference (the runtime's own). */
IUnknown *pf_info(void);
int pf_info_refs(void);
/* EnumModules lists PF_MODULE; hook (NULL: none) runs when the first Next is called, before
 * any ID is handed out: a module finishing its load while the profiler walks the list. */
void pf_set_enum_modules_hook(void (*hook)(void *ctx), void *ctx);
int pf_metadata_live(void);
int pf_allocators_live(void);
DWORD pf_event_mask(void);

/* What SetILFunctionBody received (through the runtime's allocator), latest per method. */
struct pf_body {
    ModuleID module;
    mdMethodDef token;
    uint8_t *bytes; /* a copy */
    size_t len;
};
size_t pf_set_body_count(void);
/* The latest body set for token; false when none was. */
bool pf_set_body(mdMethodDef token, struct pf_body *out);
/* Makes SetILFunctionBody fail (as for a method already jitted) until pf_reset. */
void pf_refuse_bodies(void);
/* A body SetILFunctionBody was given that did not come from the allocator (must stay 0). */
int pf_foreign_bodies(void);

/* What SetILInstrumentedCodeMap received, latest per function. */
size_t pf_map_count(void);
bool pf_map(FunctionID function, COR_IL_MAP *map, size_t cap, size_t *count);

/* GetTokenFromSig calls, and the signature of the last one. */
int pf_token_from_sig_calls(void);
size_t pf_last_token_sig(uint8_t *buf, size_t cap);

/* RequestReJIT / RequestReJITWithInliners: the methods of the last request. */
int pf_rejit_requests(void);
size_t pf_last_rejit(ModuleID *modules, mdMethodDef *tokens, size_t cap, bool *with_inliners);

/* An ICorProfilerFunctionControl recording what it is given. */
struct pf_control {
    ICorProfilerFunctionControl iface;
    int refs;
    DWORD codegen_flags;
    uint8_t *body;
    size_t body_len;
    COR_IL_MAP *map;
    size_t map_count;
};
void pf_control_init(struct pf_control *c);
void pf_control_finish(struct pf_control *c);

/* Stack effects from the fake metadata, for verifying the bodies the runtime received; ctx is
 * the method token (a uintptr_t) whose return type a ret pops. */
int pf_stack_effect(void *ctx, uint16_t opcode, uint32_t token, struct clrie_il_stack_effect *out);

/* ---- between pipeline_fakes.c (the runtime) and pipeline_metadata.c (methods, metadata) ---- */

/* Restores every method's original body and forgets the metadata records. */
void pf_methods_reset(void);
/* What GetILFunctionBody answers for a method of PF_MODULE now. */
HRESULT pf_method_body(mdMethodDef token, const uint8_t **body, ULONG *size);
/* SetILFunctionBody's effect on what GetILFunctionBody answers; false for an unknown method. */
bool pf_method_replace_body(mdMethodDef token, const uint8_t *body, ULONG size);
/* A new metadata object of the module, as riid; its references are counted in
 * pf_metadata_live. */
HRESULT pf_metadata_new(ModuleID module, REFIID riid, IUnknown **out);

#endif
