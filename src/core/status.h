/* Status codes and their relay.
 *
 * Every fallible library function returns kbv_status. A failure is recorded
 * once where it happens (kbv_fail: code, file:line and a message) and every
 * caller that relays it adds its own file:line (KBV_TRY), so the final error
 * reads like a stack: "src/eval/run.c:120: ... <- src/cli/eval.c:88". The
 * message is also kept alone (kbv_last_message): a user who gave a bad path
 * is told that, not where in kbv it was found (kbv_error_text). The trace is
 * thread-local; the library never aborts or exits. */
#ifndef KBV_STATUS_H
#define KBV_STATUS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum kbv_status {
    KBV_OK = 0,
    KBV_ERR_INVALID,     /* bad argument or malformed input */
    KBV_ERR_NOT_FOUND,   /* unknown problem, file, symbol */
    KBV_ERR_NOMEM,       /* host or device memory exhausted */
    KBV_ERR_IO,          /* read/write/fsync failed (incl. disk full) */
    KBV_ERR_CUDA,        /* CUDA runtime or library error */
    KBV_ERR_UNSUPPORTED, /* valid but not implemented on this backend */
    KBV_ERR_COMPILE,     /* a candidate failed to compile */
    KBV_ERR_CHILD,       /* the candidate process failed (crash, protocol) */
    KBV_ERR_TIMEOUT,     /* a deadline passed */
    KBV_ERR_PARSE,       /* malformed JSON, numbers, options */
    KBV_ERR_INTERNAL,    /* a state that cannot happen: a bug in kbv */
    KBV_STATUS_COUNT
} kbv_status;

const char *kbv_status_name(kbv_status st);

/* Records a new failure (resetting the trace) and returns st. */
kbv_status kbv_fail_at(const char *file, int line, kbv_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define kbv_fail(st, ...) kbv_fail_at(__FILE__, __LINE__, (st), __VA_ARGS__)

/* Appends a relay frame to the current trace and returns st. */
kbv_status kbv_relay_at(const char *file, int line, kbv_status st);

/* The current trace ("" when none), and reset. */
const char *kbv_last_error(void);
void kbv_clear_error(void);

/* The current failure's code (KBV_OK when none) and its message alone, as
 * kbv_fail was given it: no file:line, no status name, no relay frames ("" when
 * none, or when a relay found no failure recorded). */
kbv_status kbv_last_status(void);
const char *kbv_last_message(void);

/* Whether a failure with this code is kbv's own rather than something its
 * user can fix: KBV_ERR_NOMEM (the machine ran out), KBV_ERR_CUDA (the driver
 * or a CUDA library failed), KBV_ERR_CHILD (kbv's own candidate or worker
 * process could not start or broke the protocol; a candidate that crashes is
 * a verdict, not an error) and KBV_ERR_INTERNAL. Every other code is one the
 * user can act on: a bad option or value (INVALID, PARSE), a missing file or
 * unknown problem (NOT_FOUND), a path that cannot be read or written or a full
 * disk (IO), something this build or backend does not do (UNSUPPORTED), a
 * candidate that does not build (COMPILE), a deadline (TIMEOUT). */
bool kbv_status_is_internal(kbv_status st);

/* Debug mode (kbv --debug, KBV_DEBUG=1): kbv_error_text gives the whole
 * trace for every failure. Process-wide; set once at start. */
void kbv_set_debug(bool on);
bool kbv_debug(void);

/* What to tell the user about the current failure: its message alone when
 * the user can fix it, the whole trace when it is internal, has no message,
 * or debug mode is on. */
const char *kbv_error_text(void);

/* Relay: return the failure of `call` with this file:line appended. */
#define KBV_TRY(call)                                                        \
    do {                                                                     \
        kbv_status kbv_try_st_ = (call);                                     \
        if (kbv_try_st_ != KBV_OK)                                           \
            return kbv_relay_at(__FILE__, __LINE__, kbv_try_st_);            \
    } while (0)

/* Relay into a function's single cleanup path: sets `st` and jumps. */
#define KBV_TRY_GOTO(call, st, label)                                        \
    do {                                                                     \
        (st) = (call);                                                       \
        if ((st) != KBV_OK) {                                                \
            kbv_relay_at(__FILE__, __LINE__, (st));                          \
            goto label;                                                      \
        }                                                                    \
    } while (0)

/* Fail into the cleanup path with a fresh error. */
#define KBV_FAIL_GOTO(st, label, code, ...)                                  \
    do {                                                                     \
        (st) = kbv_fail((code), __VA_ARGS__);                                \
        goto label;                                                          \
    } while (0)

#endif
