package web

import (
	"testing"
	"time"
)

func TestMoney(t *testing.T) {
	for cents, want := range map[int64]string{
		0: "$0.00", 5: "$0.05", 123450: "$1,234.50", 100000000: "$1,000,000.00", -2000: "-$20.00", -123456789: "-$1,234,567.89",
		-9223372036854775808: "-$92,233,720,368,547,758.08",
	} {
		if got := money(cents); got != want {
			t.Errorf("money(%d) = %s, want %s", cents, got, want)
		}
	}
}

func TestPercentAndZone(t *testing.T) {
	for bps, want := range map[int]string{1025: "10.25%", 2000: "20%", 0: "0%", 875: "8.75%", 5: "0.05%", 150: "1.5%"} {
		if got := percentBps(bps); got != want {
			t.Errorf("percentBps(%d) = %s, want %s", bps, got, want)
		}
	}
	first, again := zone("America/Chicago"), zone("America/Chicago")
	if zone("Not/AZone") != time.UTC || first.String() != "America/Chicago" || first != again {
		t.Fatal("zone: unknown names are UTC, known ones load once")
	}
}

func TestOnColorContrast(t *testing.T) {
	for hex, want := range map[string]string{"ffffff": "#000000", "000000": "#ffffff", "1f2937": "#ffffff", "f59e0b": "#000000"} {
		if got := onColor(hex); got != want {
			t.Errorf("onColor(%s) = %s, want %s", hex, got, want)
		}
	}
}
