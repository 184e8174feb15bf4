package cuda

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/cuzk-project/cuzk/groth16"
)

// TestConfigFromEnv: the switches read as the library read them before it
// took a config (a value that does not parse or is out of range is the default).
func TestConfigFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		profile, serial, win, seg string
		want                      Config
	}{
		{"unset", "", "", "", "", Config{}},
		{"set", "1", "1", "22", "17", Config{Profile: true, RunSerial: true, MSMWindow: 22, MSMSegLog: 17}},
		{"flags need a leading 1", "0", "yes", "", "", Config{}},
		{"window not allowed", "", "", "18", "", Config{}},
		{"segments out of range", "", "", "", "21", Config{}},
		{"not numbers", "", "", "x", "-3", Config{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CUZK_PROFILE", tc.profile)
			t.Setenv("CUZK_RUN_SERIAL", tc.serial)
			t.Setenv("CUZK_MSM_C", tc.win)
			t.Setenv("CUZK_MSM_SEG", tc.seg)
			got := ConfigFromEnv()
			if got != tc.want {
				t.Fatalf("ConfigFromEnv() = %+v, want %+v", got, tc.want)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		c  Config
		ok bool
	}{
		{Config{}, true},
		{Config{MSMWindow: 24, MSMSegLog: 12}, true},
		{Config{MSMWindow: 20, MSMSegLog: 20}, true},
		{Config{MSMWindow: 21}, false},
		{Config{MSMSegLog: 11}, false},
		{Config{MSMSegLog: 21}, false},
	} {
		err := tc.c.Validate()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrBadConfig)) {
			t.Errorf("%+v: Validate() = %v, want ok %v", tc.c, err, tc.ok)
		}
	}
}

// TestConfigLayout: cConfig is cuzk_config (five 4-byte fields, 20 bytes).
func TestConfigLayout(t *testing.T) {
	var c cConfig
	if unsafe.Sizeof(c) != 20 || unsafe.Offsetof(c.MSMSegLog) != 12 || unsafe.Offsetof(c.Priority) != 16 {
		t.Fatalf("cConfig: %d bytes, MSMSegLog at %d, Priority at %d", unsafe.Sizeof(c), unsafe.Offsetof(c.MSMSegLog), unsafe.Offsetof(c.Priority))
	}
	if (Config{Priority: true}).c().Priority != 1 || (Config{}).c().Priority != 0 {
		t.Fatal("Priority does not reach cuzk_config.priority")
	}
	if got := (Config{Profile: true, MSMWindow: 16}).c(); got != (cConfig{Profile: 1, MSMWindow: 16}) {
		t.Fatalf("c() = %+v", got)
	}
}

// TestLibErrLost: the library's CUZK_ERR_LOST (a sticky CUDA error: the
// device is unusable until the process ends) is a device loss for the
// engine, which then stops giving the device work; its other codes fail
// only the call. Every one wraps ErrCUDA and keeps the library's message.
func TestLibErrLost(t *testing.T) {
	const msg = "cuda/run.cu:1: k(): an illegal memory access was encountered"
	saved := lib.lastError
	lib.lastError = func() string { return msg }
	defer func() { lib.lastError = saved }()
	for _, tc := range []struct {
		name string
		code int32
		lost bool
	}{
		{"CUZK_ERR_CUDA", -1, false},
		{"CUZK_ERR_ARG", -2, false},
		{"CUZK_ERR_MEM", codeMem, false},
		{"CUZK_ERR_LOST", codeLost, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := libErr("run", tc.code)
			if !errors.Is(err, ErrCUDA) || errors.Is(err, groth16.ErrDeviceLost) != tc.lost {
				t.Errorf("%v: ErrCUDA %v, ErrDeviceLost %v; want true, %v", err, errors.Is(err, ErrCUDA),
					errors.Is(err, groth16.ErrDeviceLost), tc.lost)
			}
			if !strings.Contains(err.Error(), msg) {
				t.Errorf("%v: the library's message is lost", err)
			}
		})
	}
}
