package quota

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/poolgate/poolgate/internal/enum"
)

func TestParsePriority(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Priority
		wantErr string
	}{
		{in: "HIGH", want: High},
		{in: "high", want: High},
		{in: "Normal", want: Normal},
		{in: "lOw", want: Low},
		{in: "", wantErr: `invalid priority "": must be HIGH, NORMAL or LOW`},
		{in: "urgent", wantErr: `invalid priority "urgent": must be HIGH, NORMAL or LOW`},
		{in: " LOW", wantErr: `invalid priority " LOW": must be HIGH, NORMAL or LOW`},
		{in: "HIGh\u212a", wantErr: "invalid priority \"HIGh\u212a\": must be HIGH, NORMAL or LOW"},
	} {
		got, err := ParsePriority(tc.in)
		if tc.wantErr != "" {
			var pe *ParseError
			if err == nil || err.Error() != tc.wantErr || !errors.As(err, &pe) {
				t.Errorf("ParsePriority(%q) error %v, want %s", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParsePriority(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestPriorityOrderAndClasses(t *testing.T) {
	var zero Priority
	if zero != Normal {
		t.Fatal("the zero Priority must be NORMAL, the default")
	}
	ps := []Priority{Low, High, Normal}
	slices.SortFunc(ps, func(a, b Priority) int { return b.Compare(a) })
	if !slices.Equal(ps, []Priority{High, Normal, Low}) {
		t.Fatalf("highest first: %v", ps)
	}
	for _, tc := range []struct {
		p                       Priority
		guaranteed, preemptible bool
	}{{High, true, false}, {Normal, true, false}, {Low, false, true}, {Priority(5), false, false}} {
		if tc.p.Guaranteed() != tc.guaranteed || tc.p.Preemptible() != tc.preemptible {
			t.Errorf("%v: guaranteed %v preemptible %v", tc.p, tc.p.Guaranteed(), tc.p.Preemptible())
		}
	}
	if Priority(5).IsValid() || Priority(-2).IsValid() {
		t.Fatal("out-of-range priorities are valid")
	}
}

func TestPriorityText(t *testing.T) {
	type doc struct {
		P Priority `json:"p"`
	}
	out, err := json.Marshal(doc{P: Low})
	if err != nil || string(out) != `{"p":"LOW"}` {
		t.Fatalf("%s, %v", out, err)
	}
	var d doc
	if err := json.Unmarshal([]byte(`{"p":"high"}`), &d); err != nil || d.P != High {
		t.Fatalf("%v, %v", d.P, err)
	}
	d.P = High
	if err := json.Unmarshal([]byte(`{"p":""}`), &d); err != nil || d.P != Normal {
		t.Fatalf("empty text is the default: %v, %v", d.P, err)
	}
	if err := json.Unmarshal([]byte(`{"p":"soon"}`), &d); err == nil {
		t.Fatal("accepted soon")
	}
	if _, err := Priority(9).MarshalText(); err == nil {
		t.Fatal("marshalled an invalid priority")
	}
}

func FuzzParsePriority(f *testing.F) {
	for _, s := range []string{"HIGH", "normal", "Low", "", "x", "LOW\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePriority(s)
		if err != nil {
			return
		}
		text, err := p.MarshalText()
		if err != nil || !enum.EqualFold(s, string(text)) {
			t.Fatalf("ParsePriority(%q) = %v, text %q, %v", s, p, text, err)
		}
	})
}
