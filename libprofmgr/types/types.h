/* Signature-level objects: ISignatureBuilder; ITypeCreator with ISignatureParser (one per
 * module, IModuleInfo::CreateTypeFactory); IType with ITokenType / ICompositeType /
 * IGenericParameterType and IEnumTypes; IMethodParameter, IMethodLocal and their enumerators;
 * ILocalVariableCollection(2), the method's locals that plugins add to and the engine commits.
 *
 * Blob grammar (compressed integers, coded tokens, type lengths) comes from libilgraph's
 * clrie_il_sig_* functions; nothing here re-implements it.
 *
 * Every object is reference counted (atomic) and carries an IDataContainer. Types are
 * immutable once made and may be shared between threads; a locals collection belongs to one
 * method info and is used by one JIT callback at a time. */
#ifndef CLRIE_PM_TYPES_H
#define CLRIE_PM_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"
#include "log.h"

/* An empty signature builder (IProfilerManager::CreateSignatureBuilder). */
HRESULT clrie_pm_types_signature_builder_new(ISignatureBuilder **out);

/* The type factory of a module: module is borrowed for the call and AddRef'd by the factory
 * (ITokenType::GetOwningModule answers with it); import reads names for IType::GetName. */
HRESULT clrie_pm_types_creator_new(IModuleInfo *module, IMetaDataImport *import,
                                   ITypeCreator **out);

/* For IMethodInfo: the parameters and return type described by a method signature, and the
 * declaring type of a method (a TypeDef token). */
HRESULT clrie_pm_types_method_parameters(ITypeCreator *creator, const uint8_t *method_sig,
                                         size_t len, IEnumMethodParameters **out);
HRESULT clrie_pm_types_return_type(ITypeCreator *creator, const uint8_t *method_sig, size_t len,
                                   IType **out);
HRESULT clrie_pm_types_declaring_type(ITypeCreator *creator, mdTypeDef type, IType **out);

/* A module's StandAloneSig tokens by signature (sig_tokens.c): the module's own rows, read through
 * import on first use, and every signature committed since. import and emit are borrowed (the
 * module's: they outlive the map); import may be NULL (then only committed signatures are
 * known). Safe from any thread. */
struct clrie_pm_types_sig_tokens;
HRESULT clrie_pm_types_sig_tokens_new(IMetaDataImport *import, IMetaDataEmit *emit,
                                      struct clrie_pm_types_sig_tokens **out);
void clrie_pm_types_sig_tokens_free(struct clrie_pm_types_sig_tokens *tokens);
/* The token of a StandAloneSig row whose blob is sig/len: a known one, or one the runtime makes
 * (IMetaDataEmit::GetTokenFromSig), asked only for a signature the map has not seen. */
HRESULT clrie_pm_types_sig_tokens_get(struct clrie_pm_types_sig_tokens *tokens, const uint8_t *sig,
                                      size_t len, mdSignature *token);

/* A method's locals. outer receives AddRef/Release of the collection (the method info owns
 * it); creator parses the signature into ITypes; emit commits a changed signature through
 * IMetaDataEmit::GetTokenFromSig (NULL: CommitSignature fails with E_NOTIMPL and the method
 * keeps its locals). sig/len is the method's LOCAL_SIG blob (len 0: none) and token its
 * StandAloneSig token (0: none); both copied. read_only: the original locals of
 * IMethodInfo2::GetOriginalLocalVariables, where every change is E_FAIL. */
struct types_locals;
HRESULT clrie_pm_types_locals_new(IUnknown *outer, ITypeCreator *creator, IMetaDataEmit *emit,
                                  const uint8_t *sig, size_t len, mdSignature token, bool read_only,
                                  struct types_locals **out);
void clrie_pm_types_locals_free(struct types_locals *locals);
/* Commits go through the module's token map (borrowed: it must outlive the collection) instead of
 * straight to emit, so a signature the module already has costs no runtime call. NULL: straight. */
void clrie_pm_types_locals_use_sig_tokens(struct types_locals *locals,
                                          struct clrie_pm_types_sig_tokens *tokens);
ILocalVariableCollection2 *
clrie_pm_types_locals_collection(struct types_locals *locals); /* borrowed */
/* The current blob (borrowed until the next change) and whether it differs from the original. */
void clrie_pm_types_locals_signature(struct types_locals *locals, const uint8_t **sig, size_t *len);
bool clrie_pm_types_locals_changed(const struct types_locals *locals);
HRESULT clrie_pm_types_locals_replace(struct types_locals *locals, const uint8_t *sig, size_t len);
/* Commits a changed signature (once; later calls return the same token) and returns the token
 * the method body must name; an unchanged signature returns the original token. */
HRESULT clrie_pm_types_locals_commit(struct types_locals *locals, mdSignature *token);
/* Whether the current signature was committed (by the plugin's CommitSignature or the
 * pipeline), and its token. */
bool clrie_pm_types_locals_committed_token(const struct types_locals *locals, mdSignature *token);
/* How many changes reached the signature (AddLocal, ReplaceSignature); 0 for NULL. */
unsigned long clrie_pm_types_locals_edits(const struct types_locals *locals);
/* The log of the method's runtime (borrowed: it must outlive the collection), for the lines
 * about the plugins' misuse of the collection: a surplus Release, a change after close. Set
 * before the collection is handed out; without it (NULL) a surplus Release goes to the process
 * log and a change after close is not logged. */
void clrie_pm_types_locals_use_log(struct types_locals *locals, struct clrie_pm_log *log);
/* Ends the plugins' time with the method: AddLocal, ReplaceSignature and CommitSignature then
 * answer E_UNEXPECTED with an error line on the collection's log naming the method (its source
 * must outlive the collection). NULL locals are fine. */
void clrie_pm_types_locals_close(struct types_locals *locals, struct clrie_pm_log_name method_name);

#endif
