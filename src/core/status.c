#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define KBV_TRACE_CAP 2048

static _Thread_local char trace[KBV_TRACE_CAP];

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

kbv_status kbv_fail_at(const char *file, int line, kbv_status st, const char *fmt, ...)
{
    int n = snprintf(trace, sizeof trace, "%s:%d: %s: ", short_path(file), line,
                     kbv_status_name(st));
    if (n < 0 || (size_t)n >= sizeof trace)
        return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(trace + n, sizeof trace - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

kbv_status kbv_relay_at(const char *file, int line, kbv_status st)
{
    size_t used = strlen(trace);
    if (used == 0)
        return kbv_fail_at(file, line, st, "(no message)");
    if (used < sizeof trace - 1)
        snprintf(trace + used, sizeof trace - used, "\n  <- %s:%d", short_path(file), line);
    return st;
}

const char *kbv_last_error(void) { return trace; }

void kbv_clear_error(void) { trace[0] = '\0'; }
