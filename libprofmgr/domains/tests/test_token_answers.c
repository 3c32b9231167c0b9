/* The answers the verifier keeps per module (token_answers.h): each (question, token) keeps its
 * own answer, negative answers included, through the table's growth and from several threads. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "token_answers.h"

#define TYPE_REF(row) (0x01000000u | (row))
#define FIELD(row) (0x04000000u | (row))

static void an_answer_is_kept_per_question_and_token(void **state)
{
    struct clrie_pm_token_answers a;
    clrie_pm_token_answers_init(&a);
    int answer = 0;
    assert_false(clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(1), &answer));

    clrie_pm_token_answers_put(&a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(1), 0x08);
    clrie_pm_token_answers_put(&a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(2), -ENOENT);
    clrie_pm_token_answers_put(&a, CLRIE_PM_ASK_FIELD_STATIC, FIELD(1), 1);
    assert_true(clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(1), &answer));
    assert_int_equal(answer, 0x08);
    assert_true(clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(2), &answer));
    assert_int_equal(answer, -ENOENT);
    assert_true(clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_FIELD_STATIC, FIELD(1), &answer));
    assert_int_equal(answer, 1);
    /* the same token under the other question has no answer yet */
    assert_false(clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_FIELD_STATIC, TYPE_REF(1), &answer));
    assert_false(clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_VALUE_TYPE, FIELD(1), &answer));

    /* a second answer replaces the first */
    clrie_pm_token_answers_put(&a, CLRIE_PM_ASK_FIELD_STATIC, FIELD(1), 0);
    assert_true(clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_FIELD_STATIC, FIELD(1), &answer));
    assert_int_equal(answer, 0);
    assert_int_equal(a.count, 3);
    clrie_pm_token_answers_finish(&a);
}

static void every_answer_survives_the_table_growing(void **state)
{
    struct clrie_pm_token_answers a;
    clrie_pm_token_answers_init(&a);
    for (uint32_t row = 1; row <= 5000; row++) {
        clrie_pm_token_answers_put(&a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(row), (int)(row % 7));
        clrie_pm_token_answers_put(&a, CLRIE_PM_ASK_FIELD_STATIC, FIELD(row), (int)(row & 1));
    }
    assert_int_equal(a.count, 10000);
    for (uint32_t row = 1; row <= 5000; row++) {
        int answer = -1;
        assert_true(
            clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(row), &answer));
        assert_int_equal(answer, (int)(row % 7));
        assert_true(clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_FIELD_STATIC, FIELD(row), &answer));
        assert_int_equal(answer, (int)(row & 1));
    }
    int answer;
    assert_false(clrie_pm_token_answers_get(&a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(5001), &answer));
    clrie_pm_token_answers_finish(&a);
}

static void without_a_table_nothing_is_kept(void **state)
{
    int answer = 7;
    clrie_pm_token_answers_put(NULL, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(1), 0x08);
    assert_false(clrie_pm_token_answers_get(NULL, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(1), &answer));
    assert_int_equal(answer, 7);
    clrie_pm_token_answers_finish(NULL);
}

/* Threads storing and reading at once (as methods jitted in parallel do) see only answers that
 * were stored, each under its own key. */
struct worker {
    struct clrie_pm_token_answers *a;
    uint32_t first;
    int wrong;
};

static void ask_and_keep(void *arg)
{
    struct worker *w = arg;
    for (uint32_t row = w->first; row < w->first + 2000; row++) {
        clrie_pm_token_answers_put(w->a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(row), (int)row);
        int answer = 0;
        if (!clrie_pm_token_answers_get(w->a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(row), &answer) ||
            answer != (int)row)
            w->wrong++;
        /* another thread's rows: absent, or what that thread stored */
        uint32_t other = row + 2000 < 8001 ? row + 2000 : row - 6000;
        if (clrie_pm_token_answers_get(w->a, CLRIE_PM_ASK_VALUE_TYPE, TYPE_REF(other), &answer) &&
            answer != (int)other)
            w->wrong++;
    }
}

static void threads_see_only_what_was_stored(void **state)
{
    struct clrie_pm_token_answers a;
    clrie_pm_token_answers_init(&a);
    struct worker workers[4];
    struct clrie_os_thread threads[4];
    for (int i = 0; i < 4; i++) {
        workers[i] = (struct worker){&a, 1 + 2000u * (uint32_t)i, 0};
        assert_int_equal(clrie_os_thread_start(&threads[i], ask_and_keep, &workers[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        clrie_os_thread_join(&threads[i]);
        assert_int_equal(workers[i].wrong, 0);
    }
    assert_int_equal(a.count, 8000);
    clrie_pm_token_answers_finish(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_answer_is_kept_per_question_and_token),
        cmocka_unit_test(every_answer_survives_the_table_growing),
        cmocka_unit_test(without_a_table_nothing_is_kept),
        cmocka_unit_test(threads_see_only_what_was_stored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
