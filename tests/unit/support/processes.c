#include "support/processes.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool kbv_test_process_with_arg(const char *arg)
{
    DIR *d = opendir("/proc");
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *paren = strrchr(buf, ')');
        if (!paren || paren[1] != ' ' || paren[2] == 'Z' || paren[2] == 'X')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        if (!(f = fopen(path, "r")))
            continue;
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
            buf[n] = '\0';
            if (!strcmp(buf + i, arg))
                found = true;
        }
    }
    closedir(d);
    return found;
}

bool kbv_test_gone_soon(const char *arg)
{
    for (int i = 0; i < 200; i++) {
        if (!kbv_test_process_with_arg(arg))
            return true;
        usleep(10 * 1000);
    }
    return false;
}
