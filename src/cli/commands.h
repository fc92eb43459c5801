/* The kbv subcommands: one file each in src/cli, one row each in main.c. */
#ifndef KBV_COMMANDS_H
#define KBV_COMMANDS_H

int kbv_cmd_list(int argc, char **argv);
int kbv_cmd_show(int argc, char **argv);
int kbv_cmd_dump(int argc, char **argv);
int kbv_cmd_check(int argc, char **argv);
int kbv_cmd_eval(int argc, char **argv);
int kbv_cmd_merge(int argc, char **argv);
int kbv_cmd_baseline(int argc, char **argv);
int kbv_cmd_audit(int argc, char **argv);
int kbv_cmd_prompt(int argc, char **argv);
int kbv_cmd_generate(int argc, char **argv);
int kbv_cmd_report(int argc, char **argv);
int kbv_cmd_judge(int argc, char **argv);

#endif
