# The GPU search (worker/gpu/), included by the GNUmakefile after its `all`
# rule. Its logic is plain C and always built, once per kernel variant, so
# check_gpu_logic tests every variant on any machine. The CUDA kernels and
# gpu-check, which runs them against the reference on a device, need nvcc,
# looked up on PATH: `make NVCC=/path/to/nvcc` names one, `make NVCC=`
# builds without them (as make sanitize does). The .cu rules run nvcc with
# its own host compiler, never $(CC).

# The kernel variants, side by side in one binary: bits of GPU_VARIANT
# (worker/gpu/gpu_variant.h names them), the plain one first.
GPU_VARIANTS := 0 1 2 4 8 7 15 16 17 23 48 55 87 119 215 343 471
GPU_VARIANT_LIST := $(foreach v,$(GPU_VARIANTS),X($(v)))

GPU_HOST_OBJS := worker/gpu/gpu_host_all.o worker/gpu/gpu_walk.o \
	$(foreach v,$(GPU_VARIANTS),worker/gpu/gpu_host-$(v).o)

$(B)/worker/gpu/gpu_host-%.o: worker/gpu/gpu_host.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DGPU_VARIANT=$* -c -o $@ $<
$(B)/worker/gpu/gpu_host_all.o: KFLAGS := -DGPU_VARIANT_LIST='$(GPU_VARIANT_LIST)'
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
ALL_NVCC_FLAGS = -std=c++17 $(NVCC_ARCH) -I. -Xcompiler -Wall,-Wextra,-Werror \
	-Werror all-warnings -MMD -MP $(NVCC_FLAGS)
# The static runtime: gpu-check runs on a device's machine as built here.
CUDA_LIBS = -L$(CUDA_LIBDIR) -lcudart_static -ldl -lrt -lpthread -lstdc++
GPU_OBJS := worker/gpu/gpu.o worker/gpu/gpu_walk.o \
	$(foreach v,$(GPU_VARIANTS),worker/gpu/gpu_kernel-$(v).o)

all: $(BIN)/gpu-check $(BIN)/worker/revhash-gpu

$(B)/worker/gpu/gpu.o: worker/gpu/gpu.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCC_FLAGS) -DGPU_VARIANT_LIST='$(GPU_VARIANT_LIST)' -c -o $@ $<

$(B)/worker/gpu/gpu_kernel-%.o: worker/gpu/gpu_kernel.cu
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
# (worker/gpu/sass-count), with ptxas's register counts.
gpu-sass: $(B)/worker/gpu/sass-count
	@for v in $(GPU_VARIANTS); do \
		$(NVCC) -std=c++17 -I. -arch=sm_90 $(NVCC_FLAGS) -cubin -Xptxas -v -DGPU_VARIANT=$$v \
			-o $(B)/worker/gpu/gpu_kernel-$$v.cubin worker/gpu/gpu_kernel.cu 2>&1 | \
			grep -o 'Used [0-9]* registers' | sed "s/^/variant $$v: /"; \
	done
	@$(B)/worker/gpu/sass-count $(foreach v,$(GPU_VARIANTS),$(B)/worker/gpu/gpu_kernel-$(v).cubin)

$(B)/worker/gpu/sass-count: $(call objs,worker/gpu/sass-count.o)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^

# What a GPU machine needs beside the binaries (scripts/gpu-proof.sh): the
# cubins and sass-count, and the libcrypto the binaries link, for a machine
# that has none.
gpu-carry: all gpu-sass
	rm -rf gpu-carry
	mkdir -p gpu-carry/sass gpu-carry/lib
	cp $(B)/worker/gpu/gpu_kernel-*.cubin $(B)/worker/gpu/sass-count gpu-carry/sass/
	cp -L $$(ldd $(BIN)/master/master | awk '/libcrypto/ { print $$3 }') gpu-carry/lib/
	du -sh gpu-carry

.PHONY: gpu-sass gpu-carry
else
all: gpu-skipped

gpu-skipped:
	@echo "$(GPU_SKIPPED): building without the GPU worker"

gpu-sass gpu-carry: gpu-skipped

.PHONY: gpu-skipped gpu-sass gpu-carry
endif
