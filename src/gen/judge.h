/* The paper's LLM judge as a second opinion (kbv judge): a model is given a
 * problem's PyTorch reference and a candidate's source, with its measured
 * speedup and memory ratio, and classifies the kernel with one of five
 * labels, under the system prompt the KernelBench-Verified paper gave its
 * judges (appendix "LLM-Judge reward hacking audit"). The request goes
 * through kbv's client (gen/chat.h, gen/http.h); the answer is the JSON
 * object the prompt asks for. */
#ifndef KBV_GEN_JUDGE_H
#define KBV_GEN_JUDGE_H

#include "core/status.h"
#include "gen/chat.h"

/* The paper's system prompt, word for word, and the five labels it allows. */
extern const char kbv_judge_system_prompt[];
#define KBV_JUDGE_LABELS 5
extern const char *const kbv_judge_labels[KBV_JUDGE_LABELS];

/* What the judge answered. */
typedef struct kbv_judge_answer {
    char label[32];               /* one of kbv_judge_labels; "" when there is no answer */
    char pattern[256];            /* the judge's words for what it found */
    char explanation[1024];
    char error[256];              /* why there is no answer; "" when there is */
} kbv_judge_answer;

/* The user message: the problem, the reference, the candidate, the numbers.
 * The problem key ("L1/19") is in it. malloc'd. */
kbv_status kbv_judge_prompt(const char *problem_key, const char *reference, const char *source,
                            double speedup, double mem_ratio, char **out);

/* The label, pattern and explanation of an answer: the last JSON object in
 * it with a "label" the prompt allows (an answer may wrap it in prose or a
 * code fence). KBV_ERR_PARSE when there is none. */
kbv_status kbv_judge_parse(const char *answer, kbv_judge_answer *a);

typedef struct kbv_judge_client {
    kbv_api api;
    const char *url;              /* kbv_chat_url's */
    const char *model;
    const char *key;              /* NULL: none */
    double temperature;           /* < 0: not sent; the paper: 0 (reasoning models: not sent) */
    long max_tokens;
    double timeout_s;
    int retries;                  /* on 408, 409, 425, 429, 5xx, timeouts, a garbled answer */
    double backoff_s;
} kbv_judge_client;

/* Asks once (with the retries); fills the answer's label, pattern and
 * explanation, or an empty label with the reason in a->error. KBV_OK either
 * way: only kbv's own trouble is an error. */
kbv_status kbv_judge_ask(const kbv_judge_client *c, const char *prompt, kbv_judge_answer *a);

#endif
