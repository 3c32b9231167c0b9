/* The COM face of one method's IL, over a libilgraph graph: IInstructionGraph, IInstruction
 * with IOperandInstruction / IBranchInstruction / ISwitchInstruction, IEnumInstructions,
 * IInstructionFactory, IExceptionSection, IExceptionClause, IEnumExceptionClauses and
 * ISingleRetDefaultInstrumentation(2), each with IDataContainer.
 *
 * Every IL rule lives in libilgraph; these objects only translate between COM and its API.
 *
 * Ownership. A body belongs to one IMethodInfo (its `outer`): every object of the body counts
 * the references it handed out and holds one reference on the outer object while any is out,
 * so a plugin that holds an instruction keeps the whole method alive, a surplus Release is
 * logged and ignored (it never frees the method), and everything is freed together by
 * clrie_pm_il_body_free when the method info goes. The same node always answers with the same IInstruction pointer for the life of
 * the body (plugins compare instruction pointers).
 *
 * Threads: a body is used by one JIT callback at a time (the pipeline runs the plugins of one
 * method in sequence); it has no lock of its own. A plugin that keeps an object past that
 * callback may call it from any thread: once the pipeline closed the body
 * (clrie_pm_il_body_close), such a call reads or fails, and never edits. */
#ifndef CLRIE_PM_IL_BODY_H
#define CLRIE_PM_IL_BODY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/ilgraph.h"
#include "log.h"

struct il_body;

/* Access to the method's local-variable signature, which lives with the method info's
 * ILocalVariableCollection: single-ret adds its return-value local through these. */
struct il_body_locals {
    /* The current LOCAL_SIG blob (len 0: no locals); borrowed until the next set. */
    HRESULT (*get)(void *ctx, const uint8_t **sig, size_t *len);
    /* Replaces the LOCAL_SIG blob (copied). */
    HRESULT (*set)(void *ctx, const uint8_t *sig, size_t len);
    void *ctx;
};

struct il_body_params {
    IUnknown *outer;           /* receives AddRef/Release of every object; borrowed */
    IMethodInfo *method;       /* what IInstructionGraph/IExceptionSection::GetMethodInfo return */
    const uint8_t *method_sig; /* the method's signature (single-ret: the return type); copied */
    size_t method_sig_len;
    struct il_body_locals locals;
    clrie_il_stack_fn resolve; /* stack effect of calls, for max stack; may be NULL */
    void *resolve_ctx;
    struct clrie_pm_log *log; /* where decode failures and plugin misuse are reported */
};

/* Decodes a method body (header, code, EH sections as the runtime gives them). A malformed
 * body is logged with its offset and reason and returns E_FAIL; nothing is created. */
HRESULT clrie_pm_il_body_new(const struct il_body_params *params, const uint8_t *body, size_t len,
                             struct il_body **out);
/* Frees the body and every COM object of it (plugins' references must be gone). NULL is fine. */
void clrie_pm_il_body_free(struct il_body *body);

/* Borrowed interfaces, valid while the body lives (AddRef them to hand them out). */
IInstructionGraph *clrie_pm_il_body_graph(struct il_body *body);
IExceptionSection *clrie_pm_il_body_exceptions(struct il_body *body);
IInstructionFactory *clrie_pm_il_body_factory(struct il_body *body);
ISingleRetDefaultInstrumentation2 *clrie_pm_il_body_single_ret(struct il_body *body);

/* The graph underneath, for the pipeline's encode step and the dumps. CreateBaseline replaces
 * it (the graph before it stays alive as the "uninstrumented" view): ask again after the
 * plugins' BeforeInstrumentMethod. */
struct clrie_il_graph *clrie_pm_il_body_ilgraph(struct il_body *body);

/* CreateBaseline is allowed only while this is on: the pipeline turns it on around the
 * plugins' BeforeInstrumentMethod and off after (CLRIE's rule). Off when the body is made. */
void clrie_pm_il_body_allow_baseline(struct il_body *body, bool allow);

/* What CreateBaseline recorded. Borrowed, valid while the body lives. */
struct il_body_baseline {
    const COR_IL_MAP *original_to_baseline; /* the plugin's map, as given */
    size_t map_count;
    const DWORD *sequence_points; /* baseline offsets the plugin listed */
    size_t sequence_point_count;
};
/* Whether a plugin replaced the method's code with CreateBaseline; if so, fills *out (may be
 * NULL). As CLRIE does, the method's IL map then starts as the identity over the sequence
 * points (baseline offsets) and the map of the final encode is composed onto it (with no
 * sequence points, the map is the final encode's, as in CLRIE 18.11);
 * original_to_baseline serves GetInstructionAtUninstrumentedOffset. */
bool clrie_pm_il_body_baseline(const struct il_body *body, struct il_body_baseline *out);

/* A snapshot enumerator over the current list (original false) or the original list as
 * decoded (original true), AddRef'd for the caller; for dumps and hosts. */
HRESULT clrie_pm_il_body_enum_instructions(struct il_body *body, bool original,
                                           IEnumInstructions **out);
/* Whether any edit reached the graph since it was decoded (an untouched method is not
 * rewritten). */
bool clrie_pm_il_body_changed(const struct il_body *body);
/* How many edits reached the graph so far: the pipeline compares it around each plugin's call to
 * know which plugins changed the method. */
unsigned long clrie_pm_il_body_edits(const struct il_body *body);
/* Ends the plugins' time with the method: from now on every call that edits it, or makes code
 * for it, through any of the body's objects answers E_UNEXPECTED with an error line naming
 * the method (its source must outlive the body) and the call. Reading stays allowed. */
void clrie_pm_il_body_close(struct il_body *body, struct clrie_pm_log_name method_name);

#endif
