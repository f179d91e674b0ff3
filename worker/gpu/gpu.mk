# The GPU worker (worker/gpu/), included by the GNUmakefile after its `all`
# rule; its lab, gpu-check among it, is bench/gpu/lab.mk. Its logic is
# plain C and always built, once per kernel variant, so check_gpu_logic
# tests every variant on any machine. The CUDA kernels need nvcc, looked
# up on PATH: `make NVCC=/path/to/nvcc` names one, `make NVCC=` builds
# without them (as make sanitize does). The .cu rules run nvcc with its
# own host compiler, never $(CC).

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

GPU_HOST_OBJS := worker/gpu/gpu_host_all.o worker/gpu/gpu_walk.o worker/gpu/gpu_variant.o \
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
# The static runtime: the binaries run on a device's machine as built here.
CUDA_LIBS = -L$(CUDA_LIBDIR) -lcudart_static -ldl -lrt -lpthread -lstdc++
GPU_OBJS := worker/gpu/gpu.o worker/gpu/gpu_walk.o worker/gpu/gpu_variant.o \
	$(foreach v,$(GPU_ALL_VARIANTS),worker/gpu/gpu_kernel-$(v).o)

all: $(BIN)/worker/revhash-gpu

$(B)/worker/gpu/gpu.o: worker/gpu/gpu.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCC_FLAGS) $(GPU_TABLE_FLAGS) -c -o $@ $<

# Each variant's kernel, built with the flags written here.
$(B)/worker/gpu/gpu_kernel-%.o: worker/gpu/gpu_kernel.cu worker/gpu/gpu.mk
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCC_FLAGS) -DGPU_VARIANT=$* -c -o $@ $<

$(BIN)/worker/revhash-gpu: $(call objs,worker/gpu/device_cuda.o $(GPU_OBJS) $(GPU_WORKER_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LIBS) $(LIBS)

else
all: gpu-skipped

gpu-skipped:
	@echo "$(GPU_SKIPPED): building without the GPU worker"

.PHONY: gpu-skipped
endif
