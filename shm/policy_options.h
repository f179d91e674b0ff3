/* The policy's command-line switches, for the programs that parse them
 * (the master and revhash-bench), made in policy.c from its tables: apart
 * from policy.h, which the workers include, so that it needs neither
 * getopt nor stdio. */
#ifndef REVHASH_POLICY_OPTIONS_H
#define REVHASH_POLICY_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

struct policy;

#define POLICY_OPTIONS_MAX 8    /* entries policy_getopt may add */
#define POLICY_OPT_BASE 0x1000 /* their getopt values: from here up */

/* Append the policy's options (--schedule and each rule's switch) to the
 * getopt_long table at opts; returns how many. */
size_t policy_getopt(struct option *opts);
/* Apply getopt value c (with its argument) to p: 1 when c is one of the
 * policy's, 0 when it is not, -1 for an order with no such name. */
int policy_option(int c, const char *arg, struct policy *p);
/* Print the options' help lines, indented like the master's --help. */
void policy_help(FILE *out);
/* Print each rule's switch ("--no-preempt"), a line each. */
void policy_switches(FILE *out);

#endif
