# cuzk build helpers. `make cuda` builds the CUDA library (needs nvcc).
NVCC      ?= nvcc
CUDA_ARCH ?= -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90
# No -lineinfo: ptxas 11.8 crashes on the out-of-line doublings (cuda/ec/g1.cuh) with it.
NVFLAGS   ?= -O3 -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC --threads 2
BIN       ?= bin
# The library: one object per .cu under cuda/ (the harness in cuda/test aside).
CUDA_CU   := $(filter-out cuda/test/%,$(wildcard cuda/*.cu cuda/*/*.cu))
CUDA_HDR  := cuda/cuzk.h $(filter-out cuda/test/%,$(wildcard cuda/*.hpp cuda/*/*.hpp cuda/*/*.cuh))
cuda_objs  = $(patsubst cuda/%.cu,$(1)/obj/%.o,$(CUDA_CU))

.PHONY: all cuda cuda-test cuda-portable cuda-host-check cuda-fp52 go-test-bin clean

all: cuda

cuda: $(BIN)/libcuzk_cuda.so

$(BIN)/obj/%.o: cuda/%.cu $(CUDA_HDR)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c -o $@ $<

$(BIN)/libcuzk_cuda.so: $(call cuda_objs,$(BIN))
	$(NVCC) $(NVFLAGS) -shared -o $@ $^

# Standalone GPU harness: checks kernels against host references and times them.
cuda-test: $(BIN)/cuzk_harness

$(BIN)/cuzk_harness: cuda/test/harness.cu $(wildcard cuda/test/*.cuh) $(BIN)/libcuzk_cuda.so
	@mkdir -p $(BIN)
	$(NVCC) $(NVFLAGS) -Xcompiler -fopenmp -o $@ cuda/test/harness.cu -L$(BIN) -lcuzk_cuda -Xlinker -rpath,'$$ORIGIN' -lgomp

# The FP64-pipe Fp product against the library's (cuda/ff/fp52.cuh): its host
# check runs anywhere (bin/fp52_bench host), the device check and rates on a GPU.
cuda-fp52:
	@mkdir -p $(BIN)
	$(NVCC) $(NVFLAGS) -Xcompiler -frounding-math -o $(BIN)/fp52_bench cuda/test/fp52_bench.cu

# Go test binary of device/cuda (runs where the library and a GPU are).
go-test-bin:
	@mkdir -p $(BIN)
	CGO_ENABLED=0 go test -c -o $(BIN)/cuda.test ./device/cuda

clean:
	rm -f $(BIN)/libcuzk_cuda.so $(BIN)/cuzk_harness $(BIN)/cuda.test $(BIN)/field_host $(BIN)/g2_host $(BIN)/g2_host_wide $(BIN)/fixed_base_host $(BIN)/fp52_host $(BIN)/fp52_bench
	rm -rf $(BIN)/obj $(BIN)/portable $(BIN)/local

# Host checks: the device's Montgomery product (carry flag emulated), Fp2 and
# G2 against gnark-crypto's vectors (portable and device forms), the
# fixed-base kernels' bodies, the FP64-pipe product (ff/fp52.cuh).
cuda-host-check:
	@mkdir -p $(BIN)
	$(CXX) -O2 -std=c++17 -Wno-unknown-pragmas -o $(BIN)/field_host cuda/test/field_host.cc
	$(BIN)/field_host
	$(CXX) -O2 -std=c++17 -Wno-unknown-pragmas -o $(BIN)/g2_host cuda/test/g2_host.cc
	$(BIN)/g2_host cuda/test/testdata/g2_vectors.txt
	$(CXX) -O2 -std=c++17 -Wno-unknown-pragmas -DCUZK_HOST_WIDE -o $(BIN)/g2_host_wide cuda/test/g2_host.cc
	$(BIN)/g2_host_wide cuda/test/testdata/g2_vectors.txt
	$(CXX) -O2 -std=c++17 -Wno-unknown-pragmas -o $(BIN)/fixed_base_host cuda/test/fixed_base_host.cc
	$(BIN)/fixed_base_host
	$(CXX) -O2 -std=c++17 -Wno-unknown-pragmas -frounding-math -o $(BIN)/fp52_host cuda/test/fp52_host.cc
	$(BIN)/fp52_host

# Variant with the portable CIOS product on the device (the baseline of the
# wide product), in $(BIN)/portable.
cuda-portable: $(BIN)/portable/cuzk_harness

$(BIN)/portable/obj/%.o: cuda/%.cu $(CUDA_HDR)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -DCUZK_PORTABLE_MUL -c -o $@ $<

$(BIN)/portable/libcuzk_cuda.so: $(call cuda_objs,$(BIN)/portable)
	$(NVCC) $(NVFLAGS) -shared -o $@ $^

$(BIN)/portable/cuzk_harness: cuda/test/harness.cu $(BIN)/portable/libcuzk_cuda.so
	$(NVCC) $(NVFLAGS) -DCUZK_PORTABLE_MUL -Xcompiler -fopenmp -o $@ cuda/test/harness.cu -L$(BIN)/portable -lcuzk_cuda -Xlinker -rpath,'$$ORIGIN' -lgomp
