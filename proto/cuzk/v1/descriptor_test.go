package cuzkv1_test

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// The reference wire contract: the cuzk.v1 API of Curio's client
// (filecoin-project/curio lib/cuzk, generated from the Rust engine's
// proving.proto), transcribed field by field. Every entry must match the generated
// descriptors exactly: a mismatch means Curio's client breaks.

type field struct {
	name     string
	number   protoreflect.FieldNumber
	kind     protoreflect.Kind
	repeated bool
	typ      string // full name of the message or enum type, if any
}

var wantMessages = map[string][]field{
	"SubmitProofRequest": {
		{"request_id", 1, protoreflect.StringKind, false, ""},
		{"proof_kind", 2, protoreflect.EnumKind, false, "cuzk.v1.ProofKind"},
		{"sector_size", 3, protoreflect.Uint64Kind, false, ""},
		{"registered_proof", 4, protoreflect.Uint64Kind, false, ""},
		{"priority", 5, protoreflect.EnumKind, false, "cuzk.v1.Priority"},
		{"vanilla_proof", 10, protoreflect.BytesKind, false, ""},
		{"vanilla_proofs", 11, protoreflect.BytesKind, true, ""},
		{"sector_number", 20, protoreflect.Uint64Kind, false, ""},
		{"miner_id", 21, protoreflect.Uint64Kind, false, ""},
		{"randomness", 22, protoreflect.BytesKind, false, ""},
		{"partition_index", 23, protoreflect.Uint32Kind, false, ""},
		{"comm_r_old", 30, protoreflect.BytesKind, false, ""},
		{"comm_r_new", 31, protoreflect.BytesKind, false, ""},
		{"comm_d_new", 32, protoreflect.BytesKind, false, ""},
	},
	"SubmitProofResponse": {
		{"job_id", 1, protoreflect.StringKind, false, ""},
		{"queue_position", 2, protoreflect.Uint32Kind, false, ""},
		{"assigned_gpu", 3, protoreflect.StringKind, false, ""},
	},
	"AwaitProofRequest": {
		{"job_id", 1, protoreflect.StringKind, false, ""},
		{"timeout_ms", 2, protoreflect.Uint64Kind, false, ""},
	},
	"AwaitProofResponse": {
		{"job_id", 1, protoreflect.StringKind, false, ""},
		{"status", 2, protoreflect.EnumKind, false, "cuzk.v1.AwaitProofResponse.Status"},
		{"proof", 3, protoreflect.BytesKind, false, ""},
		{"error_message", 4, protoreflect.StringKind, false, ""},
		{"queue_wait_ms", 10, protoreflect.Uint64Kind, false, ""},
		{"srs_load_ms", 11, protoreflect.Uint64Kind, false, ""},
		{"synthesis_ms", 12, protoreflect.Uint64Kind, false, ""},
		{"gpu_compute_ms", 13, protoreflect.Uint64Kind, false, ""},
		{"total_ms", 14, protoreflect.Uint64Kind, false, ""},
	},
	"ProveRequest": {
		{"submit", 1, protoreflect.MessageKind, false, "cuzk.v1.SubmitProofRequest"},
	},
	"ProveResponse": {
		{"result", 1, protoreflect.MessageKind, false, "cuzk.v1.AwaitProofResponse"},
	},
	"CancelProofRequest":  {{"job_id", 1, protoreflect.StringKind, false, ""}},
	"CancelProofResponse": {{"was_running", 1, protoreflect.BoolKind, false, ""}},
	"GetStatusRequest":    {},
	"GetStatusResponse": {
		{"gpus", 1, protoreflect.MessageKind, true, "cuzk.v1.GPUStatus"},
		{"loaded_srs", 2, protoreflect.MessageKind, true, "cuzk.v1.SRSStatus"},
		{"queues", 3, protoreflect.MessageKind, true, "cuzk.v1.QueueStatus"},
		{"total_proofs_completed", 4, protoreflect.Uint64Kind, false, ""},
		{"total_proofs_failed", 5, protoreflect.Uint64Kind, false, ""},
		{"uptime_seconds", 6, protoreflect.Uint64Kind, false, ""},
		{"pinned_memory_bytes", 7, protoreflect.Uint64Kind, false, ""},
		{"pinned_memory_limit_bytes", 8, protoreflect.Uint64Kind, false, ""},
	},
	"GPUStatus": {
		{"ordinal", 1, protoreflect.Uint32Kind, false, ""},
		{"name", 2, protoreflect.StringKind, false, ""},
		{"vram_total_bytes", 3, protoreflect.Uint64Kind, false, ""},
		{"vram_free_bytes", 4, protoreflect.Uint64Kind, false, ""},
		{"current_job_id", 5, protoreflect.StringKind, false, ""},
		{"current_proof_kind", 6, protoreflect.StringKind, false, ""},
	},
	"SRSStatus": {
		{"circuit_id", 1, protoreflect.StringKind, false, ""},
		{"tier", 2, protoreflect.EnumKind, false, "cuzk.v1.SRSStatus.Tier"},
		{"size_bytes", 3, protoreflect.Uint64Kind, false, ""},
		{"ref_count", 4, protoreflect.Uint32Kind, false, ""},
	},
	"QueueStatus": {
		{"proof_kind", 1, protoreflect.StringKind, false, ""},
		{"pending", 2, protoreflect.Uint32Kind, false, ""},
		{"in_progress", 3, protoreflect.Uint32Kind, false, ""},
	},
	"PreloadSrsRequest": {{"circuit_id", 1, protoreflect.StringKind, false, ""}},
	"PreloadSrsResponse": {
		{"already_loaded", 1, protoreflect.BoolKind, false, ""},
		{"load_time_ms", 2, protoreflect.Uint64Kind, false, ""},
	},
	"EvictSrsRequest": {{"circuit_id", 1, protoreflect.StringKind, false, ""}},
	"EvictSrsResponse": {
		{"was_loaded", 1, protoreflect.BoolKind, false, ""},
		{"freed_bytes", 2, protoreflect.Uint64Kind, false, ""},
	},
	"GetMetricsRequest":  {},
	"GetMetricsResponse": {{"prometheus_text", 1, protoreflect.StringKind, false, ""}},
}

var wantEnums = map[string]map[string]protoreflect.EnumNumber{
	"cuzk.v1.ProofKind": {
		"PROOF_KIND_UNSPECIFIED": 0, "POREP_SEAL_COMMIT": 1, "SNAP_DEALS_UPDATE": 2,
		"WINDOW_POST_PARTITION": 3, "WINNING_POST": 4,
	},
	"cuzk.v1.Priority": {
		"PRIORITY_UNSPECIFIED": 0, "LOW": 1, "NORMAL": 2, "HIGH": 3, "CRITICAL": 4,
	},
	"cuzk.v1.AwaitProofResponse.Status": {
		"UNKNOWN": 0, "COMPLETED": 1, "FAILED": 2, "CANCELLED": 3, "TIMEOUT": 4,
	},
	"cuzk.v1.SRSStatus.Tier": {"HOT": 0, "WARM": 1, "COLD": 2},
}

var wantRPCs = []struct{ name, in, out string }{
	{"SubmitProof", "SubmitProofRequest", "SubmitProofResponse"},
	{"AwaitProof", "AwaitProofRequest", "AwaitProofResponse"},
	{"Prove", "ProveRequest", "ProveResponse"},
	{"CancelProof", "CancelProofRequest", "CancelProofResponse"},
	{"GetStatus", "GetStatusRequest", "GetStatusResponse"},
	{"GetMetrics", "GetMetricsRequest", "GetMetricsResponse"},
	{"PreloadSRS", "PreloadSrsRequest", "PreloadSrsResponse"},
	{"EvictSRS", "EvictSrsRequest", "EvictSrsResponse"},
}

func file() protoreflect.FileDescriptor { return cuzkv1.File_cuzk_v1_proving_proto }

func TestFile(t *testing.T) {
	fd := file()
	if got := fd.Package(); got != "cuzk.v1" {
		t.Errorf("package = %q, want cuzk.v1", got)
	}
	if got := fd.Path(); got != "cuzk/v1/proving.proto" {
		t.Errorf("path = %q, want cuzk/v1/proving.proto", got)
	}
	if fd.Syntax() != protoreflect.Proto3 {
		t.Errorf("syntax = %v, want proto3", fd.Syntax())
	}
}

func TestMessages(t *testing.T) {
	fd := file()
	if got, want := fd.Messages().Len(), len(wantMessages); got != want {
		t.Errorf("%d top-level messages, want %d", got, want)
	}
	for name, fields := range wantMessages {
		t.Run(name, func(t *testing.T) {
			md := fd.Messages().ByName(protoreflect.Name(name))
			if md == nil {
				t.Fatalf("message %s missing (names are case-sensitive)", name)
			}
			if got := md.Fields().Len(); got != len(fields) {
				t.Errorf("%d fields, want %d", got, len(fields))
			}
			for _, w := range fields {
				f := md.Fields().ByName(protoreflect.Name(w.name))
				if f == nil {
					t.Errorf("field %s missing", w.name)
					continue
				}
				if f.Number() != w.number {
					t.Errorf("%s: number %d, want %d", w.name, f.Number(), w.number)
				}
				if f.Kind() != w.kind {
					t.Errorf("%s: kind %v, want %v", w.name, f.Kind(), w.kind)
				}
				if f.IsList() != w.repeated {
					t.Errorf("%s: repeated = %v, want %v", w.name, f.IsList(), w.repeated)
				}
				if f.HasPresence() && f.Kind() != protoreflect.MessageKind {
					t.Errorf("%s: has explicit presence (optional/oneof); the reference has none", w.name)
				}
				var typ string
				switch {
				case f.Enum() != nil:
					typ = string(f.Enum().FullName())
				case f.Message() != nil:
					typ = string(f.Message().FullName())
				}
				if typ != w.typ {
					t.Errorf("%s: type %q, want %q", w.name, typ, w.typ)
				}
			}
		})
	}
}

// enumByName finds a top-level or nested enum by its full name.
func enumByName(fd protoreflect.FileDescriptor, full string) protoreflect.EnumDescriptor {
	if ed := fd.Enums().ByName(protoreflect.FullName(full).Name()); ed != nil && string(ed.FullName()) == full {
		return ed
	}
	for i := 0; i < fd.Messages().Len(); i++ {
		md := fd.Messages().Get(i)
		for j := 0; j < md.Enums().Len(); j++ {
			if ed := md.Enums().Get(j); string(ed.FullName()) == full {
				return ed
			}
		}
	}
	return nil
}

func TestEnums(t *testing.T) {
	fd := file()
	for full, values := range wantEnums {
		t.Run(full, func(t *testing.T) {
			ed := enumByName(fd, full)
			if ed == nil {
				t.Fatalf("enum %s missing", full)
			}
			if got := ed.Values().Len(); got != len(values) {
				t.Errorf("%d values, want %d", got, len(values))
			}
			for name, num := range values {
				v := ed.Values().ByName(protoreflect.Name(name))
				if v == nil {
					t.Errorf("value %s missing", name)
					continue
				}
				if v.Number() != num {
					t.Errorf("%s = %d, want %d", name, v.Number(), num)
				}
			}
		})
	}
}

func TestService(t *testing.T) {
	fd := file()
	sd := fd.Services().ByName("ProvingEngine")
	if sd == nil {
		t.Fatal("service ProvingEngine missing")
	}
	if sd.FullName() != "cuzk.v1.ProvingEngine" {
		t.Errorf("service full name %s", sd.FullName())
	}
	if got := sd.Methods().Len(); got != len(wantRPCs) {
		t.Errorf("%d RPCs, want %d", got, len(wantRPCs))
	}
	for _, w := range wantRPCs {
		m := sd.Methods().ByName(protoreflect.Name(w.name))
		if m == nil {
			t.Errorf("RPC %s missing", w.name)
			continue
		}
		if m.IsStreamingClient() || m.IsStreamingServer() {
			t.Errorf("%s: streaming, want unary", w.name)
		}
		if got := string(m.Input().Name()); got != w.in {
			t.Errorf("%s: input %s, want %s", w.name, got, w.in)
		}
		if got := string(m.Output().Name()); got != w.out {
			t.Errorf("%s: output %s, want %s", w.name, got, w.out)
		}
	}
	// The full method names Curio's generated client dials.
	if cuzkv1.ProvingEngine_Prove_FullMethodName != "/cuzk.v1.ProvingEngine/Prove" {
		t.Errorf("Prove full method %q", cuzkv1.ProvingEngine_Prove_FullMethodName)
	}
}
