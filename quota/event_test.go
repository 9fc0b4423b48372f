package quota

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/poolgate/poolgate/internal/enum"
)

// TestEnumText: every enum of the pool set marshals to its word and parses back, in any
// letter case; invalid values neither marshal nor parse.
func TestEnumText(t *testing.T) {
	for k := PoolAdded; k <= WorkflowFinished; k++ {
		text, err := k.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back EventKind
		if err := back.UnmarshalText([]byte(string(text))); err != nil || back != k {
			t.Fatalf("%v: %v, %v", k, back, err)
		}
	}
	for s := Online; s <= Maintenance; s++ {
		text, _ := s.MarshalText()
		var back Status
		if err := back.UnmarshalText(text); err != nil || back != s {
			t.Fatalf("%v: %v, %v", s, back, err)
		}
	}
	for s := SubpoolState(0); s <= Archived; s++ {
		text, _ := s.MarshalText()
		var back SubpoolState
		if err := back.UnmarshalText(text); err != nil || back != s {
			t.Fatalf("%v: %v, %v", s, back, err)
		}
	}
	if st, err := ParseStatus("maintenance"); err != nil || st != Maintenance {
		t.Fatalf("%v, %v", st, err)
	}
	if st, err := ParseSubpoolState("deleting"); err != nil || st != Deleting {
		t.Fatalf("%v, %v", st, err)
	}
	for _, err := range []error{
		second(EventKind(0).MarshalText()), second(EventKind(99).MarshalText()),
		second(Status(9).MarshalText()), second(SubpoolState(9).MarshalText()),
		second(ParseEventKind("POOL")), second(ParseStatus("UP")), second(ParseSubpoolState("GONE")),
		new(EventKind).UnmarshalText([]byte("x")), new(Status).UnmarshalText([]byte("x")), new(SubpoolState).UnmarshalText([]byte("x")),
	} {
		if err == nil {
			t.Error("an invalid value was accepted")
		}
	}
	for _, tc := range []struct{ got, want string }{
		{EventKind(99).String(), "EventKind(99)"},
		{Status(7).String(), "Status(7)"},
		{SubpoolState(7).String(), "SubpoolState(7)"},
		{PoolRule(200).Error(), "PoolRule(200)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestEventJSON: an event persists as JSON with every enum in words, and reads back.
func TestEventJSON(t *testing.T) {
	ev, err := seedPools(t).CreateSubpool(poolName("team--d"), 10)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(ev)
	want := `{"Kind":"SUBPOOL_CREATED","Name":"team--d","From":"-","To":"ACTIVE","QuotaBefore":"0","QuotaAfter":"10",` +
		`"UnallocatedBefore":"10","UnallocatedAfter":"0",` +
		`"PoolBefore":{"Quota":"0","Maximum":"0","Weight":0,"Status":""},"PoolAfter":{"Quota":"0","Maximum":"0","Weight":0,"Status":""},` +
		`"Workflow":{"ID":"","Pool":"","Priority":"NORMAL","GPUs":"0"}}`
	if err != nil || string(out) != want {
		t.Fatalf("%s, %v", out, err)
	}
	var back Event
	if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, ev) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

// FuzzParseEnums: the status, subpool-state and event-kind parsers never panic, and
// whatever they accept marshals back to the same word, up to letter case.
func FuzzParseEnums(f *testing.F) {
	for _, s := range []string{"ONLINE", "maintenance", "-", "Archived", "SUBPOOL_CREATED", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(text []byte, err error) {
			if err != nil || !enum.EqualFold(s, strings.ToUpper(string(text))) {
				t.Fatalf("%q came back as %q, %v", s, text, err)
			}
		}
		if v, err := ParseStatus(s); err == nil {
			check(v.MarshalText())
		}
		if v, err := ParseSubpoolState(s); err == nil {
			check(v.MarshalText())
		}
		if v, err := ParseEventKind(s); err == nil {
			check(v.MarshalText())
		}
	})
}
