/* Test candidate: built against the header but exports no kbv_forward. */
#include <kbv/candidate.h>

KBV_EXPORT int kbv_forwards(const kbv_env *env)
{
    return env != NULL;
}
