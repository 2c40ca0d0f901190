package renewal

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)

func ptr(d time.Duration) *time.Duration { return &d }

func TestTime(t *testing.T) {
	cases := map[string]struct {
		lifetime    time.Duration
		renewBefore *time.Duration
		want        time.Duration // after issuance
	}{
		"default: two thirds of 24h":              {lifetime: 24 * time.Hour, want: 16 * time.Hour},
		"default: two thirds of a capped 1h":      {lifetime: time.Hour, want: 40 * time.Minute},
		"explicit renewBefore":                    {lifetime: 24 * time.Hour, renewBefore: ptr(2 * time.Hour), want: 22 * time.Hour},
		"renewBefore capped at half the lifetime": {lifetime: time.Hour, renewBefore: ptr(6 * time.Hour), want: 30 * time.Minute},
		"zero renewBefore means the default":      {lifetime: 3 * time.Hour, renewBefore: ptr(0), want: 2 * time.Hour},
		"expired on arrival: renew at once":       {lifetime: -time.Minute, want: 0},
		"no lifetime at all: renew at once":       {lifetime: 0, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Time(t0, t0.Add(tc.lifetime), tc.renewBefore)
			if want := t0.Add(tc.want); !got.Equal(want) {
				t.Errorf("Time() = issuance + %v, want issuance + %v", got.Sub(t0), tc.want)
			}
		})
	}
}

func TestDue(t *testing.T) {
	renewAt := t0.Add(time.Hour)
	if Due(renewAt.Add(-time.Second), renewAt) {
		t.Error("due one second before the renewal time")
	}
	if !Due(renewAt, renewAt) {
		t.Error("not due at the renewal time")
	}
	if !Due(renewAt.Add(time.Hour), renewAt) {
		t.Error("not due after the renewal time")
	}
}

func TestRequeueAfter(t *testing.T) {
	cases := map[string]struct {
		untilRenewal, poll, want time.Duration
	}{
		"renewal far away: poll interval":      {untilRenewal: 10 * time.Hour, poll: 10 * time.Minute, want: 10 * time.Minute},
		"renewal before the next poll":         {untilRenewal: 3 * time.Minute, poll: 10 * time.Minute, want: 3 * time.Minute},
		"long poll interval does not delay it": {untilRenewal: 40 * time.Minute, poll: 24 * time.Hour, want: 40 * time.Minute},
		"renewal time just passed: a floor":    {untilRenewal: -time.Minute, poll: 10 * time.Minute, want: MinRequeue},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := RequeueAfter(t0, t0.Add(tc.untilRenewal), tc.poll); got != tc.want {
				t.Errorf("RequeueAfter() = %v, want %v", got, tc.want)
			}
		})
	}
}
