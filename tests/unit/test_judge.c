/* kbv judge's pieces: the answer's label (the last JSON object with one of
 * the paper's labels), the prompt, and the judgement records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gen/judge.h"
#include "record/judge_record.h"

static void test_parse_answers(void **state)
{
    (void)state;
    kbv_judge_answer r;
    memset(&r, 0, sizeof r);
    /* prose, a draft object, then the fenced answer: the last one counts */
    assert_int_equal(kbv_judge_parse("First {\"label\": \"UNCERTAIN\"}; then\n```json\n"
                                     "{\"label\": \"SPEED_HACK\", \"pattern\": \"p\", "
                                     "\"explanation\": \"uses {a, b} only\"}\n```", &r),
                     KBV_OK);
    assert_string_equal(r.label, "SPEED_HACK");
    assert_string_equal(r.pattern, "p");
    assert_string_equal(r.explanation, "uses {a, b} only");
    kbv_judge_label l;
    assert_int_equal(kbv_judge_label_parse(r.label, &l), KBV_OK);
    assert_true(kbv_judge_label_flags(l));
    assert_int_equal(kbv_judge_parse("{\"label\": \"LEGITIMATE\"}", &r), KBV_OK);
    assert_string_equal(r.label, "LEGITIMATE");
    assert_int_equal(kbv_judge_parse("{\"label\": \"UNCERTAIN\"}", &r), KBV_OK);
    assert_int_equal(kbv_judge_label_parse(r.label, &l), KBV_OK);
    assert_false(kbv_judge_label_flags(l));
    /* the prompt's five labels are the record's first five */
    for (int i = 0; i < KBV_JUDGE_LABELS; i++)
        assert_string_equal(kbv_judge_labels[i], kbv_judge_label_name((kbv_judge_label)i));
    /* a label the prompt does not allow, no object, nothing */
    assert_int_equal(kbv_judge_parse("{\"label\": \"PROBABLY_FINE\"}", &r), KBV_ERR_PARSE);
    kbv_clear_error();
    assert_int_equal(kbv_judge_parse("{\"label\": \"NO_ANSWER\"}", &r), KBV_ERR_PARSE);
    kbv_clear_error();
    assert_int_equal(kbv_judge_parse("It looks fine to me.", &r), KBV_ERR_PARSE);
    kbv_clear_error();
    assert_int_equal(kbv_judge_parse(NULL, &r), KBV_ERR_PARSE);
    kbv_clear_error();
}

static void test_prompt(void **state)
{
    (void)state;
    char *p = NULL;
    assert_int_equal(kbv_judge_prompt("L1/19", "class Model: ...\n", "int kbv_forward();", 2.5,
                                      1.0, &p),
                     KBV_OK);
    assert_non_null(strstr(p, "Problem L1/19."));
    assert_non_null(strstr(p, "class Model: ..."));
    assert_non_null(strstr(p, "int kbv_forward();"));
    assert_non_null(strstr(p, "speedup over the PyTorch baseline: 2.5x"));
    free(p);
    /* the paper's system prompt, its five labels and the answer it asks for */
    assert_non_null(strstr(kbv_judge_system_prompt, "SPEED_AND_MEMORY_HACK"));
    assert_non_null(strstr(kbv_judge_system_prompt,
                           "{\"label\": \"...\", \"pattern\": \"...\", \"explanation\": \"...\", "
                           "\"fix\": \"...\"}"));
}

static void test_records_round_trip(void **state)
{
    (void)state;
    kbv_judge_record r, back;
    memset(&r, 0, sizeof r);
    snprintf(r.judge, sizeof r.judge, "judge-x");
    snprintf(r.model, sizeof r.model, "m");
    snprintf(r.problem, sizeof r.problem, "L1/19");
    r.sample = 3;
    snprintf(r.source_sha256, sizeof r.source_sha256, "%064d", 7);
    r.label = KBV_JUDGE_MEMORY_HACK;
    snprintf(r.explanation, sizeof r.explanation, "a \"quoted\" reason");
    char *line;
    assert_int_equal(kbv_judge_record_to_json(&r, &line), KBV_OK);
    assert_int_equal(kbv_judge_record_from_json(line, &back), KBV_OK);
    assert_memory_equal(&r, &back, sizeof r);
    free(line);
    assert_int_equal(kbv_judge_record_from_json("{\"kind\": \"judge\"}", &back), KBV_ERR_PARSE);
    kbv_clear_error();
    assert_int_equal(kbv_judge_record_from_json(
                         "{\"schema\": 9, \"kind\": \"judge\", \"model\": \"m\", \"problem\": "
                         "\"L1/1\", \"sample\": 0, \"label\": \"LEGITIMATE\"}", &back),
                     KBV_ERR_UNSUPPORTED);
    kbv_clear_error();
    kbv_judge_list l;
    assert_int_equal(kbv_judge_list_load("/nonexistent/judge.jsonl", &l), KBV_OK);
    assert_int_equal(l.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_answers),
        cmocka_unit_test(test_prompt),
        cmocka_unit_test(test_records_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
