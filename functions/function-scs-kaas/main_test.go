package main

import (
	"runtime/debug"
	"testing"
)

func TestSetGCPercent(t *testing.T) {
	cases := map[string]struct {
		env  map[string]string
		want int
	}{
		"GOGC unset: the function's own": {env: map[string]string{}, want: gcPercent},
		"GOGC set: the operator's":       {env: map[string]string{"GOGC": "50"}, want: 50},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// The runtime read GOGC at start; the operator's value stands in for it here.
			previous := debug.SetGCPercent(50)
			defer debug.SetGCPercent(previous)
			setGCPercent(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if got := debug.SetGCPercent(50); got != tc.want {
				t.Errorf("GC percent: got %d, want %d", got, tc.want)
			}
		})
	}
}
