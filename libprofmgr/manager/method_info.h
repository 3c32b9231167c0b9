/* IMethodInfo and IMethodInfo2: one method as plugins see it.
 *
 * Two kinds. A method being instrumented (JIT or ReJIT) has IL: GetInstructions and the
 * other IL accessors decode its original body on first use into an il_body (il_body.h) and
 * its locals into a types_locals collection (types.h), which the pipeline encodes at the end.
 * An info-only method (GetMethodInfoById/ByToken, inlining and exception events) answers
 * every metadata question but has no IL to edit: its IL accessors fail with E_UNEXPECTED and
 * a logged message.
 *
 * A method info is reference counted (atomic); the IL objects it owns count their own and hold
 * one reference on it while a plugin holds any of theirs (com.h). Its metadata answers are read once, at creation, and never change. */
#ifndef CLRIE_PM_METHOD_INFO_H
#define CLRIE_PM_METHOD_INFO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <uchar.h>

#include "clrie/abi/corprof.h"
#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"
#include "com.h"
#include "domains.h"
#include "il_body.h"
#include "types.h"

struct manager;

struct method_info {
    IMethodInfo2 iface; /* first: the object's IUnknown */
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct manager *owner; /* outlives every method info */

    IModuleInfo *module; /* strong */
    ModuleID module_id;
    FunctionID function_id; /* 0 for a ReJIT */
    ClassID class_id;       /* 0 for a ReJIT or when the runtime did not say */
    mdMethodDef token;
    bool has_il;
    bool is_rejit;
    DWORD rejit_count;
    DWORD codegen_flags; /* IMethodInfo::SetRejitCodeGenFlags */

    /* From the metadata, at creation. sig points into the module's metadata. */
    IMetaDataImport2 *import; /* the module's, borrowed (the method info holds the module) */
    IMetaDataEmit *emit;      /* the module's, borrowed; NULL when the runtime refused one */
    mdTypeDef declaring_type;
    DWORD attributes;
    DWORD impl_flags;
    ULONG rva;
    PCCOR_SIGNATURE sig;
    ULONG sig_len;
    char16_t *name; /* malloc'd, 0-terminated */
    size_t name_len;
    char *full_name_utf8; /* "Namespace.Type+Nested.Method", made on first use */

    /* The IL, for methods that have it: made on first use by clrie_pm__method_info_il. */
    LPCBYTE original_body;
    ULONG original_size;
    bool il_ready;
    HRESULT il_error; /* why the IL could not be prepared, once tried */
    struct il_body *body;
    ITypeCreator *types;
    struct types_locals *locals;
    struct types_locals *original_locals;
    mdSignature local_sig_token; /* the header's; IMethodInfo::SetLocalVarSigToken changes it */
    bool local_sig_token_set;    /* a plugin called SetLocalVarSigToken */
    bool baseline_allowed;       /* inside BeforeInstrumentMethod: CreateBaseline is legal */
    unsigned long sig_token_sets; /* SetLocalVarSigToken calls, for clrie_pm__method_info_edits */
    atomic_bool closed;           /* clrie_pm__method_info_close was called */
};

/* A method being jitted: the runtime's function ID gives its module and token. S_FALSE with
 * *out NULL when the engine does not instrument it (unknown or dynamic module, no IL). */
HRESULT clrie_pm__method_info_for_jit(struct manager *m, FunctionID function,
                                      struct method_info **out);
/* A method being rejitted (GetReJITParameters): the IL is the cached original. */
HRESULT clrie_pm__method_info_for_rejit(struct manager *m, ModuleID module, mdMethodDef token,
                                        struct method_info **out);
/* Info-only methods. */
HRESULT clrie_pm__method_info_by_function(struct manager *m, FunctionID function,
                                          struct method_info **out);
HRESULT clrie_pm__method_info_by_token(struct manager *m, IModuleInfo *module, mdMethodDef token,
                                       struct method_info **out);

void clrie_pm__method_info_release(struct method_info *mi);
static inline IMethodInfo *method_info_iface(struct method_info *mi)
{
    return (IMethodInfo *)(void *)&mi->iface;
}

/* Prepares the IL objects (decode, locals, type factory) if not done yet. */
HRESULT clrie_pm__method_info_il(struct method_info *mi);
/* How many edits plugins made so far (instructions, locals, the local signature token): the
 * pipeline compares it around each plugin's call to know who changed the method. */
unsigned long clrie_pm__method_info_edits(struct method_info *mi);
/* Ends the plugins' time with the method's IL: from now on every call that would edit it
 * (through the IL objects, the locals, SetLocalVarSigToken) answers E_UNEXPECTED with an error
 * line naming the method and the call. */
void clrie_pm__method_info_close(struct method_info *mi);
/* Allows or forbids IInstructionGraph::CreateBaseline (only during BeforeInstrumentMethod). */
void clrie_pm__method_info_allow_baseline(struct method_info *mi, bool allow);
/* "Namespace.Type.Method" in UTF-8, for log lines; never NULL. */
const char *clrie_pm__method_info_full_name(struct method_info *mi);
/* The stack-effect resolver for call instructions of this method's module (ilgraph.h). */
int clrie_pm__method_info_stack_effect(void *ctx, uint16_t opcode, uint32_t token,
                                       struct clrie_il_stack_effect *out);

/* The factory the domains hand GetMethodInfoById/ByToken to (domains.h). */
void clrie_pm__method_info_install_factory(struct manager *m);

#endif
