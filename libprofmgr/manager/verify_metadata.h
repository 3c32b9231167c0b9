/* The verifier's questions about a module (libilgraph's struct clrie_il_metadata), answered
 * from the runtime's metadata: row counts through IMetaDataTables where the runtime has it
 * (IMetaDataImport::IsValidToken otherwise), member signatures through IMetaDataImport.
 * Shared with the differential test's plugin (test/plugins/il_mutator.c), which builds the
 * same context the engine does. */
#ifndef CLRIE_PM_VERIFY_METADATA_H
#define CLRIE_PM_VERIFY_METADATA_H

#include "clrie/abi/metadata.h"
#include "clrie/ilgraph.h"
#include "token_answers.h"
#include "user_strings.h"

#define clrie_pm_verify_metadata_init clrie_pm__verify_metadata_init
#define clrie_pm_verify_metadata_finish clrie_pm__verify_metadata_finish

struct verify_metadata {
    IMetaDataImport2 *import;                   /* borrowed */
    IMetaDataTables *tables;                    /* strong, or NULL */
    struct clrie_pm_user_strings *user_strings; /* the module's, or user_strings_of_vm */
    bool own_user_strings;
    struct clrie_pm_user_strings user_strings_of_vm;
    struct clrie_pm_token_answers *answers; /* the module's, borrowed; or NULL */
    struct clrie_il_metadata callbacks; /* ctx is this struct */
};

/* Prepares vm for import, which must outlive it; release with clrie_pm_verify_metadata_finish.
 * user_strings: the module's #US index (clrie_pm_module_user_strings), borrowed, so that every
 * method of the module shares one walk of the heap; NULL: vm walks it on its own, once.
 * answers: the module's (clrie_pm_module_verify_answers), borrowed, so that what one method's
 * check learnt of a value type or a field serves the others; NULL: nothing is kept. */
void clrie_pm_verify_metadata_init(struct verify_metadata *vm, IMetaDataImport2 *import,
                                   struct clrie_pm_user_strings *user_strings,
                                   struct clrie_pm_token_answers *answers);
void clrie_pm_verify_metadata_finish(struct verify_metadata *vm);

#endif
