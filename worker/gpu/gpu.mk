# The GPU search (worker/gpu/), included by the GNUmakefile after its `all`
# rule. Its logic is plain C and always built, once per kernel variant, so
# check_gpu_logic tests every variant on any machine. The CUDA kernels and
# gpu-check, which runs them against the reference on a device, need nvcc,
# looked up on PATH: `make NVCC=/path/to/nvcc` names one, `make NVCC=`
# builds without them (as make sanitize does). The .cu rules run nvcc with
# its own host compiler, never $(CC).

# The kernel variants, side by side in one binary: bits of GPU_VARIANT
# (worker/gpu/gpu_variant.h names them), the plain one first. The GPU
# worker measures these at start and takes the fastest (--kernel auto).
GPU_VARIANTS := 0 1 2 4 8 7 15 16 17 23 48 55 87 119 215 343 471
# Variants on trial: built, checked (check_gpu_logic, gpu-check) and timed
# (gpu-check --bench) with the others, and taken by --kernel NAME, but not
# measured by --kernel auto until a device has checked and timed them.
# Moving one to GPU_VARIANTS ships it.
GPU_TRIAL_VARIANTS := 599 1111 4183 8279 12375 2135 1623 5719 9815 13911 3671 11863
GPU_ALL_VARIANTS := $(GPU_VARIANTS) $(GPU_TRIAL_VARIANTS)
GPU_VARIANT_LIST := $(foreach v,$(GPU_ALL_VARIANTS),X($(v)))
# The tables of variants (gpu.cu, gpu_host_all.c): all of them, and how
# many of the first --kernel auto measures.
GPU_TABLE_FLAGS = -DGPU_VARIANT_LIST='$(GPU_VARIANT_LIST)' -DGPU_VARIANTS_AUTO=$(words $(GPU_VARIANTS))

GPU_HOST_OBJS := worker/gpu/gpu_host_all.o worker/gpu/gpu_walk.o \
	$(foreach v,$(GPU_ALL_VARIANTS),worker/gpu/gpu_host-$(v).o)

$(B)/worker/gpu/gpu_host-%.o: worker/gpu/gpu_host.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DGPU_VARIANT=$* -c -o $@ $<
$(B)/worker/gpu/gpu_host_all.o: KFLAGS = $(GPU_TABLE_FLAGS)
# The tables of variants follow the list written here.
$(B)/worker/gpu/gpu_host_all.o $(B)/worker/gpu/gpu.o: worker/gpu/gpu.mk

ifeq ($(origin NVCC),undefined)
NVCC := $(shell command -v nvcc 2>/dev/null)
GPU_SKIPPED := nvcc not found
else
GPU_SKIPPED := NVCC is empty
endif

ifneq ($(NVCC),)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_LIBDIR ?= $(CUDA_HOME)/lib64
# Machine code for the A100 (sm_80), the RTX 40 series (sm_89) and the
# H100 (sm_90), and sm_80's PTX for other devices to compile at load.
NVCC_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_89,code=sm_89 \
	-gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=compute_80
NVCC_FLAGS ?= -O3 -lineinfo
# The fatbins compressed (zstd, read by the driver that CUDA 13's runtime
# needs anyway): 29 variants in 3 machine codes and PTX took 25 MB in each
# of revhash-gpu and gpu-check, more than a device call may carry.
ALL_NVCC_FLAGS = -std=c++17 $(NVCC_ARCH) -I. -Xcompiler -Wall,-Wextra,-Werror \
	-Werror all-warnings -MMD -MP -compress-mode=size $(NVCC_FLAGS)
# The static runtime: gpu-check runs on a device's machine as built here.
CUDA_LIBS = -L$(CUDA_LIBDIR) -lcudart_static -ldl -lrt -lpthread -lstdc++
GPU_OBJS := worker/gpu/gpu.o worker/gpu/gpu_walk.o \
	$(foreach v,$(GPU_ALL_VARIANTS),worker/gpu/gpu_kernel-$(v).o)

all: $(BIN)/gpu-check $(BIN)/worker/revhash-gpu

$(B)/worker/gpu/gpu.o: worker/gpu/gpu.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCC_FLAGS) $(GPU_TABLE_FLAGS) -c -o $@ $<

# Each variant's kernel, built with the flags written here.
$(B)/worker/gpu/gpu_kernel-%.o: worker/gpu/gpu_kernel.cu worker/gpu/gpu.mk
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCC_FLAGS) -DGPU_VARIANT=$* -c -o $@ $<

$(BIN)/worker/revhash-gpu: $(call objs,worker/gpu/device_cuda.o $(GPU_OBJS) $(GPU_WORKER_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LIBS) $(WORKER_LIBS) $(LIBS)

$(BIN)/gpu-check: $(call objs,worker/gpu/gpu-check.o worker/gpu/gpu_bench.o worker/gpu/gpu_check.o \
	worker/search_cases.o $(GPU_OBJS) \
	$(KERNEL_OBJS) $(PROTO_OBJS) $(LIB_OBJS))
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LIBS) $(LIBS)

# The sm_90 machine code of each variant, and what its loop runs per value
# (worker/gpu/sass-count): each loop by opcode, then a table of every
# variant's pipes per value, registers, spills and the bounds they set
# (also in sass-table.md beside the cubins). A variant's name and values a
# thread come from gpu_variant.h, through the preprocessor.
GPU_SASS := $(B)/worker/gpu/sass
gpu-sass: $(B)/worker/gpu/sass-count
	@mkdir -p $(GPU_SASS)
	@for v in $(GPU_ALL_VARIANTS); do \
		$(NVCC) -std=c++17 -I. -arch=sm_90 $(NVCC_FLAGS) -cubin -DGPU_VARIANT=$$v \
			-o $(GPU_SASS)/gpu_kernel-$$v.cubin worker/gpu/gpu_kernel.cu || exit 1; \
	done
	@$(B)/worker/gpu/sass-count $(foreach v,$(GPU_ALL_VARIANTS),$(GPU_SASS)/gpu_kernel-$(v).cubin)
	@$(B)/worker/gpu/sass-count --table $$(for v in $(GPU_ALL_VARIANTS); do \
		printf '#include "worker/gpu/gpu_variant.h"\nGPU_VARIANT_NAME GPU_PER_THREAD\n' | \
			$(CC) -E -P -I. -DGPU_VARIANT=$$v -x c - | tr -d '"' | \
			while read -r name per; do echo "$$name $$(($$per)) $(GPU_SASS)/gpu_kernel-$$v.cubin"; done; \
	done) >$(GPU_SASS)/sass-table.md
	@cat $(GPU_SASS)/sass-table.md

$(B)/worker/gpu/sass-count: $(call objs,worker/gpu/sass-count.o)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^

# What a GPU machine needs beside the binaries (scripts/gpu-proof.sh): the
# cubins and their table, sass-count, and the libcrypto the binaries link,
# for a machine that has none. Then what a device call carries, GPU_CARRY
# (docs/gpu.md), and its size: at most 64 MiB may travel.
GPU_CARRY := master/master revhash-bench kernel-bench gpu-check worker/revhash-gpu gpu-carry
gpu-carry: all gpu-sass
	rm -rf gpu-carry
	mkdir -p gpu-carry/sass gpu-carry/lib
	cp $(foreach v,$(GPU_ALL_VARIANTS),$(GPU_SASS)/gpu_kernel-$(v).cubin) \
		$(GPU_SASS)/sass-table.md $(B)/worker/gpu/sass-count gpu-carry/sass/
	cp -L $$(ldd $(BIN)/master/master | awk '/libcrypto/ { print $$3 }') gpu-carry/lib/
	@du -cbL $(GPU_CARRY) | awk 'END { printf "carry: $(GPU_CARRY): %.1f MiB of 64\n", \
		$$1 / 1048576; if ($$1 > 64 * 1048576) { print "gpu-carry: over 64 MiB"; exit 1 } }'

.PHONY: gpu-sass gpu-carry
else
all: gpu-skipped

gpu-skipped:
	@echo "$(GPU_SKIPPED): building without the GPU worker"

gpu-sass gpu-carry: gpu-skipped

.PHONY: gpu-skipped gpu-sass gpu-carry
endif
