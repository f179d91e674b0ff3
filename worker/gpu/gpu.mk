# The GPU search (worker/gpu/), included by the GNUmakefile after its `all`
# rule. Its logic is plain C and always built, so check_gpu_logic tests it
# on any machine. The CUDA kernel and gpu-check, which runs it against the
# reference on a device, need nvcc, looked up on PATH: `make NVCC=/path/to/nvcc`
# names one, `make NVCC=` builds without them (as make sanitize does). The
# .cu rule runs nvcc with its own host compiler, never $(CC).

GPU_HOST_OBJS := worker/gpu/gpu_host.o worker/gpu/gpu_walk.o

ifeq ($(origin NVCC),undefined)
NVCC := $(shell command -v nvcc 2>/dev/null)
GPU_SKIPPED := nvcc not found
else
GPU_SKIPPED := NVCC is empty
endif

ifneq ($(NVCC),)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_LIBDIR ?= $(CUDA_HOME)/lib64
# sm_90 code for the H100, and its PTX for later devices to compile at load.
NVCC_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
NVCC_FLAGS ?= -O3 -lineinfo
ALL_NVCC_FLAGS = -std=c++17 $(NVCC_ARCH) -I. -Xcompiler -Wall,-Wextra,-Werror \
	-Werror all-warnings -MMD -MP $(NVCC_FLAGS)
# The static runtime: gpu-check runs on a device's machine as built here.
CUDA_LIBS = -L$(CUDA_LIBDIR) -lcudart_static -ldl -lrt -lpthread -lstdc++
GPU_OBJS := worker/gpu/gpu.o worker/gpu/gpu_walk.o

all: $(BIN)/gpu-check $(BIN)/worker/revhash-gpu

$(B)/worker/gpu/gpu.o: worker/gpu/gpu.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCC_FLAGS) -c -o $@ $<

$(BIN)/worker/revhash-gpu: $(call objs,worker/device_cuda.o $(GPU_OBJS) $(GPU_WORKER_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LIBS) $(LIBS)

$(BIN)/gpu-check: $(call objs,worker/gpu/gpu-check.o tests/search_cases.o $(GPU_OBJS) \
	$(KERNEL_OBJS) $(PROTO_OBJS) $(LIB_OBJS))
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LIBS) $(LIBS)
else
all: gpu-skipped

gpu-skipped:
	@echo "$(GPU_SKIPPED): building without the GPU worker"

.PHONY: gpu-skipped
endif
