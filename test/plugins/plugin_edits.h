/* An edit several test plugins make, compiled into each of them (test/plugins/meson.build). */
#ifndef CLRIE_TEST_PLUGIN_EDITS_H
#define CLRIE_TEST_PLUGIN_EDITS_H

#include <clrie/plugin.h>

/* Puts `ldc.i4 value; add` before every ret of the method (the shortest ldc form; branches to
 * the ret now go to the ldc), so the method returns value more. */
HRESULT test_plugin_add_before_rets(IMethodInfo *mi, int32_t value);

#endif
