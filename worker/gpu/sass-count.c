/* sass-count: what the sm_90 machine code of a kernel runs per hashed
 * value, counted from the cubin itself, where no disassembler is at hand
 * (cuobjdump comes with a CUDA driver install, not with nvcc alone).
 *
 *   sass-count FILE.cubin...
 *
 * Volta and later encode an instruction in 128 bits, its opcode in bits
 * 0..8 and the form of its operands in bits 9..11 (as Mesa's open encoder
 * for these GPUs writes them); a branch's target is an offset in units of
 * 4 bytes, in bits 16..23 and 34..81, from the next instruction. A
 * backward branch closes a loop; the kernel's per-value loop is a large
 * one. The kernel has two (gpu_search.h): the poller's, which also reads
 * host memory, and the one every other thread runs, the one with the
 * fewest loads, which is the one that counts.
 *
 * Checked against cuobjdump's disassembly of the kernel as it was before
 * the variants came (CUDA 13.0): 513 SHF, 288 LOP3 and 180 IADD3, 986
 * instructions on the integer ALU pipe, in a loop of 1,123 per value; this
 * tool counts the same, and 1,124 with the loop's closing branch. Opcodes
 * it has no name for are listed by number; op36 is an integer add that
 * sm_90 code uses and whose pipe is not known here. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPS 512
#define BIG_LOOP 256 /* instructions: a loop this long is a per-value loop */

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
	{ 0x027, "IMAD.HI", 'f' }, { 0x036, "op36", '?' }, { 0x090, "UIADD3", 'u' },
	{ 0x092, "ULOP3", 'u' }, { 0x099, "USHF", 'u' },  { 0x0b9, "ULDC", 'u' },
	{ 0x119, "S2R", 'c' },   { 0x141, "BSYNC", 'c' }, { 0x145, "BSSY", 'c' },
	{ 0x147, "BRA", 'c' },   { 0x14d, "EXIT", 'c' },  { 0x181, "LDG", 'm' },
	{ 0x182, "LDC", 'm' },   { 0x186, "STG", 'm' },   { 0x1a8, "ATOMG", 'm' },
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

static void print_loop(const char *kernel, long from, long to, const unsigned n[OPS])
{
	unsigned pipe[128] = { 0 };

	printf("%s: loop of %ld instructions:", kernel, to - from + 1);
	for (unsigned op = 0; op < OPS; op++) {
		const struct op_name *o = named(op);

		if (!n[op])
			continue;
		pipe[o ? (unsigned char)o->pipe : '?'] += n[op];
		if (o)
			printf(" %s %u", o->name, n[op]);
		else
			printf(" op%#x %u", op, n[op]);
	}
	printf("\n%s: integer ALU pipe %u, FMA pipe %u (op36 apart: %u), uniform %u, "
	       "memory %u, control %u\n", kernel, pipe['a'], pipe['f'], n[0x036],
	       pipe['u'], pipe['m'], pipe['c']);
}

/* The big loop with the fewest loads in code[0..len). */
static void per_value(const char *kernel, const uint64_t *code, long len)
{
	unsigned n[OPS];
	long best_from = -1, best_to = -1;
	int best_loads = 1 << 30;

	for (long i = 0; i < len; i++) {
		long t;
		int loads;

		if ((code[2 * i] & 0x1ff) != 0x147)
			continue;
		t = target(i, code[2 * i], code[2 * i + 1]);
		if (t < 0 || t > i || i - t + 1 < BIG_LOOP)
			continue;
		loads = count(code, t, i, n);
		if (loads < best_loads) {
			best_loads = loads;
			best_from = t;
			best_to = i;
		}
	}
	if (best_from < 0) {
		printf("%s: %ld instructions, no loop of %d or more\n", kernel, len, BIG_LOOP);
		return;
	}
	count(code, best_from, best_to, n);
	printf("%s: %ld instructions in all\n", kernel, len);
	print_loop(kernel, best_from, best_to, n);
}

/* Every .text.* section of the cubin at path. 0, or -1 (said). */
static int cubin(const char *path)
{
	size_t size;
	unsigned char *buf = slurp(path, &size);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Shdr *sh;
	const char *names;

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
	printf("%s\n", path);
	for (int i = 0; i < eh->e_shnum; i++) {
		const char *name = names + sh[i].sh_name;

		if (strncmp(name, ".text.", 6) == 0 && sh[i].sh_offset + sh[i].sh_size <= size)
			per_value(name + 6, (const uint64_t *)(buf + sh[i].sh_offset),
				  (long)(sh[i].sh_size / 16));
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: sass-count FILE.cubin...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		rc |= cubin(argv[i]) ? 1 : 0;
	return rc;
}
