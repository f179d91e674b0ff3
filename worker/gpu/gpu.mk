# The GPU worker (worker/gpu/), included by the GNUmakefile after its `all`
# rule; its lab, gpu-check among it, is bench/gpu/lab.mk. Its logic is
# plain C and always built, once per kernel variant, so check_gpu_logic
# tests every variant on any machine. The CUDA kernels need nvcc, looked
# up on PATH: `make NVCC=/path/to/nvcc` names one, `make NVCC=` builds
# without them (as make sanitize does). The .cu rules run nvcc with its
# own host compiler, never $(CC).

include worker/gpu/variants.mk
# The one switch between the product and the lab: the GPU worker and
# gpu-check hold the shipped variants (GPU_VARIANTS=shipped, the
# default), or all three lists (GPU_VARIANTS=all), which a device call
# builds to check and time them (scripts/gpu-proof.sh). The host build of
# the variants, which the tests and the stand-ins run, always holds all.
GPU_VARIANTS ?= shipped
ifeq ($(filter shipped all,$(GPU_VARIANTS)),)
$(error GPU_VARIANTS=$(GPU_VARIANTS): shipped (the default) or all)
endif
ifneq ($(firstword $(GPU_SHIPPED)),0)
$(error GPU_SHIPPED: base (0) first, the reference the others are timed against)
endif
GPU_EVERY := $(GPU_SHIPPED) $(GPU_TIMED) $(GPU_TRIAL)
GPU_BUILT := $(if $(filter all,$(GPU_VARIANTS)),$(GPU_EVERY),$(GPU_SHIPPED))
# A table of variants (gpu_table.h, in gpu.cu and gpu_standin.c) of list
# $(1): X(n) for each, how many of the first are shipped, and how many
# --kernel auto measures (all but those on trial).
gpu_table = -DGPU_VARIANT_LIST='$(foreach v,$(1),X($(v)))' \
	-DGPU_VARIANTS_SHIPPED=$(words $(GPU_SHIPPED)) \
	-DGPU_VARIANTS_AUTO=$(words $(filter-out $(GPU_TRIAL),$(1)))

GPU_HOST_OBJS := worker/gpu/gpu_standin.o worker/gpu/gpu_walk.o worker/gpu/gpu_variant.o \
	$(foreach v,$(GPU_EVERY),worker/gpu/gpu_host-$(v).o)

$(B)/worker/gpu/gpu_host-%.o: worker/gpu/gpu_host.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DGPU_VARIANT=$* -c -o $@ $<
$(B)/worker/gpu/gpu_standin.o: KFLAGS = $(call gpu_table,$(GPU_EVERY))
# The tables of variants follow the lists.
$(B)/worker/gpu/gpu_standin.o $(B)/worker/gpu/gpu.o: worker/gpu/gpu.mk worker/gpu/variants.mk

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
	$(foreach v,$(GPU_BUILT),worker/gpu/gpu_kernel-$(v).o)

all: $(BIN)/worker/revhash-gpu

# The device's table follows the switch: a file that holds its value,
# rewritten only when the value changes, so that a build with the other
# one rebuilds the table and relinks the binaries.
GPU_SWITCH := $(B)/worker/gpu/variants-built
$(shell mkdir -p $(dir $(GPU_SWITCH)); [ "$$(cat $(GPU_SWITCH) 2>/dev/null)" = $(GPU_VARIANTS) ] || \
	echo $(GPU_VARIANTS) >$(GPU_SWITCH))
$(B)/worker/gpu/gpu.o: worker/gpu/gpu.cu $(GPU_SWITCH)
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCC_FLAGS) $(call gpu_table,$(GPU_BUILT)) -c -o $@ $<

# Each variant's kernel, built with the flags written here.
$(B)/worker/gpu/gpu_kernel-%.o: worker/gpu/gpu_kernel.cu worker/gpu/gpu.mk
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCC_FLAGS) -DGPU_VARIANT=$* -c -o $@ $<

$(BIN)/worker/revhash-gpu: $(call objs,worker/gpu/device_cuda.o $(GPU_OBJS) $(GPU_WORKER_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LIBS) $(WORKER_LIBS) $(LIBS)

else
all: gpu-skipped

gpu-skipped:
	@echo "$(GPU_SKIPPED): building without the GPU worker"

.PHONY: gpu-skipped
endif
