#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define KBV_TRACE_CAP 2048

static _Thread_local char trace[KBV_TRACE_CAP];
static _Thread_local char message[KBV_TRACE_CAP];
static _Thread_local kbv_status last_status;
static bool debug_mode;

static const char *const status_names[] = {
    [KBV_OK] = "ok",
    [KBV_ERR_INVALID] = "invalid input",
    [KBV_ERR_NOT_FOUND] = "not found",
    [KBV_ERR_NOMEM] = "out of memory",
    [KBV_ERR_IO] = "I/O error",
    [KBV_ERR_CUDA] = "CUDA error",
    [KBV_ERR_UNSUPPORTED] = "unsupported",
    [KBV_ERR_COMPILE] = "compile error",
    [KBV_ERR_CHILD] = "candidate process failed",
    [KBV_ERR_TIMEOUT] = "timeout",
    [KBV_ERR_PARSE] = "parse error",
    [KBV_ERR_INTERNAL] = "internal error",
};
_Static_assert(sizeof status_names / sizeof status_names[0] == KBV_STATUS_COUNT,
               "one name per status code");

const char *kbv_status_name(kbv_status st)
{
    if ((unsigned)st >= KBV_STATUS_COUNT)
        return "unknown status";
    return status_names[st];
}

static const char *short_path(const char *file)
{
    const char *src = strstr(file, "src/");
    if (!src)
        src = strstr(file, "problems/");
    return src ? src : file;
}

/* Starts a new trace: "file:line: status name: " then the message. */
static void record(const char *file, int line, kbv_status st)
{
    last_status = st;
    int n = snprintf(trace, sizeof trace, "%s:%d: %s: ", short_path(file), line,
                     kbv_status_name(st));
    if (n >= 0 && (size_t)n < sizeof trace)
        snprintf(trace + n, sizeof trace - (size_t)n, "%s", message);
}

kbv_status kbv_fail_at(const char *file, int line, kbv_status st, const char *fmt, ...)
{
    /* the arguments may point into message or trace (a failure re-failed
     * with its own text): format into a copy first */
    char text[KBV_TRACE_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(message, text, sizeof message);
    record(file, line, st);
    return st;
}

kbv_status kbv_relay_at(const char *file, int line, kbv_status st)
{
    size_t used = strlen(trace);
    if (used == 0) {
        message[0] = '\0';
        record(file, line, st);
        snprintf(trace + strlen(trace), sizeof trace - strlen(trace), "(no message)");
        return st;
    }
    if (used < sizeof trace - 1)
        snprintf(trace + used, sizeof trace - used, "\n  <- %s:%d", short_path(file), line);
    return st;
}

const char *kbv_last_error(void) { return trace; }

void kbv_clear_error(void)
{
    trace[0] = '\0';
    message[0] = '\0';
    last_status = KBV_OK;
}

kbv_status kbv_last_status(void) { return last_status; }

const char *kbv_last_message(void) { return message; }

bool kbv_status_is_internal(kbv_status st)
{
    switch (st) {
    case KBV_ERR_NOMEM:
    case KBV_ERR_CUDA:
    case KBV_ERR_CHILD:
    case KBV_ERR_INTERNAL:
        return true;
    default:
        return (unsigned)st >= KBV_STATUS_COUNT;   /* a code kbv does not know */
    }
}

void kbv_set_debug(bool on) { debug_mode = on; }

bool kbv_debug(void) { return debug_mode; }

const char *kbv_error_text(void)
{
    if (debug_mode || !message[0] || kbv_status_is_internal(last_status))
        return trace;
    return message;
}
