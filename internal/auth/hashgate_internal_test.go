package auth

import "testing"

func TestGateSizeFollowsCPUsAndMemory(t *testing.T) {
	for _, tc := range []struct {
		cpus   int
		params HashParams
		want   int
	}{
		{1, OWASPParams, 1},
		{2, OWASPParams, 1},  // half the CPUs
		{8, OWASPParams, 4},  // half the CPUs
		{64, OWASPParams, 6}, // 128 MiB / 19 MiB
		{16, HashParams{MemoryKiB: 64 * 1024, Time: 3, Threads: 1}, 2},
		{16, HashParams{MemoryKiB: 512 * 1024, Time: 1, Threads: 1}, 1}, // never zero
	} {
		if got := gateSize(tc.cpus, tc.params); got != tc.want {
			t.Errorf("gateSize(%d CPUs, %d KiB) = %d, want %d", tc.cpus, tc.params.MemoryKiB, got, tc.want)
		}
	}
}
