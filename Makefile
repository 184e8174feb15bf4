# cuzk build helpers. `make cuda` builds the CUDA library (needs nvcc).
NVCC      ?= nvcc
CUDA_ARCH ?= -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90
NVFLAGS   ?= -O3 -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC -lineinfo --threads 2
BIN       ?= bin
CUDA_SRC  := cuda/cuzk.cu cuda/cuzk.h cuda/field.cuh cuda/ec.cuh cuda/ntt.cuh cuda/msm.cuh

.PHONY: all cuda cuda-test cuda-eo cuda-ptx go-test-bin clean

all: cuda

cuda: $(BIN)/libcuzk_cuda.so

$(BIN)/libcuzk_cuda.so: $(CUDA_SRC)
	@mkdir -p $(BIN)
	$(NVCC) $(NVFLAGS) -shared -o $@ cuda/cuzk.cu

# Standalone GPU harness: checks kernels against host references and times them.
cuda-test: $(BIN)/cuzk_harness

$(BIN)/cuzk_harness: cuda/test/harness.cu $(BIN)/libcuzk_cuda.so
	@mkdir -p $(BIN)
	$(NVCC) $(NVFLAGS) -Xcompiler -fopenmp -o $@ cuda/test/harness.cu -L$(BIN) -lcuzk_cuda -Xlinker -rpath,'$$ORIGIN' -lgomp

# Go test binary of device/cuda (runs where the library and a GPU are).
go-test-bin:
	@mkdir -p $(BIN)
	CGO_ENABLED=0 go test -c -o $(BIN)/cuda.test ./device/cuda

clean:
	rm -f $(BIN)/libcuzk_cuda.so $(BIN)/cuzk_harness $(BIN)/cuda.test

# Variant with the even/odd-row Montgomery product for Fr and Fp, in $(BIN)/eo.
cuda-eo: $(BIN)/eo/cuzk_harness

$(BIN)/eo/libcuzk_cuda.so: $(CUDA_SRC)
	@mkdir -p $(BIN)/eo
	$(NVCC) $(NVFLAGS) -DCUZK_EO_MUL -shared -o $@ cuda/cuzk.cu

$(BIN)/eo/cuzk_harness: cuda/test/harness.cu $(BIN)/eo/libcuzk_cuda.so
	$(NVCC) $(NVFLAGS) -DCUZK_EO_MUL -Xcompiler -fopenmp -o $@ cuda/test/harness.cu -L$(BIN)/eo -lcuzk_cuda -Xlinker -rpath,'$$ORIGIN' -lgomp

# Variant with the PTX carry-chain Montgomery product, in $(BIN)/ptx.
cuda-ptx: $(BIN)/ptx/cuzk_harness

$(BIN)/ptx/libcuzk_cuda.so: $(CUDA_SRC)
	@mkdir -p $(BIN)/ptx
	$(NVCC) $(NVFLAGS) -DCUZK_PTX_MUL -shared -o $@ cuda/cuzk.cu

$(BIN)/ptx/cuzk_harness: cuda/test/harness.cu $(BIN)/ptx/libcuzk_cuda.so
	$(NVCC) $(NVFLAGS) -DCUZK_PTX_MUL -Xcompiler -fopenmp -o $@ cuda/test/harness.cu -L$(BIN)/ptx -lcuzk_cuda -Xlinker -rpath,'$$ORIGIN' -lgomp
