/* stress: what the plugin object (stress.c) and the IL rewrite (rewrite.c) share. */
#ifndef CLRIE_EXAMPLE_STRESS_H
#define CLRIE_EXAMPLE_STRESS_H

#include <stdbool.h>

#include <clrie/abi/instrumentation.h>

/* Rewrites one method: single return, `ldc.i4 id; stloc <new int32 local>` at entry,
 * `ldloc <local>; pop` before the single exit, and with nops a `nop` before every original
 * instruction. On failure *step names the step that failed (a static string). */
HRESULT stress_rewrite(IMethodInfo *method, int id, bool nops, const char **step);

#endif
