# The GPU kernel's variants (bits of GPU_VARIANT: worker/gpu/gpu_variant.h
# names them), each in one of three lists. Only the tables of variants
# (gpu.cu, gpu_standin.c) depend on this file: moving a variant from one
# list to another rebuilds no kernel.

# Shipped: what the GPU worker holds in the default build: base first, the
# reference, then the fastest on each device measured (docs/gpu.md).
GPU_SHIPPED := 0 87
# Timed on a device and slower there than the shipped.
GPU_TIMED := 1 2 4 8 7 15 16 17 23 48 55 119 215
# On trial: checked on the host (check_gpu_logic), not yet on a device.
# --kernel auto leaves them out; --kernel NAME takes them.
GPU_TRIAL := 343 471 599 1111 4183 8279 12375 2135 1623 5719 9815 13911 3671 11863
