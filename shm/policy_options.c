/* The policy's switches (see policy_options.h), made from the tables that
 * policy.c keeps: a new order or rule needs no line here. */
#include "shm/policy_options.h"

size_t policy_getopt(struct option *opts)
{
	size_t n = 0;

	opts[n++] = (struct option){ "schedule", required_argument, NULL, POLICY_OPT_BASE };
	for (unsigned i = 0; i < policy_rules() && n < POLICY_OPTIONS_MAX; i++)
		opts[n++] = (struct option){ policy_rule_switch(i), no_argument, NULL,
					     POLICY_OPT_BASE + 1 + (int)i };
	return n;
}

int policy_option(int c, const char *arg, struct policy *p)
{
	if (c == POLICY_OPT_BASE)
		return policy_order_parse(arg, &p->order) < 0 ? -1 : 1;
	if (c > POLICY_OPT_BASE && c <= POLICY_OPT_BASE + (int)policy_rules()) {
		policy_rule_off(p, (unsigned)(c - POLICY_OPT_BASE - 1));
		return 1;
	}
	return 0;
}

void policy_help(FILE *out)
{
	fprintf(out, "  --schedule ORDER       which job gets the workers:");
	for (unsigned i = 0; i < policy_orders(); i++)
		fprintf(out, "\n                           %-9s %s", policy_order_name(i),
			policy_order_help(i));
	fputc('\n', out);
	for (unsigned i = 0; i < policy_rules(); i++)
		fprintf(out, "  --%-20s %s\n", policy_rule_switch(i), policy_rule_help(i));
}

void policy_switches(FILE *out)
{
	for (unsigned i = 0; i < policy_rules(); i++)
		fprintf(out, "--%s\n", policy_rule_switch(i));
}
