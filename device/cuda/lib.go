package cuda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/cuzk-project/cuzk/groth16"
)

// ErrUnavailable is returned when the library or a CUDA device is missing.
var ErrUnavailable = errors.New("cuda: libcuzk_cuda.so or a CUDA device is not available")

// ErrCUDA wraps an error reported by the library.
var ErrCUDA = errors.New("cuda: library call failed")

// LibName is the library's file name.
const LibName = "libcuzk_cuda.so"

// ErrBadConfig is returned by Config.Validate.
var ErrBadConfig = errors.New("cuda: config out of range")

// Config holds a library context's switches (cuzk_config), fixed when the
// context is made. The zero value is the default; none changes a result.
type Config struct {
	// Profile times every NTT pass and MSM phase with events and
	// synchronizes after each call (overlap is lost); the totals per phase
	// go to stderr at exit. CUZK_PROFILE=1.
	Profile bool
	// RunSerial holds Run's L, A and B_G1 MSMs back until the H sequence is
	// done, for comparison. CUZK_RUN_SERIAL=1.
	RunSerial bool
	// MSMWindow forces the window of the MSMs of 2^22 points or more: 0 (by
	// size) or one of 16, 19, 20, 22, 24. CUZK_MSM_C.
	MSMWindow uint32
	// MSMSegLog: about 2^MSMSegLog first-level bucket segments per batch of
	// windows; 0 (15) or 12..20. CUZK_MSM_SEG.
	MSMSegLog uint32
	// Priority puts the context's streams at the device's greatest
	// priority: the block scheduler starts their waiting blocks before
	// another context's (a Lane's context has it).
	Priority bool
}

// Validate reports a switch out of range (the library refuses the context).
func (c Config) Validate() error {
	switch c.MSMWindow {
	case 0, 16, 19, 20, 22, 24:
	default:
		return fmt.Errorf("%w: MSMWindow %d (0, 16, 19, 20, 22 or 24)", ErrBadConfig, c.MSMWindow)
	}
	if c.MSMSegLog != 0 && (c.MSMSegLog < 12 || c.MSMSegLog > 20) {
		return fmt.Errorf("%w: MSMSegLog %d (0 or 12..20)", ErrBadConfig, c.MSMSegLog)
	}
	return nil
}

// ConfigFromEnv reads the switches from the environment variables named in
// Config; a value that does not parse or is out of range is the default, as
// when the library read them itself.
func ConfigFromEnv() Config {
	num := func(k string) uint32 {
		v, err := strconv.ParseUint(os.Getenv(k), 10, 32)
		if err != nil {
			return 0
		}
		return uint32(v)
	}
	c := Config{
		Profile:   strings.HasPrefix(os.Getenv("CUZK_PROFILE"), "1"),
		RunSerial: strings.HasPrefix(os.Getenv("CUZK_RUN_SERIAL"), "1"),
		MSMWindow: num("CUZK_MSM_C"),
		MSMSegLog: num("CUZK_MSM_SEG"),
	}
	if (Config{MSMWindow: c.MSMWindow}).Validate() != nil {
		c.MSMWindow = 0
	}
	if (Config{MSMSegLog: c.MSMSegLog}).Validate() != nil {
		c.MSMSegLog = 0
	}
	return c
}

// cConfig mirrors cuzk_config.
type cConfig struct {
	Profile, RunSerial   int32
	MSMWindow, MSMSegLog uint32
	Priority             int32
}

func (c Config) c() cConfig {
	b := func(v bool) int32 {
		if v {
			return 1
		}
		return 0
	}
	return cConfig{Profile: b(c.Profile), RunSerial: b(c.RunSerial), MSMWindow: c.MSMWindow, MSMSegLog: c.MSMSegLog,
		Priority: b(c.Priority)}
}

// cuzk_result mirrors the C struct.
type cResult struct {
	Points                                        [4][192]byte
	Total, H2D, NTT, MSMH, MSML, MSMA, MSMB, _pad float32
	SpMV, Split                                   float32   // cuzk_run_witness only
	BG2                                           [384]byte // B_G2 (XYZZ) when HasBG2 != 0
	HasBG2                                        int32
	MSMB2                                         float32
	HostPre, Host                                 float32 // host ms: call to first event, call to return
	HostSynced                                    float32 // host ms: call to its last synchronization's return
}

type cPart struct {
	Ones    unsafe.Pointer
	Scalars unsafe.Pointer
	Idx     unsafe.Pointer
	NTail   uint64
}

type cJob struct {
	A, B, C unsafe.Pointer
	NRows   uint64
	Lgn     uint32
	_pad    uint32
	Part    [3]cPart
	// Staged, where not nil, is written StagedSeq once a and b are
	// uploaded (staged.go).
	Staged    *uint32
	StagedSeq uint32
	_pad2     uint32
}

var lib struct {
	once sync.Once
	err  error
	path string

	lastError   func() string
	deviceCount func() int32
	deviceInfo  func(dev int32, name *byte, nameLen int32, total, free *uint64, sms *int32) int32
	ctxNewCfg   func(dev int32, cfg *cConfig) uintptr
	ctxNew      func(dev int32) uintptr // ctxNewCfg with ConfigFromEnv
	ctxFree     func(ctx uintptr)
	hostAlloc   func(n uint64) unsafe.Pointer
	hostFree    func(p unsafe.Pointer)
	ntt         func(ctx uintptr, data unsafe.Pointer, lgn uint32, mode uint32) int32
	h           func(ctx uintptr, a, b, c unsafe.Pointer, nrows uint64, lgn uint32, out unsafe.Pointer) int32
	msm         func(ctx uintptr, bases, scalars unsafe.Pointer, n uint64, out unsafe.Pointer) int32
	msmSplit    func(ctx uintptr, bases unsafe.Pointer, nbases uint64, ones, scalars, idx unsafe.Pointer, ntail uint64, out unsafe.Pointer) int32
	srsUpload   func(dev int32, h unsafe.Pointer, nh uint64, l unsafe.Pointer, nl uint64, a unsafe.Pointer, na uint64, b unsafe.Pointer, nb uint64) uintptr
	srsSynth    func(dev int32, nh, nl, na, nb uint64) uintptr
	srsFree     func(s uintptr)
	run         func(ctx uintptr, srs uintptr, job *cJob, res *cResult) int32
	// runPair is nil where the library has no cuzk_run_pair (one built
	// before it, for a comparison): partitions then run one at a time.
	runPair  func(ctx uintptr, srs uintptr, jobs *cJob, hbuf unsafe.Pointer, hbufBytes uint64, res *cResult) int32
	benchNTT func(ctx uintptr, lgn uint32, reps int32, fwd, inv, hseq, hseqAB *float32) int32
	benchMSM func(ctx uintptr, srs uintptr, q int32, n uint64, reps int32, ms *float32, window *uint32) int32
}

func candidates() []string {
	var c []string
	if p := os.Getenv("CUZK_CUDA_LIB"); p != "" {
		c = append(c, p)
	}
	if exe, err := os.Executable(); err == nil {
		c = append(c, filepath.Join(filepath.Dir(exe), LibName))
	}
	c = append(c, filepath.Join("bin", LibName), filepath.Join("..", "..", "bin", LibName), LibName)
	return c
}

func load() error {
	lib.once.Do(func() {
		var h uintptr
		var errs []error
		for _, p := range candidates() {
			if filepath.IsAbs(p) || filepath.Dir(p) != "." {
				if _, err := os.Stat(p); err != nil {
					continue
				}
			}
			var err error
			h, err = purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_GLOBAL)
			if err == nil {
				lib.path = p
				break
			}
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
		}
		if h == 0 {
			lib.err = fmt.Errorf("%w: %w", ErrUnavailable, errors.Join(errs...))
			return
		}
		reg := func(fn any, name string) {
			if lib.err != nil {
				return
			}
			defer func() {
				if r := recover(); r != nil {
					lib.err = fmt.Errorf("%w: %s: symbol %s: %v", ErrUnavailable, lib.path, name, r)
				}
			}()
			purego.RegisterLibFunc(fn, h, name)
		}
		reg(&lib.lastError, "cuzk_last_error")
		reg(&lib.deviceCount, "cuzk_device_count")
		reg(&lib.deviceInfo, "cuzk_device_info")
		reg(&lib.ctxNewCfg, "cuzk_ctx_new")
		lib.ctxNew = func(dev int32) uintptr {
			cfg := ConfigFromEnv().c()
			return lib.ctxNewCfg(dev, &cfg)
		}
		reg(&lib.ctxFree, "cuzk_ctx_free")
		reg(&lib.hostAlloc, "cuzk_host_alloc")
		reg(&lib.hostFree, "cuzk_host_free")
		reg(&lib.ntt, "cuzk_ntt")
		reg(&lib.h, "cuzk_h")
		reg(&lib.msm, "cuzk_msm")
		reg(&lib.msmSplit, "cuzk_msm_split")
		reg(&lib.srsUpload, "cuzk_srs_upload")
		reg(&lib.srsSynth, "cuzk_srs_synthetic")
		reg(&lib.srsFree, "cuzk_srs_free")
		reg(&lib.run, "cuzk_run")
		if _, err := purego.Dlsym(h, "cuzk_run_pair"); err == nil {
			reg(&lib.runPair, "cuzk_run_pair")
		}
		reg(&lib.benchNTT, "cuzk_bench_ntt")
		reg(&lib.benchMSM, "cuzk_bench_msm")
		registerStream(reg)
		regFile(reg)
		registerWitness(reg)
		regG2(reg)
	})
	return lib.err
}

// The library's error codes (cuzk.h) that callers tell apart.
const (
	codeMem  = -3 // CUZK_ERR_MEM: device memory (or a limit) too small
	codeLost = -4 // CUZK_ERR_LOST: a sticky CUDA error, the device unusable until the process ends
)

// libErr wraps the library's last error message for call; a sticky CUDA
// error (codeLost) wraps groth16.ErrDeviceLost too, so that the engine
// stops giving the device work and sends its partitions to the devices
// left.
func libErr(call string, code int32) error {
	if code == codeLost {
		return fmt.Errorf("%w: %w: %s (code %d): %s; restart the process to use this device again",
			ErrCUDA, groth16.ErrDeviceLost, call, code, lib.lastError())
	}
	return fmt.Errorf("%w: %s (code %d): %s", ErrCUDA, call, code, lib.lastError())
}

// Info describes one CUDA device.
type Info struct {
	Index    int
	Name     string
	TotalMem uint64
	FreeMem  uint64
	SMs      int
}

// Available reports whether the library loads and sees at least one device.
func Available() bool {
	if load() != nil {
		return false
	}
	return lib.deviceCount() > 0
}

// Devices lists the CUDA devices the library sees.
func Devices() ([]Info, error) {
	if err := load(); err != nil {
		return nil, err
	}
	n := int(lib.deviceCount())
	out := make([]Info, 0, n)
	for i := 0; i < n; i++ {
		var name [256]byte
		var total, free uint64
		var sms int32
		if rc := lib.deviceInfo(int32(i), &name[0], int32(len(name)), &total, &free, &sms); rc != 0 {
			return nil, libErr(fmt.Sprintf("device info %d", i), rc)
		}
		l := 0
		for l < len(name) && name[l] != 0 {
			l++
		}
		out = append(out, Info{Index: i, Name: string(name[:l]), TotalMem: total, FreeMem: free, SMs: int(sms)})
	}
	return out, nil
}

// pinned is host memory from cuzk_host_alloc.
type pinned struct {
	p unsafe.Pointer
	n uint64
}

func allocPinned(n uint64) (pinned, error) {
	if n == 0 {
		n = 64
	}
	p := lib.hostAlloc(n)
	if p == nil {
		return pinned{}, fmt.Errorf("%w: pinned allocation of %d bytes: %s", ErrCUDA, n, lib.lastError())
	}
	return pinned{p, n}, nil
}

func (b pinned) free() {
	if b.p != nil {
		lib.hostFree(b.p)
	}
}

func (b pinned) bytes() []byte { return unsafe.Slice((*byte)(b.p), b.n) }
