/* Composing the raw hook's IL map with the plugins' (hook_turn.c): the hook's maps original
 * offsets to its body, the plugins' its body to the final one; the result maps original
 * offsets to the final body, with an entry for each entry of either that reaches it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "hook_turn.h"

static void expect_map(const COR_IL_MAP *map, size_t count, const ULONG32 (*pairs)[2],
                       size_t pair_count)
{
    assert_int_equal(count, pair_count);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(map[i].oldOffset, pairs[i][0]);
        assert_int_equal(map[i].newOffset, pairs[i][1]);
    }
}

static void a_sparse_first_map_takes_the_second_maps_entries_back(void **state)
{
    (void)state;
    /* The hook put 9 bytes in front of everything; the plugins inserted 3 bytes before their
     * offset 10 (the original 1). */
    const COR_IL_MAP hook[] = {{0, 9, TRUE}};
    const COR_IL_MAP plugins[] = {{0, 0, TRUE}, {9, 9, TRUE}, {10, 13, TRUE}, {11, 14, TRUE}};
    COR_IL_MAP *out = NULL;
    size_t count = 0;
    assert_true(clrie_pm__il_map_compose(hook, 1, plugins, 4, &out, &count));
    /* The plugins' 0 lies in the hook's own code, before any original offset: dropped. */
    const ULONG32 want[][2] = {{0, 9}, {1, 13}, {2, 14}};
    expect_map(out, count, want, 3);
    free(out);
}

static void entries_of_both_sides_are_kept_in_original_order(void **state)
{
    (void)state;
    const COR_IL_MAP first[] = {{0, 0, TRUE}, {1, 4, TRUE}, {2, 5, TRUE}};
    const COR_IL_MAP second[] = {{0, 9, TRUE}};
    COR_IL_MAP *out = NULL;
    size_t count = 0;
    assert_true(clrie_pm__il_map_compose(first, 3, second, 1, &out, &count));
    const ULONG32 want[][2] = {{0, 9}, {1, 13}, {2, 14}};
    expect_map(out, count, want, 3);
    free(out);
}

static void rejit_marks_of_the_first_map_are_dropped_and_of_the_second_kept(void **state)
{
    (void)state;
    const COR_IL_MAP first[] = {{0, 0, TRUE}, {3, 4, TRUE}, {0xFEEFEE, 1, TRUE}};
    const COR_IL_MAP second[] = {{0, 0, TRUE}, {4, 20, TRUE}, {0xFEEFEE, 2, TRUE}};
    COR_IL_MAP *out = NULL;
    size_t count = 0;
    assert_true(clrie_pm__il_map_compose(first, 3, second, 3, &out, &count));
    const ULONG32 want[][2] = {{0, 0}, {3, 20}, {0xFEEFEE, 2}};
    expect_map(out, count, want, 3);
    free(out);
}

static void an_empty_second_map_keeps_offsets(void **state)
{
    (void)state;
    const COR_IL_MAP first[] = {{0, 2, TRUE}, {1, 6, TRUE}};
    COR_IL_MAP *out = NULL;
    size_t count = 0;
    assert_true(clrie_pm__il_map_compose(first, 2, NULL, 0, &out, &count));
    const ULONG32 want[][2] = {{0, 2}, {1, 6}};
    expect_map(out, count, want, 2);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_sparse_first_map_takes_the_second_maps_entries_back),
        cmocka_unit_test(entries_of_both_sides_are_kept_in_original_order),
        cmocka_unit_test(rejit_marks_of_the_first_map_are_dropped_and_of_the_second_kept),
        cmocka_unit_test(an_empty_second_map_keeps_offsets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
