/* The entry starts of a module's #US heap, found once and searched for every ldstr.
 *
 * The verifier asks, for each ldstr of each method it checks, whether the string token's offset
 * is where a #US entry starts (an offset inside a string is no string). IMetaDataTables can only
 * walk the heap entry by entry from a known start, so answering each question with a walk from
 * offset 0 cost O(heap) per ldstr and made instrumenting a module quadratic. Here the walk is made
 * once per module, on first need, into a sorted array that every later question searches.
 *
 * Threads. The array is published through an atomic pointer: questions about offsets it covers
 * search it without a lock. Strings defined after the walk (IMetaDataEmit::DefineUserString, by
 * a plugin) start at or past the offset where the walk ended; the first question about such an
 * offset takes the lock and walks on from there, only over the new entries. `lock` is taken only
 * here, and held while walking (metadata reads, which never call back into the engine). */
#ifndef CLRIE_PM_USER_STRINGS_H
#define CLRIE_PM_USER_STRINGS_H

#include <stdatomic.h>

#include "clrie/abi/metadata.h"
#include "clrie/os/thread.h"

struct clrie_pm__us_block;

struct clrie_pm_user_strings {
    _Atomic(struct clrie_pm__us_block *) current; /* NULL until the first question */
    struct clrie_os_mutex lock;         /* serializes building and extending; protects `retired` */
    struct clrie_pm__us_block *retired; /* outgrown arrays: a reader may still be searching one */
};

void clrie_pm_user_strings_init(struct clrie_pm_user_strings *us);
/* Frees every array; nobody may be asking any more. NULL is fine. */
void clrie_pm_user_strings_finish(struct clrie_pm_user_strings *us);

/* Whether offset is where an entry of the module's #US heap starts (tables: that module's).
 * 1 yes, 0 no; -ENOENT when the heap cannot be walked at all, -ENOMEM: the caller does not
 * know. Offsets past the current heap size are no string. Safe from any thread. */
int clrie_pm_user_strings_starts(struct clrie_pm_user_strings *us, IMetaDataTables *tables,
                                 ULONG offset);

#endif
