#include "cli/vendor_option.h"

#include <string.h>

#include "core/status.h"
#include "core/vendor_libs.h"

#define OPTION "--allow-vendor-libs"

int kbv_vendor_option_take(const char *cmd, const char *arg, unsigned *mask)
{
    size_t n = strlen(OPTION);
    if (strncmp(arg, OPTION, n) != 0 || (arg[n] != '\0' && arg[n] != '='))
        return 0;
    if (arg[n] == '\0') {
        *mask = KBV_VENDOR_ALL;
        return 1;
    }
    if (kbv_vendor_parse(arg + n + 1, mask) == KBV_OK)
        return 1;
    fprintf(stderr, "%s: " OPTION "=%s: %s\n", cmd, arg + n + 1, kbv_last_message());
    kbv_clear_error();
    return -1;
}

void kbv_vendor_option_help_run(FILE *f)
{
    fputs("  " OPTION "[=LIST]\n"
          "                     let candidates call vendor libraries, as the paper's PyTorch\n"
          "                     candidates could: cublas, cublasLt, cudnn (LIST, comma-\n"
          "                     separated; default all), on env->stream, handles made in\n"
          "                     kbv_prepare. They are linked where a .cu candidate calls\n"
          "                     them, admitted by the binary allowlist and made ready before\n"
          "                     the sandbox closes; strict's traced pass still needs a kernel\n"
          "                     from the candidate's own object in every call. Recorded in\n"
          "                     every record (\"vendor_libs\") and shown in every report; a\n"
          "                     rerun with other libraries evaluates the samples again.\n"
          "                     Checked on an H200 by tests/cheats/vendor_manifest.tsv\n"
          "                     (docs/METHODOLOGY.md, \"Vendor libraries\")\n",
          f);
}

void kbv_vendor_option_help_prompt(FILE *f)
{
    fputs("  " OPTION "[=LIST]\n"
          "                        tell the model it may call these vendor libraries\n"
          "                        (cublas, cublasLt, cudnn; default all) and how:\n"
          "                        the ABI's section on them, naming these; for runs\n"
          "                        of kbv eval --allow-vendor-libs with the same LIST\n",
          f);
}
