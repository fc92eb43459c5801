#include "eval/compile.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/paths.h"
#include "eval/cache_builds.h"
#include "eval/child.h"
#include "core/vendor_libs.h"
#include "record/candidate_file.h"
#include "sandbox/filter.h"
#include "sandbox/profiles.h"
#include "sandbox/spawn.h"
#include "sandbox/workdir.h"

#define SOURCE_MAX_BYTES (4u << 20)
#define MAX_ARGS 64
#define MAX_EXTRA_FLAGS 24
#define FLAG_MAX_LEN 64
#define VERSION_CAP 4096
#define VERSION_TIMEOUT_S 60.0
#define FLAGS_PREFIX "// kbv: nvcc-flags="
/* A compiler's limits: a source that makes it allocate without end (an
 * #include of an endless file, template or constexpr bombs) or write a huge
 * object is stopped by the kernel, not by the machine running out. */
#define COMPILER_MEMORY_DEFAULT_MB 4096
#define COMPILER_FILE_MAX_BYTES (256u << 20)
#define DIRECTIVE_PREFIX "// kbv:"

typedef enum lang { LANG_CUDA, LANG_C, LANG_PYTHON } lang;

/* ---- small helpers ---------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void hex(const unsigned char *d, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[d[i] >> 4];
        out[2 * i + 1] = digits[d[i] & 15];
    }
    out[2 * n] = '\0';
}

/* Appends printf output to buf (cap bytes), truncating silently. */
static void appendf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t used = strnlen(buf, cap);
    if (used + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, cap - used, fmt, ap);
    va_end(ap);
}

/* Reads a whole file of at most `max` bytes; *data is NUL-terminated. */
static kbv_status read_file(const char *path, size_t max, char **data, size_t *len)
{
    kbv_status st = KBV_OK;
    char *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return kbv_fail(errno == ENOENT ? KBV_ERR_NOT_FOUND : KBV_ERR_IO, "cannot read %s: %s",
                        path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "stat %s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s is not a regular file", path);
    if ((uintmax_t)sb.st_size > max)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s is too large (%jd bytes, at most %zu)", path,
                      (intmax_t)sb.st_size, max);
    buf = malloc((size_t)sb.st_size + 1);
    if (!buf)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "reading %s", path);
    size_t n = fread(buf, 1, (size_t)sb.st_size, f);
    if (ferror(f))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "read %s: %s", path, strerror(errno));
    buf[n] = '\0';
    *data = buf;
    *len = n;
    buf = NULL;
done:
    free(buf);
    fclose(f);
    return st;
}

static kbv_status write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return kbv_fail(KBV_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int err = errno;
            close(fd);
            return kbv_fail(KBV_ERR_IO, "write %s: %s", path, strerror(err));
        }
        p += w;
        len -= (size_t)w;
    }
    if (close(fd) != 0)
        return kbv_fail(KBV_ERR_IO, "close %s: %s", path, strerror(errno));
    return KBV_OK;
}

static kbv_status mkdir_p(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return kbv_fail(KBV_ERR_INVALID, "path too long: %s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return kbv_fail(KBV_ERR_IO, "mkdir %s: %s", buf, strerror(errno));
            *p = c;
            if (c == '\0')
                break;
        }
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return kbv_fail(KBV_ERR_IO, "%s is not a directory", path);
    return KBV_OK;
}

static bool file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* ---- the cache directory and the candidate header --------------------- */

static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static char cache_path[PATH_MAX];
static char cache_error[512];

static void cache_dir_init(void)
{
    const char *env = getenv("KBV_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(cache_path, sizeof cache_path, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(cache_path, sizeof cache_path, "%s/kbv", xdg);
    else if (home && *home)
        n = snprintf(cache_path, sizeof cache_path, "%s/.cache/kbv", home);
    else {
        snprintf(cache_error, sizeof cache_error,
                 "no cache directory: set KBV_CACHE_DIR, XDG_CACHE_HOME or HOME");
        cache_path[0] = '\0';
        return;
    }
    if (n < 0 || (size_t)n >= sizeof cache_path) {
        snprintf(cache_error, sizeof cache_error, "cache directory path too long");
        cache_path[0] = '\0';
        return;
    }
    if (mkdir_p(cache_path) != KBV_OK) {
        snprintf(cache_error, sizeof cache_error, "%s", kbv_last_message());
        kbv_clear_error();
        cache_path[0] = '\0';
        return;
    }
    /* absolute: build directories in it are mounted at their own paths in
     * the compilers' jails */
    char real[PATH_MAX];
    if (realpath(cache_path, real))
        snprintf(cache_path, sizeof cache_path, "%s", real);
    /* no candidate or compiler sees the cache, wherever it lies */
    if (kbv_sandbox_hide_path(cache_path) != KBV_OK)
        kbv_clear_error();
}

const char *kbv_cache_dir(void)
{
    pthread_once(&cache_once, cache_dir_init);
    if (!cache_path[0]) {
        kbv_fail(KBV_ERR_IO, "%s", cache_error);
        return NULL;
    }
    return cache_path;
}

const char *kbv_candidate_include_dir(void)
{
    static _Thread_local char dir[4096];   /* per thread: compiles run side by side */
    if (kbv_data_path("KBV_INCLUDE_DIR", "include", NULL, dir, sizeof dir) != KBV_OK)
        kbv_clear_error();   /* too long: the header is then not found there, and said so */
    return dir;
}

/* ---- running a tool with a deadline ----------------------------------- */

typedef struct tool_run {
    int wait_status;      /* as waitpid reports it */
    bool timed_out;
    bool cancelled;       /* *cancel became nonzero first */
    bool truncated;       /* output longer than the buffer */
    double seconds;
} tool_run;

/* The longest wait between two looks at a cancel flag: a signal that sets
 * it just before poll() starts would otherwise go unseen until the deadline. */
#define CANCEL_POLL_MS 50

static bool cancelled(const volatile sig_atomic_t *cancel)
{
    return cancel && *cancel;
}

/* The compilers' seccomp program, built once. */
static pthread_once_t tool_filter_once = PTHREAD_ONCE_INIT;
static kbv_bpf tool_filter;
static char tool_filter_error[512];

static void tool_filter_init(void)
{
    if (kbv_filter_tool_build(&tool_filter) != KBV_OK) {
        snprintf(tool_filter_error, sizeof tool_filter_error, "%s", kbv_last_error());
        kbv_clear_error();
    }
}

static rlim_t compiler_memory_limit(void)
{
    const char *env = getenv("KBV_COMPILE_MEMORY_MB");
    long mb = env && *env ? strtol(env, NULL, 10) : COMPILER_MEMORY_DEFAULT_MB;
    if (mb < 64)
        mb = COMPILER_MEMORY_DEFAULT_MB;
    return (rlim_t)mb << 20;
}

/* The environment a compiler gets: enough to find its stages, nothing that
 * changes what it builds behind the cache key's back (NVCC_APPEND_FLAGS,
 * CPATH, ...). Temporary files go to the build directory. */
static void tool_env(const char *tmpdir, char *buf, size_t cap, char *envp[], int max)
{
    static const char *const kept[] = {"PATH", "LD_LIBRARY_PATH"};
    int n = 0;
    size_t used = 0;
    for (size_t k = 0; k < sizeof kept / sizeof kept[0] && n < max - 3; k++) {
        const char *v = getenv(kept[k]);
        int w = v ? snprintf(buf + used, cap - used, "%s=%s", kept[k], v) : -1;
        if (w < 0 || (size_t)w >= cap - used)
            continue;
        envp[n++] = buf + used;
        used += (size_t)w + 1;
    }
    envp[n++] = "LC_ALL=C";
    int w = tmpdir ? snprintf(buf + used, cap - used, "TMPDIR=%s", tmpdir) : -1;
    if (w > 0 && (size_t)w < cap - used)
        envp[n++] = buf + used;
    envp[n] = NULL;
}

/* Where argv[0] is, as execve needs it: absolute, PATH searched. */
static kbv_status program_path(const char *prog, char *out, size_t cap)
{
    if (strchr(prog, '/')) {
        if (!realpath(prog, out) || access(out, X_OK) != 0)
            return kbv_fail(KBV_ERR_NOT_FOUND, "cannot run %s: %s", prog, strerror(errno));
        return KBV_OK;
    }
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    while (path && *path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, prog) < (int)sizeof buf &&
            access(buf, X_OK) == 0 && realpath(buf, out))
            return KBV_OK;
        path += len;
        if (*path == ':')
            path++;
    }
    (void)cap;
    return kbv_fail(KBV_ERR_NOT_FOUND, "cannot run %s: not found on PATH", prog);
}

/* Runs argv confined (sandbox/profiles.h: the system, the toolkit, the
 * candidate header and, when cwd is given, that build directory, the only
 * place it may write), in its own process group, with stdout and stderr
 * captured into out (cap bytes, NUL-terminated, the head kept), stdin from
 * /dev/null. On timeout, or when *cancel (if given) turns nonzero, the
 * whole group is killed. A tool that cannot be started is an error; its
 * exit status is not. */
static kbv_status run_tool(char *const argv[], const char *cwd, double timeout_s,
                           const volatile sig_atomic_t *cancel, rlim_t limit_as, char *out,
                           size_t cap, tool_run *run)
{
    kbv_status st = KBV_OK;
    int pipefd[2] = {-1, -1};
    pid_t pid = -1;
    size_t used = 0;
    kbv_policy policy = {0};
    char prog[PATH_MAX], envbuf[8192];
    char *envp[16];

    memset(run, 0, sizeof *run);
    out[0] = '\0';
    pthread_once(&tool_filter_once, tool_filter_init);
    if (tool_filter_error[0])
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s", tool_filter_error);
    KBV_TRY(program_path(argv[0], prog, sizeof prog));
    KBV_TRY_GOTO(kbv_profile_compiler(&policy, prog, kbv_candidate_include_dir(), cwd), st, done);
    tool_env(cwd, envbuf, sizeof envbuf, envp, (int)(sizeof envp / sizeof envp[0]));
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "pipe: %s", strerror(errno));
    int fds[3] = {-1, pipefd[1], pipefd[1]};
    kbv_spawn sp = {.path = prog, .argv = argv, .envp = envp, .policy = &policy,
                    .cwd = cwd ? cwd : "/", .fds = fds, .n_fds = 3, .own_group = true,
                    .filter = &tool_filter, .limit_as = limit_as,
                    .limit_fsize = COMPILER_FILE_MAX_BYTES, .nice = KBV_COMPILE_NICE};
    double start = now_s();
    KBV_TRY_GOTO(kbv_sandbox_spawn(&sp, &pid), st, done);
    close(pipefd[1]);
    pipefd[1] = -1;

    double deadline = start + timeout_s;
    for (;;) {
        double left = deadline - now_s();
        if (cancelled(cancel)) {
            run->cancelled = true;
            break;
        }
        if (left <= 0) {
            run->timed_out = true;
            break;
        }
        struct pollfd pfd = {.fd = pipefd[0], .events = POLLIN};
        int ms = (int)(left * 1000.0) + 1;
        if (cancel && ms > CANCEL_POLL_MS)
            ms = CANCEL_POLL_MS;
        int pr = poll(&pfd, 1, ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "poll: %s", strerror(errno));
        if (pr == 0)
            continue;
        char chunk[4096];
        ssize_t n = read(pipefd[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;  /* EOF: every writer has closed the pipe */
        size_t keep = (size_t)n;
        if (used + keep > cap - 1) {
            keep = cap - 1 - used;
            run->truncated = true;
        }
        memcpy(out + used, chunk, keep);
        used += keep;
        out[used] = '\0';
    }
    /* the tool closed its output; give it until the deadline to exit */
    while (!run->timed_out && !run->cancelled) {
        pid_t w = waitpid(pid, &run->wait_status, WNOHANG);
        if (w == pid) {
            pid = -1;
            break;
        }
        if (w < 0 && errno != EINTR)
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "waitpid: %s", strerror(errno));
        if (cancelled(cancel))
            run->cancelled = true;
        else if (now_s() >= deadline)
            run->timed_out = true;
        else
            nanosleep(&(struct timespec){.tv_nsec = 5 * 1000 * 1000}, NULL);
    }
    run->seconds = now_s() - start;
done:
    if (pid > 0) {
        /* timed out (or we failed): the tool and everything it started go */
        kill(-pid, SIGKILL);
        while (waitpid(pid, &run->wait_status, 0) < 0 && errno == EINTR)
            ;
    }
    if (pipefd[0] >= 0)
        close(pipefd[0]);
    if (pipefd[1] >= 0)
        close(pipefd[1]);
    kbv_policy_free(&policy);
    return st;
}

/* ---- compilers -------------------------------------------------------- */

static bool on_path(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char buf[PATH_MAX];
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, prog) < (int)sizeof buf &&
            access(buf, X_OK) == 0)
            return true;
        path += len;
        if (*path == ':')
            path++;
    }
    return false;
}

static const char *resolve_compiler(const kbv_compile_opts *o, lang lg)
{
    if (lg == LANG_C) {
        const char *cc = getenv("CC");
        return o->cc ? o->cc : (cc && *cc ? cc : "cc");
    }
    if (o->nvcc)
        return o->nvcc;
    const char *env = getenv("KBV_NVCC");
    if (env && *env)
        return env;
    return on_path("nvcc") ? "nvcc" : "/usr/local/cuda/bin/nvcc";
}

/* The compiler's `--version` output, memoised per compiler path. */
#define VERSION_SLOTS 8
static pthread_mutex_t version_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char compiler[PATH_MAX];
    char version[VERSION_CAP];
} version_memo[VERSION_SLOTS];
static int version_count;

static kbv_status compiler_version(const char *compiler, char *out, size_t cap)
{
    kbv_status st = KBV_OK;
    pthread_mutex_lock(&version_lock);
    for (int i = 0; i < version_count; i++) {
        if (strcmp(version_memo[i].compiler, compiler) == 0) {
            snprintf(out, cap, "%s", version_memo[i].version);
            goto done;
        }
    }
    char *argv[] = {(char *)compiler, "--version", NULL};
    tool_run run;
    KBV_TRY_GOTO(run_tool(argv, NULL, VERSION_TIMEOUT_S, NULL, compiler_memory_limit(), out, cap,
                          &run), st, done);
    if (run.timed_out || !WIFEXITED(run.wait_status) || WEXITSTATUS(run.wait_status) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOT_FOUND, "%s --version failed: %.200s", compiler, out);
    if (version_count < VERSION_SLOTS) {
        snprintf(version_memo[version_count].compiler, PATH_MAX, "%s", compiler);
        snprintf(version_memo[version_count].version, VERSION_CAP, "%s", out);
        version_count++;
    }
done:
    pthread_mutex_unlock(&version_lock);
    return st;
}

/* ---- the flags line --------------------------------------------------- */

typedef struct flag_list {
    int n;
    char v[MAX_EXTRA_FLAGS][FLAG_MAX_LEN];
} flag_list;

static const char *const cuda_flags_allowed[] = {
    "--use_fast_math", "-use_fast_math", "-lineinfo", "--generate-line-info", "-Xptxas=-v",
    "--ptxas-options=-v", "--extra-device-vectorization", "-extra-device-vectorization",
    "-O3", "-O2",
};
static const char *const c_flags_allowed[] = {"-O3", "-O2"};

/* The vendor library whose link flag this is ("-lcublas"), or -1. */
static int vendor_link_flag(const char *flag)
{
    for (int l = 0; l < KBV_VENDOR_COUNT; l++)
        if (!strcmp(flag, kbv_vendor_get((kbv_vendor_lib)l)->link))
            return l;
    return -1;
}

static bool in_list(const char *flag, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(flag, list[i]) == 0)
            return true;
    return false;
}

static bool is_maxrregcount(const char *flag)
{
    const char *v = NULL;
    if (strncmp(flag, "-maxrregcount=", 14) == 0)
        v = flag + 14;
    else if (strncmp(flag, "--maxrregcount=", 15) == 0)
        v = flag + 15;
    if (!v || !*v)
        return false;
    char *end;
    long n = strtol(v, &end, 10);
    return *end == '\0' && n >= 16 && n <= 255;
}

/* Parses the optional first line into flags; false (with the reason in
 * why) when it asks for something not allowed. */
static bool parse_flags_line(const char *src, lang lg, unsigned vendor_libs, flag_list *fl,
                             char *why, size_t why_cap)
{
    fl->n = 0;
    size_t line_len = strcspn(src, "\r\n");
    if (strncmp(src, DIRECTIVE_PREFIX, strlen(DIRECTIVE_PREFIX)) != 0)
        return true;
    if (strncmp(src, FLAGS_PREFIX, strlen(FLAGS_PREFIX)) != 0) {
        snprintf(why, why_cap, "first line: unknown kbv directive \"%.*s\" (the only one is "
                 "\"" FLAGS_PREFIX "...\")", (int)(line_len < 120 ? line_len : 120), src);
        return false;
    }
    const char *p = src + strlen(FLAGS_PREFIX);
    const char *end = src + line_len;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= end)
            break;
        size_t len = 0;
        while (p + len < end && p[len] != ' ' && p[len] != '\t')
            len++;
        if (len >= FLAG_MAX_LEN) {
            snprintf(why, why_cap, "nvcc-flags: flag \"%.40s...\" is too long", p);
            return false;
        }
        if (fl->n == MAX_EXTRA_FLAGS) {
            snprintf(why, why_cap, "nvcc-flags: more than %d flags", MAX_EXTRA_FLAGS);
            return false;
        }
        char *flag = fl->v[fl->n];
        memcpy(flag, p, len);
        flag[len] = '\0';
        p += len;
        int lib = vendor_link_flag(flag);
        if (lib >= 0) {
            if (lg != LANG_CUDA || !(vendor_libs >> lib & 1u)) {
                snprintf(why, why_cap, "nvcc-flags: vendor library %s is not allowed in this run "
                         "(vendor libraries must be allowed explicitly)", flag);
                return false;
            }
        } else if (lg == LANG_C) {
            if (!in_list(flag, c_flags_allowed, sizeof c_flags_allowed / sizeof c_flags_allowed[0])) {
                snprintf(why, why_cap, "nvcc-flags: a C candidate may only ask for -O2 or -O3, "
                         "not \"%s\"", flag);
                return false;
            }
        } else if (!in_list(flag, cuda_flags_allowed,
                            sizeof cuda_flags_allowed / sizeof cuda_flags_allowed[0]) &&
                   !is_maxrregcount(flag)) {
            snprintf(why, why_cap, "nvcc-flags: flag \"%s\" is not allowed (allowed: "
                     "--use_fast_math, -lineinfo, -Xptxas=-v, --extra-device-vectorization, "
                     "-maxrregcount=N (16..255), -O3, -O2)", flag);
            return false;
        }
        fl->n++;
    }
    return true;
}

/* After a failed build: the vendor libraries the source names that the run
 * does not allow, said so (their calls are then undefined symbols). */
static void note_vendor_libs(const char *src, unsigned allowed, char *log, size_t cap)
{
    unsigned named = 0;
    for (int l = 0; l < KBV_VENDOR_COUNT; l++)
        for (const char *p = src; (p = strstr(p, kbv_vendor_get((kbv_vendor_lib)l)->prefix)); p++)
            named |= 1u << kbv_vendor_of_symbol(p);   /* cublasLt... is cuBLASLt's */
    named &= ~allowed;
    if (!named)
        return;
    char titles[64];
    appendf(log, cap, "\nnote: %s %s not allowed in this run (kbv eval --allow-vendor-libs "
            "allows them)\n", kbv_vendor_titles(named, titles, sizeof titles),
            (named & (named - 1)) ? "are" : "is");
}

/* ---- argv ------------------------------------------------------------- */

typedef struct argv_buf {
    int n;
    char *v[MAX_ARGS + 1];
    char store[8192];
    size_t used;
} argv_buf;

static kbv_status arg_add(argv_buf *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static kbv_status arg_add(argv_buf *a, const char *fmt, ...)
{
    if (a->n >= MAX_ARGS)
        return kbv_fail(KBV_ERR_INVALID, "compiler command line: too many arguments");
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(a->store + a->used, sizeof a->store - a->used, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof a->store - a->used)
        return kbv_fail(KBV_ERR_INVALID, "compiler command line too long");
    a->v[a->n++] = a->store + a->used;
    a->v[a->n] = NULL;
    a->used += (size_t)len + 1;
    return KBV_OK;
}

/* The exact command: run in the build directory on candidate.<ext>, so the
 * argv (and with it the cache key) does not depend on where things are. */
static kbv_status build_argv(const char *compiler, lang lg, const char *arch, const char *inc,
                             const flag_list *fl, unsigned vendor_libs, argv_buf *a)
{
    a->n = 0;
    a->used = 0;
    KBV_TRY(arg_add(a, "%s", compiler));
    if (lg == LANG_CUDA) {
        KBV_TRY(arg_add(a, "-O3"));
        KBV_TRY(arg_add(a, "-gencode=arch=compute_%s,code=sm_%s", arch, arch));
        KBV_TRY(arg_add(a, "-shared"));
        KBV_TRY(arg_add(a, "-Xcompiler"));
        KBV_TRY(arg_add(a, "-fPIC,-fvisibility=hidden"));
        KBV_TRY(arg_add(a, "-cudart"));
        KBV_TRY(arg_add(a, "shared"));
        KBV_TRY(arg_add(a, "-Xlinker"));
        KBV_TRY(arg_add(a, "-z,defs"));
    } else {
        KBV_TRY(arg_add(a, "-std=c11"));
        KBV_TRY(arg_add(a, "-O2"));
        KBV_TRY(arg_add(a, "-shared"));
        KBV_TRY(arg_add(a, "-fPIC"));
        KBV_TRY(arg_add(a, "-fvisibility=hidden"));
        KBV_TRY(arg_add(a, "-Wl,-z,defs"));
    }
    KBV_TRY(arg_add(a, "-DKBV_CANDIDATE_BUILD"));
    KBV_TRY(arg_add(a, "-I%s", inc));
    for (int i = 0; i < fl->n; i++)
        KBV_TRY(arg_add(a, "%s", fl->v[i]));
    if (lg == LANG_CUDA && vendor_libs) {
        /* a run that allows vendor libraries offers them all to the linker,
         * which keeps the ones the object calls (a run without them keeps
         * today's command, and with it the cache keys) */
        KBV_TRY(arg_add(a, "-Xlinker"));
        KBV_TRY(arg_add(a, "--as-needed"));
        for (int l = 0; l < KBV_VENDOR_COUNT; l++)
            if (vendor_libs >> l & 1u)
                KBV_TRY(arg_add(a, "%s", kbv_vendor_get((kbv_vendor_lib)l)->link));
    }
    KBV_TRY(arg_add(a, "-o"));
    KBV_TRY(arg_add(a, "candidate.so"));
    KBV_TRY(arg_add(a, lg == LANG_CUDA ? "candidate.cu" : "candidate.c"));
    if (lg == LANG_C)
        KBV_TRY(arg_add(a, "-lm"));
    return KBV_OK;
}

/* ---- the cache -------------------------------------------------------- */

static kbv_status sha256_parts(const void *const *parts, const size_t *lens, int n,
                               unsigned char digest[32])
{
    kbv_status st = KBV_OK;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx)
        return kbv_fail(KBV_ERR_NOMEM, "EVP_MD_CTX_new");
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
        KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "SHA-256 unavailable in OpenSSL");
    for (int i = 0; i < n; i++) {
        /* length-prefixed, so part boundaries cannot be shifted */
        uint64_t len = lens[i];
        if (EVP_DigestUpdate(ctx, &len, sizeof len) != 1 ||
            EVP_DigestUpdate(ctx, parts[i], lens[i]) != 1)
            KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "SHA-256 update failed");
    }
    unsigned int dlen = 0;
    if (EVP_DigestFinal_ex(ctx, digest, &dlen) != 1 || dlen != 32)
        KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "SHA-256 final failed");
done:
    EVP_MD_CTX_free(ctx);
    return st;
}

/* Fills r from a complete cache entry; false when there is none. */
static bool load_entry(const char *entry, kbv_compile_result *r)
{
    char path[PATH_MAX + 32];
    bool ok;
    snprintf(path, sizeof path, "%s/ok", entry);
    /* a built object, or a KernelBench-format file kept as it is */
    const char *artifact = "candidate.so";
    if (file_exists(path)) {
        ok = true;
        char so[PATH_MAX + 32];
        snprintf(so, sizeof so, "%s/candidate.py", entry);
        if (file_exists(so))
            artifact = "candidate.py";
        snprintf(so, sizeof so, "%s/%s", entry, artifact);
        if (!file_exists(so))
            return false;  /* damaged by hand: kbv_compile reports it */
    } else {
        snprintf(path, sizeof path, "%s/failed", entry);
        if (!file_exists(path))
            return false;
        ok = false;
    }
    r->seconds = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%lf", &r->seconds) != 1)
            r->seconds = 0;
        fclose(f);
    }
    r->log[0] = '\0';
    snprintf(path, sizeof path, "%s/compile.log", entry);
    f = fopen(path, "rb");
    if (f) {
        size_t n = fread(r->log, 1, sizeof r->log - 1, f);
        r->log[n] = '\0';
        fclose(f);
    }
    r->ok = ok;
    snprintf(r->so_path, sizeof r->so_path, "%s/%s", entry, artifact);
    if (!ok)
        r->so_path[0] = '\0';
    return true;
}

static kbv_status lang_of(const char *path, lang *lg)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash)) {
        if (strcmp(dot, ".cu") == 0) {
            *lg = LANG_CUDA;
            return KBV_OK;
        }
        if (strcmp(dot, ".c") == 0) {
            *lg = LANG_C;
            return KBV_OK;
        }
        if (strcmp(dot, ".py") == 0) {
            *lg = LANG_PYTHON;
            return KBV_OK;
        }
    }
    return kbv_fail(KBV_ERR_INVALID, "%s is not a candidate source: expected a .cu (CUDA), .c "
                    "(CPU) or KernelBench-format .py file", path);
}

/* The SHA-256 of the file at path (kbv-runner: the builder of extensions), hex. */
static kbv_status file_sha256(const char *path, char out[65])
{
    char *data = NULL;
    size_t len = 0;
    KBV_TRY(read_file(path, 64u << 20, &data, &len));
    unsigned char digest[32];
    const void *parts[] = {data};
    size_t lens[] = {len};
    kbv_status st = sha256_parts(parts, lens, 1, digest);
    free(data);
    if (st == KBV_OK)
        hex(digest, 32, out);
    return st;
}

/* A build's private directory in shard. The first build of this process into
 * the cache first removes what dead builds left in every shard
 * (eval/cache_builds.h); later builds sweep only their own shard. */
static kbv_status start_build_dir(const char *cache, const char *shard, const char *key,
                                  kbv_build_dir *d)
{
    static atomic_flag swept = ATOMIC_FLAG_INIT;
    char root[PATH_MAX];
    if (!atomic_flag_test_and_set(&swept) &&
        snprintf(root, sizeof root, "%s/build", cache) < (int)sizeof root)
        kbv_build_sweep_all(root, NULL);
    return kbv_build_dir_make(shard, key, d);
}

/* A KernelBench-format file: its entry holds the file as it was read (the
 * runner gets the bytes the identity names, whatever happens to the run
 * directory later) and, when it uses torch.utils.cpp_extension, the
 * extensions its load_inline calls build, as ext/<key>.so: kbv-runner
 * --build-extensions executes the file in the compiler sandbox, where
 * processes may run (runner_python.h). The key: the file, the GPU
 * architecture, the builder and the C++ compiler's version. */
static kbv_status python_entry(const kbv_compile_opts *o, const char *cache, const char *arch,
                               const char *src, size_t src_len, kbv_compile_result *r)
{
    kbv_status st = KBV_OK;
    static const char tag[] = "kbv-python-2";
    const bool builds = strstr(src, "cpp_extension") != NULL;
    const char *runner = kbv_runner_path();
    char runner_sha[65] = "", version[VERSION_CAP] = "";
    if (builds) {
        KBV_TRY(file_sha256(runner, runner_sha));
        KBV_TRY(compiler_version("c++", version, sizeof version));
    }
    unsigned char digest[32];
    const void *parts[] = {tag, src, arch, runner_sha, version};
    size_t lens[] = {sizeof tag, src_len, strlen(arch), strlen(runner_sha), strlen(version)};
    KBV_TRY(sha256_parts(parts, lens, 5, digest));
    hex(digest, 32, r->key);
    char shard[PATH_MAX], entry[PATH_MAX + 80], path[PATH_MAX + 160];
    kbv_build_dir tmp = {.path = "", .fd = -1};
    char lock_path[PATH_MAX + 128] = "";
    int lock_fd = -1;
    if (snprintf(shard, sizeof shard, "%s/build/%.2s", cache, r->key) >= (int)sizeof shard)
        return kbv_fail(KBV_ERR_INVALID, "cache path too long: %s", cache);
    snprintf(entry, sizeof entry, "%s/%s", shard, r->key);
    if (load_entry(entry, r)) {
        r->cached = true;
        return KBV_OK;
    }
    /* a PyTorch extension compiles torch's headers: far longer than a candidate */
    double timeout = o->timeout_s > 0 ? o->timeout_s : 3 * KBV_COMPILE_DEFAULT_TIMEOUT_S;
    KBV_TRY(mkdir_p(shard));
    if (builds) {   /* one build of an entry at a time, as for compilers */
        snprintf(lock_path, sizeof lock_path, "%s.lock", entry);
        lock_fd = kbv_build_lock(lock_path, timeout, o->cancel);
        if (load_entry(entry, r)) {
            r->cached = true;
            goto done;
        }
    }
    KBV_TRY_GOTO(start_build_dir(cache, shard, r->key, &tmp), st, done);
    snprintf(path, sizeof path, "%s/candidate.py", tmp.path);
    KBV_TRY_GOTO(write_file(path, src, src_len), st, done);
    bool built = true;
    double seconds = 0;
    if (builds) {
        snprintf(path, sizeof path, "%s/ext", tmp.path);
        if (mkdir(path, 0755) != 0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "mkdir %s: %s", path, strerror(errno));
        char *argv[] = {(char *)runner, "--build-extensions", "candidate.py", "ext",
                        (char *)arch, NULL};
        tool_run run;
        /* PyTorch maps far more address space than a compiler */
        KBV_TRY_GOTO(run_tool(argv, tmp.path, timeout, o->cancel, 4 * compiler_memory_limit(),
                              r->log, sizeof r->log - 160, &run),
                     st, done);
        seconds = run.seconds;
        if (run.cancelled || run.timed_out) {
            appendf(r->log, sizeof r->log, "\nerror: extension build %s after %.1f s\n",
                    run.cancelled ? "stopped" : "timed out", run.seconds);
            goto done;   /* not cached */
        }
        built = WIFEXITED(run.wait_status) && WEXITSTATUS(run.wait_status) == 0;
        if (WIFSIGNALED(run.wait_status))
            appendf(r->log, sizeof r->log, "\nextension builder killed by signal %d\n",
                    WTERMSIG(run.wait_status));
    }
    snprintf(path, sizeof path, "%s/compile.log", tmp.path);
    KBV_TRY_GOTO(write_file(path, r->log, strlen(r->log)), st, done);
    char secs[64];
    int slen = snprintf(secs, sizeof secs, "%.3f\n", seconds);
    snprintf(path, sizeof path, "%s/%s", tmp.path, built ? "ok" : "failed");
    KBV_TRY_GOTO(write_file(path, secs, (size_t)slen), st, done);
    KBV_TRY_GOTO(kbv_build_dir_publish(&tmp, entry), st, done);
    if (!load_entry(entry, r))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cache entry %s is incomplete: remove it", entry);
    r->seconds = seconds;
done:
    {
        kbv_status rm = kbv_build_dir_end(&tmp);
        if (rm != KBV_OK && st == KBV_OK)
            st = kbv_relay_at(__FILE__, __LINE__, rm);
    }
    kbv_build_unlock(lock_path, lock_fd);
    return st;
}

kbv_status kbv_compile(const kbv_compile_opts *o, kbv_compile_result *r)
{
    kbv_status st = KBV_OK;
    char *src = NULL, *header = NULL;
    size_t src_len = 0, header_len = 0;
    kbv_build_dir tmp = {.path = "", .fd = -1};
    char lock_path[PATH_MAX + 128] = "";
    int lock_fd = -1;
    char path[PATH_MAX + 64];
    char version[VERSION_CAP];
    argv_buf *args = NULL;
    lang lg = LANG_C;

    memset(r, 0, offsetof(kbv_compile_result, log));
    r->log[0] = '\0';
    if (!o || !o->source)
        return kbv_fail(KBV_ERR_INVALID, "kbv_compile: no source given");
    KBV_TRY(lang_of(o->source, &lg));
    /* read under the rule every reader of a candidate follows (never through a link) */
    kbv_candidate_file file;
    kbv_status read_st = kbv_candidate_file_read(o->source, &file);
    src = file.bytes;   /* freed below, whatever the read found */
    src_len = file.len;
    KBV_TRY_GOTO(read_st, st, done);
    if (file.defect != KBV_CANDIDATE_OK)
        KBV_FAIL_GOTO(st, done, file.defect == KBV_CANDIDATE_MISSING ? KBV_ERR_NOT_FOUND
                                                                     : KBV_ERR_INVALID,
                      "%s: %s", o->source, file.detail);
    unsigned char digest[32];
    {
        const void *parts[] = {src};
        size_t lens[] = {src_len};
        KBV_TRY_GOTO(sha256_parts(parts, lens, 1, digest), st, done);
        hex(digest, 32, r->sha256);
    }

    if (lg == LANG_PYTHON) {
        const char *cache = o->cache_dir ? o->cache_dir : kbv_cache_dir();
        if (!cache)
            KBV_TRY_GOTO(KBV_ERR_IO, st, done);
        const char *arch = o->arch && *o->arch ? o->arch : KBV_COMPILE_DEFAULT_ARCH;
        KBV_TRY_GOTO(python_entry(o, cache, arch, src, src_len, r), st, done);
        goto done;
    }
    flag_list flags;
    char why[512];
    if (!parse_flags_line(src, lg, o->vendor_libs, &flags, why, sizeof why)) {
        snprintf(r->log, sizeof r->log, "refused: %s\n", why);
        goto done;  /* the candidate's failure, not kbv's; cheap, so not cached */
    }

    const char *inc = kbv_candidate_include_dir();
    snprintf(path, sizeof path, "%s/kbv/candidate.h", inc);
    st = read_file(path, SOURCE_MAX_BYTES, &header, &header_len);
    if (st != KBV_OK)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOT_FOUND, "kbv/candidate.h not found under %s (set "
                      "KBV_INCLUDE_DIR): %s", inc, kbv_last_message());

    const char *compiler = resolve_compiler(o, lg);
    const char *arch = o->arch && *o->arch ? o->arch : KBV_COMPILE_DEFAULT_ARCH;
    for (const char *c = arch; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z')))
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "bad GPU architecture \"%s\" (e.g. 90a)", arch);
    args = malloc(sizeof *args);
    if (!args)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "compiler arguments");
    KBV_TRY_GOTO(build_argv(compiler, lg, arch, inc, &flags, o->vendor_libs, args), st, done);
    KBV_TRY_GOTO(compiler_version(compiler, version, sizeof version), st, done);

    {
        static const char tag[] = "kbv-compile-1";
        const void *parts[] = {tag, src, header, args->store, version};
        size_t lens[] = {sizeof tag, src_len, header_len, args->used, strlen(version)};
        KBV_TRY_GOTO(sha256_parts(parts, lens, 5, digest), st, done);
        hex(digest, 32, r->key);
    }

    const char *cache = o->cache_dir ? o->cache_dir : kbv_cache_dir();
    if (!cache)
        KBV_TRY_GOTO(KBV_ERR_IO, st, done);
    char shard[PATH_MAX];
    char entry[PATH_MAX + 80];
    if (snprintf(shard, sizeof shard, "%s/build/%.2s", cache, r->key) >= (int)sizeof shard)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "cache path too long: %s", cache);
    snprintf(entry, sizeof entry, "%s/%s", shard, r->key);
    if (load_entry(entry, r)) {
        r->cached = true;
        goto done;
    }

    double timeout = o->timeout_s > 0 ? o->timeout_s : KBV_COMPILE_DEFAULT_TIMEOUT_S;
    KBV_TRY_GOTO(mkdir_p(shard), st, done);
    snprintf(lock_path, sizeof lock_path, "%s.lock", entry);
    /* another process may be building it right now: its result will do */
    lock_fd = kbv_build_lock(lock_path, timeout, o->cancel);
    if (load_entry(entry, r)) {
        r->cached = true;
        goto done;
    }
    if (cancelled(o->cancel)) {
        appendf(r->log, sizeof r->log, "compilation stopped before it started\n");
        goto done;
    }

    /* build privately, then publish with one rename */
    KBV_TRY_GOTO(start_build_dir(cache, shard, r->key, &tmp), st, done);
    snprintf(path, sizeof path, "%s/%s", tmp.path,
             lg == LANG_CUDA ? "candidate.cu" : "candidate.c");
    KBV_TRY_GOTO(write_file(path, src, src_len), st, done);

    tool_run run;
    KBV_TRY_GOTO(run_tool(args->v, tmp.path, timeout, o->cancel, compiler_memory_limit(), r->log,
                          sizeof r->log - 160, &run),
                 st, done);
    r->seconds = run.seconds;
    if (run.truncated)
        appendf(r->log, sizeof r->log, "\n[compiler output truncated]\n");
    if (run.cancelled) {
        appendf(r->log, sizeof r->log, "\ncompilation stopped after %.1f s\n", run.seconds);
        goto done;  /* not cached: the compiler was killed, not the source's fault */
    }
    if (run.timed_out) {
        appendf(r->log, sizeof r->log, "\ncompiler timed out after %g s\n", timeout);
        goto done;  /* not cached: it may be the machine, not the source */
    }
    snprintf(path, sizeof path, "%s/candidate.so", tmp.path);
    bool built = WIFEXITED(run.wait_status) && WEXITSTATUS(run.wait_status) == 0 &&
                 file_exists(path);
    if (!built) {
        if (WIFSIGNALED(run.wait_status))
            appendf(r->log, sizeof r->log, "\ncompiler killed by signal %d\n",
                    WTERMSIG(run.wait_status));
        note_vendor_libs(src, o->vendor_libs, r->log, sizeof r->log);
    }
    snprintf(path, sizeof path, "%s/compile.log", tmp.path);
    KBV_TRY_GOTO(write_file(path, r->log, strlen(r->log)), st, done);
    char secs[64];
    int slen = snprintf(secs, sizeof secs, "%.3f\n", run.seconds);
    snprintf(path, sizeof path, "%s/%s", tmp.path, built ? "ok" : "failed");
    KBV_TRY_GOTO(write_file(path, secs, (size_t)slen), st, done);

    KBV_TRY_GOTO(kbv_build_dir_publish(&tmp, entry), st, done);
    /* published by us or, a moment earlier, by another process: same bytes */
    if (!load_entry(entry, r))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cache entry %s is incomplete: remove it", entry);
    r->seconds = run.seconds;
done:
    {
        kbv_status rm = kbv_build_dir_end(&tmp);
        if (rm != KBV_OK && st == KBV_OK)
            st = kbv_relay_at(__FILE__, __LINE__, rm);
    }
    kbv_build_unlock(lock_path, lock_fd);
    free(args);
    free(header);
    free(src);
    return st;
}
