/* Composing the plugins' IL map with the raw hook's (hook_turn.c): every original offset ends
 * where the hook's map takes the plugins' offset for it, CLRIE's ReJIT mark passes through,
 * and offsets between the hook's entries move with the nearest one below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "hook_turn.h"

static void composes_through_the_second_map(void **state)
{
    (void)state;
    /* The plugins: 0 -> 0, 1 -> 4 (three bytes inserted before the original offset 1),
     * 2 -> 5. The hook: its 9 bytes in front of everything. */
    const COR_IL_MAP plugins[] = {{0, 0, TRUE}, {1, 4, TRUE}, {2, 5, TRUE}};
    const COR_IL_MAP hook[] = {{0, 9, TRUE}};
    COR_IL_MAP *out = NULL;
    assert_true(clrie_pm__il_map_compose(plugins, 3, hook, 1, &out));
    assert_int_equal(out[0].oldOffset, 0);
    assert_int_equal(out[0].newOffset, 9);
    assert_int_equal(out[1].oldOffset, 1);
    assert_int_equal(out[1].newOffset, 13);
    assert_int_equal(out[2].oldOffset, 2);
    assert_int_equal(out[2].newOffset, 14);
    free(out);
}

static void exact_entries_win_and_the_rejit_mark_passes(void **state)
{
    (void)state;
    /* The hook moved the plugins' offset 4 to 20 and 6 to 30; its own ReJIT mark is no offset. */
    const COR_IL_MAP plugins[] = {{0, 0, TRUE}, {3, 4, TRUE}, {5, 7, TRUE}, {0xFEEFEE, 2, TRUE}};
    const COR_IL_MAP hook[] = {{0, 0, TRUE}, {4, 20, TRUE}, {6, 30, TRUE}, {0xFEEFEE, 1, TRUE}};
    COR_IL_MAP *out = NULL;
    assert_true(clrie_pm__il_map_compose(plugins, 4, hook, 4, &out));
    assert_int_equal(out[0].newOffset, 0);
    assert_int_equal(out[1].newOffset, 20);
    assert_int_equal(out[2].newOffset, 31); /* 7 is 1 past the hook's entry for 6 */
    assert_int_equal(out[3].oldOffset, 0xFEEFEE);
    assert_int_equal(out[3].newOffset, 2); /* the plugins' ReJIT count, not the hook's */
    free(out);
}

static void an_empty_second_map_keeps_offsets(void **state)
{
    (void)state;
    const COR_IL_MAP plugins[] = {{0, 2, TRUE}, {1, 6, TRUE}};
    COR_IL_MAP *out = NULL;
    assert_true(clrie_pm__il_map_compose(plugins, 2, NULL, 0, &out));
    assert_int_equal(out[0].newOffset, 2);
    assert_int_equal(out[1].newOffset, 6);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(composes_through_the_second_map),
        cmocka_unit_test(exact_entries_win_and_the_rejit_mark_passes),
        cmocka_unit_test(an_empty_second_map_keeps_offsets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
