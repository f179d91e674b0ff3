# The GPU lab (bench/gpu/), included by the GNUmakefile after the GPU
# worker's worker/gpu/gpu.mk, whose objects it links: gpu-check, which runs
# the GPU search on a device against the reference and times its variants;
# its stand-in build, gpu-check over the host build of the variants; the
# sm_90 machine code of each variant counted (gpu-sass); and what a device
# call carries (gpu-carry, docs/gpu.md).

GPU_CHECK_OBJS := bench/gpu/gpu-check.o bench/stats.o \
	worker/search_cases.o $(KERNEL_OBJS) $(PROTO_OBJS) $(LIB_OBJS)

# gpu-check over the host build of the GPU variants (worker/gpu/gpu_standin.c):
# scripts/gpu-proof.sh --dry-run runs it where there is no device.
$(BIN)/gpu-check-standin: $(call objs,$(GPU_CHECK_OBJS) $(GPU_HOST_OBJS))
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

ifneq ($(NVCC),)
all: $(BIN)/gpu-check

$(BIN)/gpu-check: $(call objs,$(GPU_CHECK_OBJS) $(GPU_OBJS))
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LIBS) $(LIBS)

# The sm_90 machine code of each variant, and what its loop runs per value
# (bench/gpu/sass-count): each loop by opcode, then a table of every
# variant's pipes per value, registers, spills and the bounds they set
# (also in sass-table.md beside the cubins).
GPU_SASS := $(B)/bench/gpu/sass
gpu-sass: $(B)/bench/gpu/sass-count
	@mkdir -p $(GPU_SASS)
	@for v in $(GPU_BUILT); do \
		$(NVCC) -std=c++17 -I. -arch=sm_90 $(NVCC_FLAGS) -cubin -DGPU_VARIANT=$$v \
			-o $(GPU_SASS)/gpu_kernel-$$v.cubin worker/gpu/gpu_kernel.cu || exit 1; \
	done
	@$(B)/bench/gpu/sass-count $(foreach v,$(GPU_BUILT),$(GPU_SASS)/gpu_kernel-$(v).cubin)
	@$(B)/bench/gpu/sass-count --table $(foreach v,$(GPU_BUILT),$(v) \
		$(GPU_SASS)/gpu_kernel-$(v).cubin) >$(GPU_SASS)/sass-table.md
	@cat $(GPU_SASS)/sass-table.md

$(B)/bench/gpu/sass-count: $(call objs,bench/gpu/sass-count.o worker/gpu/gpu_variant.o lib/parse.o)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^

# What a GPU machine needs beside the binaries (scripts/gpu-proof.sh): the
# cubins and their table, sass-count, the libcrypto the binaries link, and
# jq (which reads the JSON there) with its libraries, for a machine that
# has none. Then what a device call carries, GPU_CARRY
# (docs/gpu.md), and its size: at most 64 MiB may travel. A device call
# checks and times every variant: make GPU_VARIANTS=all gpu-carry.
GPU_CARRY := master/master revhash-bench kernel-bench gpu-check worker/revhash-gpu gpu-carry
GPU_CARRY_BUILD = GPU_VARIANTS=$(GPU_VARIANTS), $(words $(GPU_BUILT)) variants
gpu-carry: all gpu-sass
	rm -rf gpu-carry
	mkdir -p gpu-carry/sass gpu-carry/lib gpu-carry/bin
	cp $(foreach v,$(GPU_BUILT),$(GPU_SASS)/gpu_kernel-$(v).cubin) \
		$(GPU_SASS)/sass-table.md $(B)/bench/gpu/sass-count gpu-carry/sass/
	cp -L $$(command -v jq) gpu-carry/bin/
	cp -L $$(ldd $(BIN)/master/master $$(command -v jq) | \
		awk '/libcrypto|libjq|libonig/ { print $$3 }' | sort -u) gpu-carry/lib/
	@du -cbL $(GPU_CARRY) | awk 'END { printf "carry of $(GPU_CARRY_BUILD): $(GPU_CARRY): " \
		"%.1f MiB of 64\n", $$1 / 1048576; if ($$1 > 64 * 1048576) { print "gpu-carry: over 64 MiB"; exit 1 } }'
else
gpu-sass gpu-carry: gpu-skipped
endif

.PHONY: gpu-sass gpu-carry
