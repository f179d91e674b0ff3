/* sass-count: what the sm_90 machine code of a kernel runs per hashed
 * value, counted from the cubin itself, where no disassembler is at hand
 * (cuobjdump comes with a driver install, not with nvcc): each kernel's
 * loop by opcode, or with --table a row a variant (docs/gpu.md: What the
 * sm_90 code runs per value; how it was checked against cuobjdump).
 *
 * An instruction is 128 bits, its opcode in bits 0..8 (as Mesa's encoder
 * for these GPUs writes them); a branch's target is an offset in units of
 * 4 bytes, in bits 16..23 and 34..81, from the next instruction. The
 * per-value loop is the large backward branch's with the fewest loads
 * (the poller's reads host memory too: gpu_search.h). The registers and
 * stack frame are ptxas's, from .nv.info's attributes for the kernel's
 * symbol (the .text section's sh_info); spills are LDL and STL. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parse.h"
#include "worker/gpu/gpu_variant.h"

#define OPS 512
#define BIG_LOOP 256 /* instructions: a loop this long is a per-value loop */
#define OP36 0x036
#define IMAD_HI 0x027
#define EIATTR_FRAME_SIZE 0x11
#define EIATTR_REGCOUNT 0x2f

/* The bounds the table prints: an H100 SXM's or an H200's 132 SMs at
 * 1.98 GHz, each clock issuing 128 instructions an SM (4 schedulers of a
 * warp each) and 64 on the integer ALU (16 lanes a scheduler), as many on
 * the FMA pipe's heavy half, which runs IMAD. */
#define SM_CLOCKS 2.614e11
#define ALU_LANES 64
#define ISSUE_LANES 128

struct op_name {
	unsigned op;
	const char *name;
	char pipe; /* 'a' integer ALU, 'f' FMA, 'u' uniform, 'm' memory, 'c' control */
};

static const struct op_name ops[] = {
	{ 0x002, "MOV", 'a' },   { 0x007, "SEL", 'a' },   { 0x00c, "ISETP", 'a' },
	{ 0x010, "IADD3", 'a' }, { 0x011, "LEA", 'a' },   { 0x012, "LOP3", 'a' },
	{ 0x016, "PRMT", 'a' },  { 0x017, "IMNMX", 'a' }, { 0x019, "SHF", 'a' },
	{ 0x01c, "PLOP3", 'a' }, { 0x024, "IMAD", 'f' },  { 0x025, "IMAD.WIDE", 'f' },
	{ IMAD_HI, "IMAD.HI", 'f' }, { OP36, "op36", '?' }, { 0x090, "UIADD3", 'u' },
	{ 0x092, "ULOP3", 'u' }, { 0x099, "USHF", 'u' },  { 0x0b9, "ULDC", 'u' },
	{ 0x118, "NOP", 'c' },   { 0x119, "S2R", 'c' },   { 0x141, "BSYNC", 'c' },
	{ 0x145, "BSSY", 'c' },  { 0x147, "BRA", 'c' },   { 0x14d, "EXIT", 'c' },
	{ 0x181, "LDG", 'm' },   { 0x182, "LDC", 'm' },   { 0x183, "LDL", 'm' },
	{ 0x186, "STG", 'm' },   { 0x187, "STL", 'm' },   { 0x1a8, "ATOMG", 'm' },
};

/* One kernel as counted. */
struct kernel {
	const char *name;
	long len;            /* instructions in all */
	long loop;           /* in its per-value loop; 0: none found */
	unsigned n[OPS];     /* the loop's, by opcode */
	unsigned pipe[128];  /* the loop's, by pipe letter */
	unsigned local;      /* LDL and STL in the whole kernel */
	long regs, frame;    /* ptxas's; -1: not found */
};

static const struct op_name *named(unsigned op)
{
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (ops[i].op == op)
			return &ops[i];
	return NULL;
}

/* The whole file, or NULL (said). */
static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	*size = buf ? (size_t)n : 0;
	return buf;
}

/* The target index of the branch at index i, whose words are lo, hi. */
static long target(long i, uint64_t lo, uint64_t hi)
{
	int64_t high = (int64_t)((lo >> 34 | (hi & 0x3ffff) << 30) << 16) >> 16;

	return i + 1 + (high * 64 + (int64_t)(lo >> 18 & 0x3f));
}

/* Count the opcodes of [from, to] into n; the loads among them. */
static int count(const uint64_t *code, long from, long to, unsigned n[OPS])
{
	int loads = 0;

	memset(n, 0, OPS * sizeof *n);
	for (long i = from; i <= to; i++) {
		unsigned op = code[2 * i] & 0x1ff;

		n[op]++;
		loads += op == 0x181;
	}
	return loads;
}

/* k's per-value loop, the big loop with the fewest loads in code[0..len),
 * and its pipes; and the local memory accesses of the whole kernel. */
static void per_value(struct kernel *k, const uint64_t *code, long len)
{
	long best_from = -1, best_to = -1;
	int best_loads = 1 << 30;

	k->len = len;
	count(code, 0, len - 1, k->n);
	k->local = k->n[0x183] + k->n[0x187];
	for (long i = 0; i < len; i++) {
		long t;
		int loads;

		if ((code[2 * i] & 0x1ff) != 0x147)
			continue;
		t = target(i, code[2 * i], code[2 * i + 1]);
		if (t < 0 || t > i || i - t + 1 < BIG_LOOP)
			continue;
		loads = count(code, t, i, k->n);
		if (loads < best_loads) {
			best_loads = loads;
			best_from = t;
			best_to = i;
		}
	}
	k->loop = best_from < 0 ? 0 : best_to - best_from + 1;
	if (!k->loop)
		return;
	count(code, best_from, best_to, k->n);
	memset(k->pipe, 0, sizeof k->pipe);
	for (unsigned op = 0; op < OPS; op++) {
		const struct op_name *o = named(op);

		k->pipe[o ? (unsigned char)o->pipe : '?'] += k->n[op];
	}
}

/* The value of attribute attr for symbol sym in the .nv.info section
 * data[0..size), or -1. Its entries: a format byte and an attribute byte,
 * then for format 4 a 16-bit size and that many bytes (here, the symbol
 * and the value, 32 bits each), for 3 a 16-bit value, for 1 nothing. */
static long nv_info(const unsigned char *data, size_t size, unsigned attr, uint32_t sym)
{
	for (size_t i = 0; i + 4 <= size;) {
		unsigned fmt = data[i], a = data[i + 1];
		uint16_t len;
		uint32_t s, v;

		if (fmt != 4) {
			i += fmt == 3 || fmt == 1 ? 4 : size; /* another form: stop */
			continue;
		}
		memcpy(&len, data + i + 2, 2);
		if (i + 4 + len > size)
			break;
		if (a == attr && len == 8) {
			memcpy(&s, data + i + 4, 4);
			memcpy(&v, data + i + 8, 4);
			if (s == sym)
				return v;
		}
		i += 4 + (size_t)len;
	}
	return -1;
}

static void print_loop(const struct kernel *k)
{
	printf("%s: %ld instructions in all\n", k->name, k->len);
	if (!k->loop) {
		printf("%s: no loop of %d or more\n", k->name, BIG_LOOP);
		return;
	}
	printf("%s: loop of %ld instructions:", k->name, k->loop);
	for (unsigned op = 0; op < OPS; op++) {
		const struct op_name *o = named(op);

		if (!k->n[op])
			continue;
		if (o)
			printf(" %s %u", o->name, k->n[op]);
		else
			printf(" op%#x %u", op, k->n[op]);
	}
	printf("\n%s: integer ALU pipe %u, FMA pipe %u (op36 apart: %u), uniform %u, "
	       "memory %u, control %u\n", k->name, k->pipe['a'], k->pipe['f'], k->n[OP36],
	       k->pipe['u'], k->pipe['m'], k->pipe['c']);
	printf("%s: %ld registers, a stack frame of %ld bytes, %u local loads and stores\n",
	       k->name, k->regs, k->frame, k->local);
}

/* A count per value, whole for one value a trip, else to a tenth. */
static void per(const char *sep, double n, int values)
{
	printf(values > 1 ? "%s%.1f" : "%s%.0f", sep, n / values);
}

/* One row: name's loop per value (values hashed a trip), and the G
 * hashes/s each pipe allows at SM_CLOCKS: the ALU's, with op36 there too
 * in brackets; the FMA pipe's, with IMAD.HI taking two of its slots in
 * brackets (whether it is full rate is a device's to say). */
static void print_row(const struct kernel *k, const char *name, int values)
{
	double alu = (double)k->pipe['a'] / values, alu36 = alu + (double)k->n[OP36] / values;
	double fma = (double)k->pipe['f'] / values, fma2 = fma + (double)k->n[IMAD_HI] / values;

	printf("| %s", name);
	per(" | ", (double)k->loop, values);
	per(" | ", k->pipe['a'], values);
	per(" | ", k->pipe['f'], values);
	per(" | ", k->n[IMAD_HI], values);
	per(" | ", k->n[OP36], values);
	printf(" | %ld | %s | %.2f (%.2f) | %.2f (%.2f) | %.2f |\n", k->regs,
	       k->frame > 0 || k->local ? "yes" : "none", SM_CLOCKS * ALU_LANES / alu / 1e9,
	       SM_CLOCKS * ALU_LANES / alu36 / 1e9, SM_CLOCKS * ALU_LANES / fma / 1e9,
	       SM_CLOCKS * ALU_LANES / fma2 / 1e9,
	       SM_CLOCKS * ISSUE_LANES / ((double)k->loop / values) / 1e9);
}

/* Every kernel (.text.*) of the cubin at path, printed in detail, or as a
 * table row of name's when name is not NULL. 0, or -1 (said). */
static int cubin(const char *path, const char *name, int values)
{
	size_t size;
	unsigned char *buf = slurp(path, &size);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Shdr *sh;
	const char *names;
	const unsigned char *info = NULL;
	size_t info_size = 0;
	int found = 0;

	if (!buf)
		return -1;
	if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff + (uint64_t)eh->e_shnum *
	    sizeof *sh > size || eh->e_shstrndx >= eh->e_shnum) {
		fprintf(stderr, "%s: not a 64-bit ELF cubin\n", path);
		free(buf);
		return -1;
	}
	sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	names = (const char *)buf + sh[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++)
		if (strcmp(names + sh[i].sh_name, ".nv.info") == 0 &&
		    sh[i].sh_offset + sh[i].sh_size <= size) {
			info = buf + sh[i].sh_offset;
			info_size = sh[i].sh_size;
		}
	if (!name)
		printf("%s\n", path);
	for (int i = 0; i < eh->e_shnum; i++) {
		const char *sname = names + sh[i].sh_name;
		struct kernel k = { .name = sname + 6 };

		if (strncmp(sname, ".text.", 6) != 0 || sh[i].sh_offset + sh[i].sh_size > size)
			continue;
		per_value(&k, (const uint64_t *)(buf + sh[i].sh_offset), (long)(sh[i].sh_size / 16));
		k.regs = info ? nv_info(info, info_size, EIATTR_REGCOUNT, sh[i].sh_info) : -1;
		k.frame = info ? nv_info(info, info_size, EIATTR_FRAME_SIZE, sh[i].sh_info) : -1;
		if (!name)
			print_loop(&k);
		else if (k.loop)
			print_row(&k, name, values);
		found |= k.loop > 0;
	}
	free(buf);
	if (name && !found)
		fprintf(stderr, "%s: no loop of %d or more\n", path, BIG_LOOP);
	return name && !found ? -1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: sass-count FILE.cubin...\n"
		"       sass-count --table VARIANT FILE.cubin [VARIANT FILE.cubin...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t v;
	int rc = 0;

	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "--table") != 0) {
		for (int i = 1; i < argc; i++)
			rc |= cubin(argv[i], NULL, 1) ? 1 : 0;
		return rc;
	}
	if (argc < 4 || argc % 2)
		return usage();
	for (int i = 2; i < argc; i += 2) /* every number, before a row is printed */
		if (parse_u64(argv[i], 0, UINT32_MAX, &v) || !gpu_variant_label((unsigned)v)) {
			fprintf(stderr, "sass-count: %s: no variant of that number\n", argv[i]);
			return 2;
		}
	printf("| variant | per value | integer ALU | FMA pipe | IMAD.HI | op36 | registers "
	       "| spills | ALU bound | FMA bound | issue bound |\n"
	       "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (int i = 2; i < argc; i += 2) {
		parse_u64(argv[i], 0, UINT32_MAX, &v);
		rc |= cubin(argv[i + 1], gpu_variant_label((unsigned)v),
			    GPU_PER_THREAD_OF(v)) ? 1 : 0;
	}
	return rc;
}
