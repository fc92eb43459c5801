/* Giving up every privilege before the exec: whatever user kbv runs as
 * (root included, as on GPU machines and in CI), the confined program starts
 * with no capabilities, an empty bounding set, securebits that keep uid 0
 * from regaining any at exec, and no_new_privs (no setuid binary can lift
 * it). Between fork and exec: raw system calls only. */
#ifndef KBV_SANDBOX_PRIVILEGES_H
#define KBV_SANDBOX_PRIVILEGES_H

/* Returns 0, or the errno of the step that failed. */
int kbv_privileges_drop(void);

#endif
